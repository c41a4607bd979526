import { createHash } from 'node:crypto';
import { contentEncodingOf, decodeContent, MAX_STORED_BODY, makeRedactor, type Redactor } from '../cassette/index.js';
import type { Entry, ReplayOptions } from './answer-types.js';
import { type Echoes, echoesOf, placeholdersIn } from './echoes.js';
import { LARGE_BODY, type ReplayRequest, type RequestShape, shapeKey, shapeOf } from './match-request.js';
import type { RouteIndex } from './route-index.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** Bytes as UTF-8 text, or undefined when they are not. */
export function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A live request with a compressed body as its content (decision 0015); any other request as it came. */
function contentOf(live: ReplayRequest): ReplayRequest {
  if (live.body.byteLength === 0) return live;
  const header = live.headers['content-encoding'];
  const encoding = contentEncodingOf(Array.isArray(header) ? header[0] : header);
  const content = encoding && decodeContent(live.body, encoding, MAX_STORED_BODY);
  // Named field by field: a door's request reads its headers through an accessor, which a spread would not copy.
  return content ? { method: live.method, path: live.path, headers: live.headers, body: content } : live;
}

/** A large body's digest worked out once, for the several ways a request is tried. */
function withDigest(req: ReplayRequest): ReplayRequest {
  if (req.body.byteLength <= LARGE_BODY || req.bodySha256) return req;
  const bodySha256 = createHash('sha256').update(req.body).digest('hex');
  return { method: req.method, path: req.path, headers: req.headers, body: req.body, bodySha256 };
}

/** A live request as matched: its content, redacted as the recording was, its shape and the group of that shape. */
export interface Matched {
  content: ReplayRequest;
  req: ReplayRequest;
  shape: RequestShape;
  key: string;
  group: Entry[] | undefined;
  /** Sent exactly as recorded (`RouteIndex.exact`): nothing in it was redacted, so it has no value to echo. */
  verbatim?: boolean;
}

/** A request sent as recorded (`RouteIndex.exact`): its redacted form and shape are made only if a report asks for them. */
class VerbatimMatch implements Matched {
  readonly verbatim = true;
  private made: { req: ReplayRequest; shape: RequestShape } | undefined;

  constructor(
    readonly content: ReplayRequest,
    readonly key: string,
    readonly group: Entry[],
    private readonly make: () => { req: ReplayRequest; shape: RequestShape },
  ) {}

  get req(): ReplayRequest {
    this.made ??= this.make();
    return this.made.req;
  }

  get shape(): RequestShape {
    this.made ??= this.make();
    return this.made.shape;
  }
}

/** Turns live requests into what recordings hold: the recorder's redaction, and this machine's folders as placeholders. */
export class LiveRequests {
  private readonly redactor: Redactor;
  /** The redaction before decision 0016, made when a request first matches nothing: recordings made by it still match. */
  private earlier: Redactor | undefined;
  /** The headers matching reads (a multipart body's content type, `matchHeaders`): only these are scrubbed on a live request. */
  private readonly headersMatched: ReadonlySet<string>;

  constructor(
    private readonly options: ReplayOptions,
    readonly toPlaceholders: (s: string) => string,
  ) {
    this.redactor = makeRedactor(options.redact);
    this.headersMatched = new Set(['content-type', ...(options.matchHeaders ?? []).map((h) => h.toLowerCase())]);
  }

  /**
   * The group a live request belongs to. Recorded before decision 0015, a compressed body was kept as its bytes;
   * before decision 0016, every value under a secret-sounding name was redacted: each is tried when the request as
   * redacted now matches nothing.
   */
  match(live: ReplayRequest, index: RouteIndex): Matched {
    const exact = live.body.byteLength === 0 ? index.exact(live.method, live.path) : undefined;
    if (exact) return this.verbatim(live, exact, index);
    const content = withDigest(contentOf(live));
    const first = this.shaped(content, this.redactor, index);
    if (first.group) return { content, ...first };
    this.earlier ??= makeRedactor(this.options.redact, { judgeValues: false });
    const tries: [ReplayRequest, Redactor][] =
      content === live
        ? [[live, this.earlier]]
        : [
            [live, this.redactor],
            [content, this.earlier],
            [live, this.earlier],
          ];
    for (const [sent, redactor] of tries) {
      const again = this.shaped(sent, redactor, index);
      if (again.group) return { content, ...again };
    }
    return { content, ...first };
  }

  private verbatim(live: ReplayRequest, { key, group }: { key: string; group: Entry[] }, index: RouteIndex): Matched {
    return new VerbatimMatch(live, key, group, () => this.shaped(live, this.redactor, index));
  }

  private shaped(sent: ReplayRequest, redactor: Redactor, index: RouteIndex) {
    const req = this.redacted(sent, redactor);
    const shape = shapeOf(req, this.options, this.toPlaceholders);
    const key = shapeKey(shape);
    return { req, shape, key, group: index.group(shape.pathname, key) };
  }

  /** The request with its secrets replaced as the recorder would have: recorded placeholders then match. */
  redacted(req: ReplayRequest, redactor = this.redactor): ReplayRequest {
    // A large body is matched by its digest, unread (see LARGE_BODY): only its path and headers are redacted.
    const large = req.body.byteLength > LARGE_BODY;
    const text = req.body.byteLength === 0 ? '' : large ? undefined : utf8(req.body);
    const clean = redactor.request({ path: req.path, headers: req.headers, body: text ?? '' }, this.headersMatched);
    const body = text === undefined || clean.body === text ? req.body : Buffer.from(clean.body);
    return { method: req.method, path: clean.path, headers: clean.headers, body, bodySha256: req.bodySha256 };
  }

  /** The request's path as a log line may show it: its secrets replaced, as a recording has them (a replay's log ends up in CI output). */
  pathForLog(live: Pick<ReplayRequest, 'path' | 'headers'>): string {
    return this.redactor.request({ path: live.path, headers: live.headers, body: '' }).path;
  }

  /** A live WebSocket frame's text as recorded text would read: secrets and this machine's folders as placeholders. */
  frameText(text: string): string {
    return this.toPlaceholders(this.redactor.request({ path: '/', headers: {}, body: text }).body);
  }
}

/**
 * The live request's values behind the placeholders its recorded answer holds: a client-picked id the server
 * gives back (decision 0016). Worked out only for an answer that holds a placeholder.
 */
export function echoesFor(entry: Entry, matched: Matched): Echoes | undefined {
  // A request redaction left as it was has no value to give back: the answer's placeholders are not looked for.
  if (matched.verbatim) return undefined;
  const { content: live, req: redacted } = matched;
  if (live.path === redacted.path && live.body === redacted.body) return undefined;
  const response = entry.interaction.response;
  entry.placeholders ??= response ? placeholdersIn(JSON.stringify([response.body, response.stream])) : new Set();
  if (entry.placeholders.size === 0) return undefined;
  const text = (b: Uint8Array) => (b.byteLength === 0 ? '' : (utf8(b) ?? ''));
  const echoes = echoesOf(
    { path: live.path, body: text(live.body) },
    { path: redacted.path, body: text(redacted.body) },
    entry.placeholders,
  );
  return echoes.size > 0 ? echoes : undefined;
}
