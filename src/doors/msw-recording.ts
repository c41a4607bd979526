import { bypass, http } from 'msw';
import type { Cassette, RedactionConfig } from '../cassette/index.js';
import { startRecordingProxy } from '../recorder/index.js';
import type { ReplayOptions } from '../replayer/index.js';
import { type Closable, inProcess, OneOrigin } from './one-origin.js';
import { recordingRedaction } from './record-options.js';

/**
 * How an MSW door records: `in-process` (the default) in the test's process, as undici's SnapshotAgent does, with
 * no extra hop; `proxy` sends each request through a recording proxy, as `bench proxy` records any client.
 */
export type RecordVia = 'in-process' | 'proxy';

/** A live recording of one origin: sends a request to it, recorded, and hands over the cassette when closed. */
interface LiveRecording extends Closable {
  send(request: Request, url: URL, body: ArrayBuffer | null): Promise<Response>;
}

async function liveRecording(origin: string, via: RecordVia, redact: RedactionConfig | undefined): Promise<LiveRecording> {
  if (via === 'proxy') {
    const proxy = await startRecordingProxy({ target: origin, ...(redact ? { redact } : {}) });
    return {
      send: (request, url, body) =>
        fetch(bypass(new Request(`${proxy.url}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body }))),
      close: () => proxy.close(),
    };
  }
  const live = await inProcess(origin, redact);
  return {
    send: (request, url, body) =>
      fetch(bypass(new Request(url, { method: request.method, headers: request.headers, body })), {
        dispatcher: live.dispatcher,
      } as unknown as RequestInit),
    close: () => live.close(),
  };
}

/**
 * Records through MSW: each request goes, unintercepted, to the server it was meant for (recorded in-process or
 * through a recording proxy), and its answer (streams as they come) goes back to the test; `save` writes the
 * cassette to `file`, after `base` when one is given. It redacts as `recordingRedaction` says.
 */
export function recorderHandlers(
  file: string,
  options: Pick<ReplayOptions, 'redact' | 'config'> & { recordVia?: RecordVia },
  who = 'useCassette',
) {
  const via = options.recordVia ?? 'in-process';
  const redact = recordingRedaction(options);
  const recording = new OneOrigin(file, (origin) => liveRecording(origin, via, redact), who);
  const forward = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const live = await recording.for(url.origin);
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.arrayBuffer();
    const answer = await live.send(request, url, body);
    // fetch decoded the body: the coding and length no longer describe what goes back.
    const headers = new Headers(answer.headers);
    headers.delete('content-encoding');
    headers.delete('content-length');
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
  };
  return {
    forward,
    handler: http.all('*', ({ request }) => forward(request)),
    save: (base?: Cassette): Promise<Cassette | undefined> => recording.save(base, redact),
  };
}
