import type { Dispatcher } from 'undici';
import type { Interaction } from '../cassette/index.js';
import type { LegacyHandler } from '../net/undici-dispatch.js';
import { type Forwarding, forward, type UpstreamHeaders } from './forward.js';
import { errorText, failureCode, type ProxyContext, type StopReason, stoppedBy } from './proxy/exchange-parts.js';
import { ResponseRecording, recordBroken, settleRecording } from './response-recording.js';

/** One exchange under way: why it stopped early, once it has, and its request upstream, once it left. */
export interface UnderWay {
  stopReason: StopReason | undefined;
  forwarding: Forwarding | undefined;
}

/** Methods whose empty body still goes out with `content-length: 0`, as undici writes them. */
const SENDS_LENGTH = new Set(['POST', 'PUT', 'PATCH']);

/** undici's raw header list (name, value, name, value...) from a header record. */
function rawList(headers: UpstreamHeaders): Buffer[] {
  const out: Buffer[] = [];
  for (const k in headers) {
    const v = headers[k];
    if (v === undefined) continue;
    if (typeof v === 'string') out.push(Buffer.from(k, 'latin1'), Buffer.from(v, 'latin1'));
    else for (const one of v) out.push(Buffer.from(k, 'latin1'), Buffer.from(one, 'latin1'));
  }
  return out;
}

/** Adds one header line to a header record, a repeated name as a list. */
function addHeader(out: Record<string, string | string[]>, k: string, v: string): void {
  const name = k.toLowerCase();
  const had = out[name];
  out[name] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
}

/** The request's headers as its bytes carry them on the wire (and as the proxy would record them). */
export function wireHeaders(opts: Dispatcher.DispatchOptions, body: Buffer): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const raw = opts.headers as unknown;
  if (Array.isArray(raw)) {
    // undici takes a flat list (name, value, ...) or a list of pairs.
    if (Array.isArray(raw[0])) for (const pair of raw as unknown[][]) addHeader(out, String(pair[0]), String(pair[1]));
    else for (let i = 0; i + 1 < raw.length; i += 2) addHeader(out, String(raw[i]), String(raw[i + 1]));
  } else if (raw) {
    const record = raw as Record<string, string | string[] | undefined>;
    for (const k in record) {
      const v = record[k];
      if (typeof v === 'string') addHeader(out, k, v);
      else if (Array.isArray(v)) for (const one of v) addHeader(out, k, String(one));
      else if (v !== undefined) addHeader(out, k, String(v));
    }
  }
  if (out['content-length'] === undefined && (body.byteLength > 0 || SENDS_LENGTH.has(opts.method)))
    addHeader(out, 'content-length', String(body.byteLength));
  return out;
}

/** Forwards one request and passes its answer to the client's handler as it streams, recording it on the side. */
export async function recordedExchange(
  ctx: ProxyContext,
  interaction: Interaction,
  to: { origin: string; path: string; opts: Dispatcher.DispatchOptions; bytes: Buffer; wire: Record<string, string | string[]> },
  h: LegacyHandler,
  under: UnderWay,
): Promise<void> {
  const rec = new ResponseRecording(ctx, interaction);
  // undici sets the length of the body it sends itself.
  const { 'content-length': _length, ...headers } = to.wire;
  try {
    const forwarding = forward(
      ctx.agent,
      { origin: to.origin, path: to.path, method: to.opts.method, headers, body: to.bytes.byteLength > 0 ? to.bytes : null },
      (status, raw, resume) => {
        rec.head(status, raw);
        h.onHeaders?.(status, rawList(raw), resume, '');
        return (chunk) => {
          const more = h.onData?.(chunk) !== false;
          rec.chunk(chunk);
          return more;
        };
      },
    );
    under.forwarding = forwarding;
    if (under.stopReason) forwarding.abort(stoppedBy(under.stopReason));
    const trailers = await forwarding.done;
    await rec.done(trailers);
    h.onComplete?.(rawList(trailers));
  } catch (err) {
    if (interaction.response) recordBroken(rec, err, under.stopReason);
    else {
      rec.outcome.at = ctx.timeline.now();
      const code = under.stopReason ? 'client_aborted' : failureCode(err);
      rec.outcome.failure = { code, message: `${interaction.request.method} ${interaction.request.path}: ${errorText(err)}` };
    }
    if (!under.stopReason) h.onError?.(err as Error);
  } finally {
    await settleRecording(rec);
  }
}
