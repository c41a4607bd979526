import { z } from 'zod';
import { jsonDepthWithin } from './body.js';
import { GrowingList, inScrubOrder } from './growing-secret-list.js';
import type { Body, Cassette, Interaction, SseItem, WsFrame } from './schema.js';
import { secretSpellings } from './secret-encodings.js';
import { type SecretEntry, secretsIn } from './secret-index.js';
import { isEchoedIdentifier, isPasswordName, isSchemeName, isSecretName, MIN_CREDENTIAL_LENGTH, type NamePlace } from './secret-names.js';
import { mergeOverlapping, type SecretFinding, secretRules, shannonEntropy } from './secret-rules.js';
import { cutSpanning, type StreamText, spanning, streamTexts } from './split-secrets.js';
import { composeVisitors, type InteractionVisitor, visitInteraction } from './visit.js';

/** What to redact beyond the defaults, and what never to redact (`tapedeck.config.json` "redact"). */
export const redactionConfigSchema = z.strictObject({
  /** More header names to redact (case-insensitive). */
  headers: z.array(z.string()).default([]),
  /** More query parameter names. */
  query: z.array(z.string()).default([]),
  /** More JSON field names, at any depth of request, response and SSE data. */
  jsonFields: z.array(z.string()).default([]),
  /** More regular expressions; every match anywhere is a secret. */
  patterns: z.array(z.string()).default([]),
  /** Names (headers, query parameters, fields) never redacted, even when they look secret. */
  exempt: z.array(z.string()).default([]),
});
export type RedactionConfig = z.infer<typeof redactionConfigSchema>;
export const DEFAULT_REDACTION: RedactionConfig = redactionConfigSchema.parse({});

/** Headers whose values never reach disk, whatever the configuration says. */
export const ALWAYS_REDACTED_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];
/** Names that look secret but identify a request, not a caller: kept, so retries stay readable. */
const NOT_SECRET: readonly string[] = ['idempotency-key'];

/** The stable stand-in written in place of a secret. */
export function redactionPlaceholder(name: string): string {
  return `<redacted:${name.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-')}>`;
}

const PLACEHOLDER = /^<redacted:[a-z0-9_.-]+>$/;
// Values this short are replaced only where they were found, never everywhere.
const MIN_GLOBAL = 6;

export interface Redactor {
  /** Every secret value the cassette still holds, with the kind of secret it is. */
  findSecrets(c: Cassette): { value: string; kind: string }[];
  /** Credential shapes (JWT, sk- keys, bearer tokens, ...) in a piece of text. */
  findShapes(text: string): { value: string; kind: string }[];
  /** A copy with every secret replaced, wherever it occurs. */
  cassette(c: Cassette): Cassette;
  /** A redactor for pieces of one recording given in turn (the journal). */
  session(): RedactorSession;
  /**
   * Two passes for a recording too big to copy whole: `learn` every
   * interaction, then `scrub` each (and `target`) of every secret learnt.
   */
  twoPass(before?: { visitor: InteractionVisitor; text: (s: string) => string }): {
    /** Learns the interaction's secrets; returns them as learnt, for `learnPairs` to teach another redactor the same. */
    learn(i: Interaction): SecretPair[];
    /** Learns secrets that `learn` returned, as if their interaction were learnt again here. */
    learnPairs(pairs: readonly SecretPair[]): void;
    scrub(i: Interaction): Interaction;
    target(s: string): string;
    /**
     * What `scrub` replaces now: a scrub is a function of the interaction and this list alone. The list grows in
     * place as secrets are learnt (compare `version`); `sameScrubList` compares two in scrub order.
     */
    list(): ScrubList;
    /** Changes whenever `list` does. */
    version(): number;
  };
  /**
   * A live request with its secrets replaced as a recording would have them
   * (for replay matching). With `keep`, only those headers (lowercase names)
   * come back; every header still lends its secrets to the path and body.
   */
  request(
    r: { path: string; headers: Record<string, string | string[] | undefined>; body: string },
    keep?: ReadonlySet<string>,
  ): {
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  };
}

/** Redaction of one recording given in pieces (the journal's windows). */
export interface RedactorSession {
  /**
   * The piece scrubbed of the secrets found in it and in every piece before. `context`: for the SSE items or
   * WebSocket frames `of` the piece, those of the same stream an earlier piece held, read again to find a secret
   * split across both, never returned.
   */
  redact(c: Cassette, context?: PieceContext): Cassette;
  /**
   * Where a secret may have begun in these SSE items (or frames) of one stream that items yet to come would
   * finish: the index of the first item to hold back, `items.length` when none. `before` are the stream's items
   * already given, read for context.
   */
  unfinishedFrom(items: SseItem[], before: SseItem[]): number;
  unfinishedFramesFrom(frames: WsFrame[], before: WsFrame[]): number;
}

/** The items of a stream an earlier piece held, `before` the list `of` items (or frames) in this piece. */
export type PieceContext = { of: SseItem[]; before: SseItem[] } | { of: WsFrame[]; before: WsFrame[] };

/** A secret value and the name its placeholder gets. */
export type SecretPair = readonly [value: string, name: string];
/** Every spelling of every secret a scrub replaces, longest first. */
export type ScrubList = readonly (readonly [string, string])[];

/** Whether two scrub lists replace the same values by the same names in the same (scrub) order. */
export function sameScrubList(a: ScrubList, b: ScrubList): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  const [x, y] = [inScrubOrder(a), inScrubOrder(b)];
  return x.every(([v, n], k) => y[k]?.[0] === v && y[k]?.[1] === n);
}

/**
 * How a name holds its value: not a secret; a secret when the value could be a credential (a name judged by its
 * words alone, decision 0016); a secret whatever the value (a password, a name the configuration lists, an
 * always-redacted header).
 */
type Secrecy = 'none' | 'judged' | 'always';
/** The secret name a JSON value stands under (its placeholder's name), and how secret what is under it is. */
interface Under {
  name: string;
  secrecy: Exclude<Secrecy, 'none'>;
}

export interface RedactorOptions {
  /**
   * false: the rule before decision 0016, every value under a secret-sounding name redacted, protocol identifiers
   * (`progressToken`) included. A replay matches a recording made by that rule with it.
   */
  judgeValues?: boolean;
}

/** Builds a redactor from the defaults plus a configuration. */
export function makeRedactor(config: RedactionConfig = DEFAULT_REDACTION, options: RedactorOptions = {}): Redactor {
  const judgeValues = options.judgeValues ?? true;
  const exempt = new Set([...NOT_SECRET, ...config.exempt].map((n) => n.toLowerCase()));
  const headerNames = new Set([...ALWAYS_REDACTED_HEADERS, ...config.headers.map((h) => h.toLowerCase())]);
  const queryNames = new Set(config.query.map((q) => q.toLowerCase()));
  const fieldNames = new Set(config.jsonFields.map((f) => f.toLowerCase()));
  const rules = secretRules(config.patterns);
  // Names repeat on every request and in every body: decide each once, in one map per kind of name.
  const judge = (decide: (name: string) => Secrecy) => {
    const verdicts = new Map<string, Secrecy>();
    return (name: string): Secrecy => {
      let verdict = verdicts.get(name);
      if (verdict === undefined) {
        verdict = decide(name);
        if (verdicts.size < 10_000) verdicts.set(name, verdict);
      }
      return verdict;
    };
  };
  /** A name's secrecy by its words, once the configuration had its say. */
  const byWords = (name: string, place: NamePlace): Secrecy => {
    if (!judgeValues) return isSecretName(name, place) || isEchoedIdentifier(name) ? 'always' : 'none';
    if (!isSecretName(name, place)) return 'none';
    return isPasswordName(name) ? 'always' : 'judged';
  };
  const headerSecrecy = judge((name) => {
    const lower = name.toLowerCase();
    if (ALWAYS_REDACTED_HEADERS.includes(lower)) return 'always';
    if (exempt.has(lower)) return 'none';
    return headerNames.has(lower) ? 'always' : byWords(name, 'header');
  });
  const querySecrecy = judge((name) => {
    const lower = name.toLowerCase();
    if (exempt.has(lower)) return 'none';
    return queryNames.has(lower) ? 'always' : byWords(name, 'query');
  });
  const fieldSecrecy = judge((name) => {
    const lower = name.toLowerCase();
    if (exempt.has(lower)) return 'none';
    return fieldNames.has(lower) ? 'always' : byWords(name, 'field');
  });
  // One per secret field name, so a walk allocates nothing per leaf.
  const unders = new Map<string, Under | undefined>();
  /** What a field's value is under: its name when it is secret, with that name's secrecy. */
  const underName = (name: string): Under | undefined => {
    if (unders.has(name)) return unders.get(name);
    const secrecy = fieldSecrecy(name);
    const under = secrecy === 'none' ? undefined : { name, secrecy };
    if (unders.size < 10_000) unders.set(name, under);
    return under;
  };
  /** The name of a scheme under `auth` (`"type": "bearer"`), kept as clients read it; not under a password. */
  const isScheme = (under: Under, value: string) => under.secrecy === 'judged' && isSchemeName(under.name, value);
  /**
   * A value deeper under a secret name keeps that name for its placeholder, and takes the stricter secrecy of the
   * two: `"token": {"password": "x"}` holds a password.
   */
  const within = (under: Under, key: string): Under =>
    under.secrecy === 'judged' && fieldSecrecy(key) === 'always' ? { name: under.name, secrecy: 'always' } : under;
  /** Whether a value under a secret name is kept: one that cannot be a credential, under a name judged by its words. */
  const kept = (secrecy: Secrecy, value: string) => secrecy === 'judged' && value.length < MIN_CREDENTIAL_LENGTH;

  // An SSE item's data is read to learn its secrets, to assemble its streams and to scrub it: within one pass
  // (`parsing`), each text is parsed once and each stream assembled and searched once, and both are shared, never changed.
  let parsedTexts: Map<string, unknown> | undefined;
  /** Texts parsed by earlier passes (a journal session's recent ones), asked before parsing again; and those this pass parsed. */
  let earlierTexts: Map<string, unknown> | undefined;
  let freshTexts: string[] = [];
  let searchedStreams: Map<SseItem[], Searched[]> | undefined;
  let framedItems: Map<WsFrame[], SseItem[]> | undefined;
  /** For a pass over a piece of a recording: a stream's items an earlier piece held (context for split secrets). */
  let context: PieceContext | undefined;
  const itemsBefore = (events: SseItem[]): SseItem[] => (context?.of === events ? (context.before as SseItem[]) : NO_ITEMS);
  const framesBefore = (frames: WsFrame[]): SseItem[] => (context?.of === frames ? framesAsItems(context.before as WsFrame[]) : NO_ITEMS);
  /**
   * A pass. With `remembered`, texts earlier passes parsed are taken from it, and the short texts this one parsed
   * are added to it (the journal reads a window's items to hold some back, to redact them, and as later windows' context).
   */
  function parsing<T>(pass: () => T, remembered?: Map<string, unknown>): T {
    if (parsedTexts) return pass();
    parsedTexts = new Map();
    earlierTexts = remembered;
    searchedStreams = new Map();
    framedItems = new Map();
    try {
      return pass();
    } finally {
      if (remembered) for (const text of freshTexts) if (text.length <= REMEMBERED_TEXT) remembered.set(text, parsedTexts.get(text));
      freshTexts = [];
      parsedTexts = undefined;
      earlierTexts = undefined;
      searchedStreams = undefined;
      framedItems = undefined;
      context = undefined;
    }
  }
  /** The text parsed, when it is JSON a cassette keeps as structure; undefined otherwise. */
  function jsonOf(text: string): unknown {
    let json = parsedTexts?.get(text);
    if (json !== undefined || parsedTexts?.has(text)) return json;
    json = earlierTexts?.get(text);
    if (json === undefined && !earlierTexts?.has(text)) {
      if (earlierTexts) freshTexts.push(text);
      if (looksLikeJson(text))
        try {
          json = JSON.parse(text);
        } catch {
          // Not JSON after all.
        }
    }
    parsedTexts?.set(text, json);
    return json;
  }

  /** Records a secret value under the name its placeholder gets, with the forms it may take elsewhere. */
  function collect(found: Map<string, string>, name: string, value: string): void {
    if (!value || PLACEHOLDER.test(value)) return;
    if (!found.has(value)) found.set(value, name);
    // `Bearer abc`, `HermesRoom abc`: the credential alone may appear elsewhere too.
    const space = value.indexOf(' ');
    if (space > 0) {
      const credential = value.slice(space + 1).trim();
      if (credential && !found.has(credential)) found.set(credential, name);
    }
    // A value found URL-encoded (a form body, a fragment) is a secret decoded too.
    if (value.includes('%')) {
      try {
        const decoded = decodeURIComponent(value.replace(/\+/g, ' '));
        if (!found.has(decoded)) found.set(decoded, name);
      } catch {
        // Not URL-encoding after all.
      }
    }
  }

  // Header values repeat on every request (user-agent, accept, host): a short text is searched once.
  const shortFindings = new Map<string, readonly { kind: string; value: string }[]>();
  function findingsOf(text: string): readonly { kind: string; value: string }[] {
    if (text.length > 512) return rules.find(text);
    let findings = shortFindings.get(text);
    if (!findings) {
      findings = rules.find(text);
      // Kept for the latest texts, not the first 10,000: a text is learnt and then scrubbed soon after, all recording long.
      if (shortFindings.size >= 10_000) shortFindings.clear();
      shortFindings.set(text, findings);
    }
    return findings;
  }

  function collectFindings(found: Map<string, string>, text: string): void {
    if (text.length < 6) return;
    for (const f of findingsOf(text)) collect(found, f.kind, f.value);
  }

  function collectHeader(found: Map<string, string>, name: string, v: string): void {
    const secrecy = headerSecrecy(name);
    if (secrecy === 'none' || kept(secrecy, v)) {
      if (name.toLowerCase() === 'sec-websocket-protocol') for (const p of protocolSecrets(v)) collect(found, 'sec-websocket-protocol', p);
      collectFindings(found, v);
      return;
    }
    const lower = name.toLowerCase();
    collect(found, lower, v);
    if (lower === 'cookie' || lower === 'set-cookie') {
      for (const part of v.split(';')) {
        const eq = part.indexOf('=');
        if (eq > 0) collect(found, lower, part.slice(eq + 1).trim());
      }
    }
  }

  // Walked on every live request a replay matches: no entry pairs, no one-value lists (own names only, as `Object.entries`).
  function collectHeaders(found: Map<string, string>, headers: Record<string, string | string[] | undefined>): void {
    for (const name of Object.keys(headers)) {
      const raw = headers[name];
      if (raw === undefined) continue;
      if (typeof raw === 'string') collectHeader(found, name, raw);
      else for (const v of raw) collectHeader(found, name, v);
    }
  }

  // Read pair by pair as `scrubPath` writes them: a kept pair is searched as written, name and value together.
  function collectQuery(found: Map<string, string>, path: string): void {
    const q = path.indexOf('?');
    collectFindings(found, q === -1 ? path : path.slice(0, q));
    if (q === -1) return;
    for (const pair of path.slice(q + 1).split('&')) {
      const [name, value] = queryPair(pair);
      if (secretQueryValue(name, value)) collect(found, name, value);
      else collectFindings(found, pair);
    }
  }

  /** Whether a query value is redacted: under a secret name, not empty (it hides nothing), and not one `kept`. */
  function secretQueryValue(name: string, value: string): boolean {
    const secrecy = value === '' ? 'none' : querySecrecy(name);
    return secrecy === 'always' || (secrecy === 'judged' && !kept(secrecy, value));
  }

  /**
   * Every leaf under a secret name that could be a credential is a secret, whatever its type (decision 0016); every other
   * string and key is searched for shapes. A leaf nested deeper under the name
   * (`"auth": {"key": "…"}`) is replaced where it stands, but sought
   * everywhere else only when it looks like a credential, not a word; the name
   * of a scheme under `auth` (`"type": "bearer"`) is kept, as clients read it.
   */
  // Set while `findSecrets` looks: it reports every leaf a scrub replaces, the deeper ones too.
  let everyNamedLeaf = false;

  function collectJson(found: Map<string, string>, value: unknown, under?: Under, nested = false): void {
    if (Array.isArray(value)) for (const v of value) collectJson(found, v, under, under !== undefined);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        collectFindings(found, k);
        if (under !== undefined) collectJson(found, v, within(under, k), true);
        else collectJson(found, v, underName(k));
      }
    } else if (typeof value === 'string') {
      if (under === undefined || kept(under.secrecy, value)) collectFindings(found, value);
      else if (isScheme(under, value)) return;
      else if (!nested || everyNamedLeaf || looksRandom(value)) collect(found, under.name, value);
    } else if (typeof value === 'number' && under !== undefined && (!nested || everyNamedLeaf)) {
      const text = String(value);
      if (!kept(under.secrecy, text)) collect(found, under.name, text);
    }
  }

  function collectText(found: Map<string, string>, text: string): void {
    const json = jsonOf(text);
    if (json !== undefined) collectJson(found, json);
    else collectFindings(found, text);
  }

  function collectBody(found: Map<string, string>, body: Body | undefined): void {
    if (!body || 'omitted' in body) return;
    if ('json' in body) collectJson(found, body.json);
    else if ('text' in body) collectText(found, body.text);
    else collectFindings(found, Buffer.from(body.base64, 'base64').toString('latin1'));
  }

  /** Replaces every known secret (in each of its spellings) and every finding of the rules in a string. */
  function scrub(text: string, secrets: [string, string][]): string {
    let out = text;
    for (const [value, name] of secretsIn(text, secrets, redactionPlaceholder))
      if (out.includes(value)) out = out.split(value).join(redactionPlaceholder(name));
    if (out.length < 6) return out;
    // A header value is scrubbed on every live request the replayer matches: its findings are looked up once.
    const findings = findingsOf(out);
    for (let k = findings.length - 1; k >= 0; k--) {
      const f = findings[k] as SecretFinding;
      out = `${out.slice(0, f.start)}${redactionPlaceholder(f.kind)}${out.slice(f.end)}`;
    }
    return out;
  }

  /** The value with its secrets replaced: the very value given when nothing in it changed, so no copy is made. */
  function scrubJson(value: unknown, secrets: [string, string][], under?: Under): unknown {
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let k = 0; k < value.length; k++) {
        const v: unknown = value[k];
        const clean = scrubJson(v, secrets, under);
        if (clean !== v) out ??= value.slice(0, k);
        out?.push(clean);
      }
      return out ?? value;
    }
    if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      let changed = false;
      for (const entry of entries) {
        const [k, v] = entry;
        const cleanKey = scrub(k, secrets);
        const clean = scrubJson(v, secrets, under ? within(under, k) : underName(k));
        if (cleanKey !== k || clean !== v) {
          changed = true;
          entry[0] = cleanKey;
          entry[1] = clean;
        }
      }
      return changed ? Object.fromEntries(entries) : value;
    }
    if (typeof value === 'string') {
      if (under === undefined || kept(under.secrecy, value)) return scrub(value, secrets);
      // An empty value hides nothing: kept, as a client may test for it.
      return value === '' || PLACEHOLDER.test(value) || isScheme(under, value) ? value : redactionPlaceholder(under.name);
    }
    if (typeof value === 'number' && under !== undefined && !kept(under.secrecy, String(value))) return redactionPlaceholder(under.name);
    return value;
  }

  function scrubHeader(name: string, value: string, secrets: [string, string][]): string {
    const secrecy = headerSecrecy(name);
    if (secrecy === 'none' || kept(secrecy, value)) {
      const clean = name.toLowerCase() === 'sec-websocket-protocol' ? scrubProtocols(value) : value;
      return scrub(clean, secrets);
    }
    return value === '' || PLACEHOLDER.test(value) ? value : redactionPlaceholder(name);
  }

  function scrubPath(path: string, secrets: [string, string][]): string {
    const q = path.indexOf('?');
    if (q === -1) return scrub(path, secrets);
    const params = path
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const [name, value] = queryPair(pair);
        return secretQueryValue(name, value)
          ? `${pair.slice(0, pair.indexOf('='))}=${encodeURIComponent(redactionPlaceholder(name))}`
          : scrub(pair, secrets);
      });
    return `${scrub(path.slice(0, q), secrets)}?${params.join('&')}`;
  }

  // The byte spelling of a list, made once per list (and again once a grown list grew): every binary body of a
  // recording is scrubbed with the same one.
  const byteLists = new WeakMap<[string, string][], { length: number; bytes: [string, string][] }>();
  function asBytes(secrets: [string, string][]): [string, string][] {
    let made = byteLists.get(secrets);
    if (!made || made.length !== secrets.length) {
      // In the list's scrub order (a grown list past 16 entries is not stored in it): by the length of the text.
      const order = secrets.map((_, k) => k).sort((a, b) => (secrets[b] as SecretEntry)[0].length - (secrets[a] as SecretEntry)[0].length);
      const bytes = order.map((k): [string, string] => {
        const [v, n] = secrets[k] as SecretEntry;
        return [Buffer.from(v, 'utf8').toString('latin1'), n];
      });
      made = { length: secrets.length, bytes };
      byteLists.set(secrets, made);
    }
    return made.bytes;
  }

  function scrubBody(body: Body, secrets: [string, string][]): Body {
    if ('json' in body) return { json: scrubJson(body.json, secrets) };
    if ('text' in body) return { text: scrubText(body.text, secrets) };
    if ('omitted' in body) return body;
    const bytes = Buffer.from(body.base64, 'base64').toString('latin1');
    const clean = scrub(bytes, asBytes(secrets));
    return clean === bytes ? body : { base64: Buffer.from(clean, 'latin1').toString('base64') };
  }

  /**
   * Text that may be JSON is scrubbed as structure, each secret field getting
   * its own placeholder; the exact bytes are kept when nothing was secret.
   * Live requests go through the same function, so placeholders match.
   */
  function scrubText(text: string, secrets: [string, string][]): string {
    const json = jsonOf(text);
    if (json === undefined) return scrub(text, secrets);
    const clean = scrubJson(json, secrets);
    return clean === json ? text : JSON.stringify(clean);
  }

  /**
   * The streams of `before` and the items, each with what the rules find in its text; once per list of items
   * within a pass, which runs to its end before a live recording adds an item (never across passes: the list may
   * have grown by then).
   */
  function searched(events: SseItem[], before: SseItem[]): Searched[] {
    let streams = searchedStreams?.get(events);
    if (!streams) {
      const all = before.length > 0 ? [...before, ...events] : events;
      streams = streamTexts(all, jsonOf).map((stream) => ({ stream, findings: rules.find(stream.text) }));
      searchedStreams?.set(events, streams);
    }
    return streams;
  }

  /**
   * The items with every secret split across them cut out, before each is scrubbed alone (which could replace the
   * part of a secret one item holds and leave the rest): what the rules find, and the secrets already known (a
   * token from a header that a model spells out in pieces).
   */
  function scrubSplit(events: SseItem[], secrets: [string, string][], beforeItems?: SseItem[]): SseItem[] {
    const before = beforeItems ?? itemsBefore(events);
    const found: { stream: StreamText; finding: SecretFinding }[] = [];
    for (const { stream, findings } of searched(events, before)) {
      const known = knownIn(stream.text, secrets);
      const all = known.length > 0 ? mergeOverlapping([...findings, ...known], stream.text) : findings;
      // Left to the scrub of each item: what the rules or the list find in an item alone.
      const alone = (text: string) => (known.length > 0 ? [...findingsOf(text), ...knownIn(text, secrets)] : findingsOf(text));
      for (const finding of spanning(stream, all, alone)) found.push({ stream, finding });
    }
    if (found.length === 0) return events;
    if (before.length === 0) return cutSpanning(events, jsonOf, found, redactionPlaceholder);
    return cutSpanning([...before, ...events], jsonOf, found, redactionPlaceholder, before.length).slice(before.length);
  }

  /**
   * A session's text and JSON frames as SSE items, so a secret spelt out across frames (a JSON-RPC server's
   * deltas) is found as across items: one stream per direction and method. Once per list of frames within a pass.
   */
  function framesAsItems(frames: WsFrame[]): SseItem[] {
    let items = framedItems?.get(frames);
    if (!items) {
      items = frames.map((f) => ({ at: f.at, after: f.after, event: `${f.from} ${methodOf(f.json)}`, data: spelt(f) }));
      framedItems?.set(frames, items);
    }
    return items;
  }

  /** The frames with every secret split across them cut out, before each is scrubbed alone. */
  function scrubSplitFrames(frames: WsFrame[], secrets: [string, string][]): WsFrame[] {
    const items = framesAsItems(frames);
    const cut = scrubSplit(items, secrets, framesBefore(frames));
    if (cut === items) return frames;
    return frames.map((f, k) => {
      const data = cut[k]?.data;
      if (data === items[k]?.data || data === undefined) return f;
      return f.json !== undefined ? { ...f, json: JSON.parse(data) as unknown } : { ...f, text: data };
    });
  }

  /**
   * The first character of `text` from which a secret may be unfinished: an open private-key block, a finding the
   * rules make of the text's end followed by more of a credential, the start of a known secret. -1 when none.
   */
  function unfinishedAt(text: string, listed: GrowingList): number {
    const block = text.lastIndexOf('-----BEGIN');
    if (block !== -1 && !BLOCK_END.test(text.slice(block))) return block;
    const from = Math.max(0, text.length - UNFINISHED_WITHIN);
    const tail = text.slice(from);
    let at = -1;
    for (const more of CREDENTIAL_TAILS)
      for (const f of rules.find(tail + more))
        if (f.start < tail.length && f.end > tail.length && (at === -1 || f.start < at)) at = f.start;
    const known = listed.startedAt(tail, 0, MIN_UNFINISHED);
    if (known !== -1 && (at === -1 || known < at)) at = known;
    return at === -1 ? -1 : from + at;
  }

  /** Where each secret of the list stands in the text, as findings named as the secret's placeholder is. */
  function knownIn(text: string, secrets: [string, string][]): SecretFinding[] {
    const out: SecretFinding[] = [];
    for (const [value, name] of secretsIn(text, secrets, redactionPlaceholder))
      for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length))
        out.push({ kind: name, value, start: at, end: at + value.length });
    return out;
  }

  function secretsOf(i: Interaction): Map<string, string> {
    const found = new Map<string, string>();
    collectHeaders(found, i.request.headers);
    collectQuery(found, i.request.path);
    if (i.response) collectHeaders(found, i.response.headers);
    if (i.response?.trailers) collectHeaders(found, i.response.trailers);
    collectBody(found, i.request.body);
    collectBody(found, i.response?.body);
    const events = i.response?.stream?.events ?? [];
    for (const e of events) {
      if (e.data) collectText(found, e.data);
      for (const field of [e.id, e.event, e.comment]) if (field) collectFindings(found, field);
    }
    for (const { stream, findings } of searched(events, itemsBefore(events)))
      for (const f of spanning(stream, findings, findingsOf)) collect(found, f.kind, f.value);
    const frames = i.response?.websocket?.frames ?? [];
    for (const { stream, findings } of searched(framesAsItems(frames), framesBefore(frames)))
      for (const f of spanning(stream, findings, findingsOf)) collect(found, f.kind, f.value);
    for (const fr of frames) {
      if (fr.json !== undefined) collectJson(found, fr.json);
      if (fr.text !== undefined) collectText(found, fr.text);
      if (fr.close) collectFindings(found, fr.close.reason);
    }
    if (i.failure) collectFindings(found, i.failure.message);
    return found;
  }

  // A recording's secrets are listed again whenever it finds a new one: each one's encodings are worked out once.
  const spellings = new Map<string, string[]>();
  function spellingsOf(value: string): string[] {
    let known = spellings.get(value);
    if (!known) {
      known = secretSpellings(value);
      if (spellings.size >= 50_000) spellings.clear();
      spellings.set(value, known);
    }
    return known;
  }

  /** Sorted for scrubbing: every spelling of every secret, longest first, so a secret inside another is never split. */
  function scrubList(all: Map<string, string>): [string, string][] {
    const list = new Map<string, string>();
    for (const [value, name] of all) {
      if (value.length < MIN_GLOBAL) continue;
      list.set(value, name);
      for (const spelling of spellingsOf(value)) if (!list.has(spelling)) list.set(spelling, name);
    }
    return [...list].sort((a, b) => b[0].length - a[0].length);
  }

  /**
   * An SSE item scrubbed, every field of it; its recorded wire text goes when
   * scrubbing changed the item (the canonical form then carries the
   * placeholders), and is scrubbed as text otherwise.
   */
  function scrubEvent(e: SseItem, global: [string, string][]): SseItem {
    const { raw, ...rest } = e;
    const out: SseItem = { ...rest };
    if (e.data !== undefined) out.data = scrubText(e.data, global);
    if (e.comment !== undefined) out.comment = scrub(e.comment, global);
    if (e.id !== undefined) out.id = scrub(e.id, global);
    if (e.event !== undefined) out.event = scrub(e.event, global);
    const changed = out.data !== e.data || out.comment !== e.comment || out.id !== e.id || out.event !== e.event;
    if (raw === undefined || changed) return out;
    return { ...out, raw: scrub(raw, global) };
  }

  /** The redaction pass: the path and its query, headers, bodies and frames, SSE items and the secrets split across them, failure messages. */
  function scrubVisitor(global: [string, string][]): InteractionVisitor {
    return {
      path: (path) => scrubPath(path, global),
      header: (name, value) => scrubHeader(name, value, global),
      body: (body) => scrubBody(body, global),
      event: (e) => scrubEvent(e, global),
      events: (events) => scrubSplit(events, global),
      frames: (frames) => scrubSplitFrames(frames, global),
      note: (text) => scrub(text, global),
      reason: (text) => scrub(text, global),
    };
  }

  function scrubInteraction(i: Interaction, global: [string, string][]): Interaction {
    return visitInteraction(i, scrubVisitor(global));
  }

  /**
   * Scrubs a cassette of the secrets found in it and of those already in `all`,
   * which it extends; a session's `listed` is the list of every piece before, grown by what this one adds.
   */
  function redactWith(
    c: Cassette,
    all: Map<string, string>,
    listed?: GrowingList,
    remembered?: Map<string, unknown>,
    piece?: PieceContext,
  ): Cassette {
    return parsing(() => {
      context = piece;
      const added: SecretEntry[] = [];
      for (const i of c.interactions)
        for (const [v, n] of secretsOf(i))
          if (!all.has(v)) {
            all.set(v, n);
            added.push([v, n]);
          }
      const global = listed ? listed.grow(added) : scrubList(all);
      return {
        ...c,
        meta: { ...c.meta, target: scrub(c.meta.target, global) },
        interactions: c.interactions.map((i) => scrubInteraction(i, global)),
      };
    }, remembered);
  }

  return {
    findSecrets(c) {
      const all = new Map<string, string>();
      everyNamedLeaf = true;
      try {
        for (const i of c.interactions) for (const [v, n] of parsing(() => secretsOf(i))) if (!all.has(v)) all.set(v, n);
      } finally {
        everyNamedLeaf = false;
      }
      return [...all].map(([value, kind]) => ({ value, kind }));
    },
    findShapes(text) {
      return rules.find(text).map(({ value, kind }) => ({ value, kind }));
    },
    cassette(c) {
      // Secrets found anywhere in the cassette are scrubbed everywhere in it.
      return redactWith(c, new Map());
    },
    session() {
      const known = new Map<string, string>();
      const listed = new GrowingList(spellingsOf, MIN_GLOBAL, redactionPlaceholder);
      // Texts parsed lately: a window's items are read to look for unfinished secrets and then redacted, and
      // read again as the next windows' context. Kept for the latest texts only, as a recording goes on for hours.
      const recent = new Map<string, unknown>();
      const forget = () => {
        for (const text of recent.keys()) {
          if (recent.size <= RECENT_TEXTS) break;
          recent.delete(text);
        }
      };
      const unfinishedFrom = (items: SseItem[], before: SseItem[]) => {
        let from = items.length;
        for (const { pieces, text } of streamTexts([...before, ...items], jsonOf, 1)) {
          const at = unfinishedAt(text, listed);
          if (at === -1) continue;
          // The item holding that character, or the first new one when an item already given holds it.
          const piece = pieces.find((p) => p.start + p.value.length > at) as (typeof pieces)[number];
          from = Math.min(from, Math.max(0, piece.event - before.length));
        }
        return from;
      };
      return {
        redact(c, context) {
          const out = redactWith(c, known, listed, recent, context);
          forget();
          return out;
        },
        unfinishedFrom: (items, before) => parsing(() => unfinishedFrom(items, before), recent),
        unfinishedFramesFrom: (frames, before) => parsing(() => unfinishedFrom(framesAsItems(frames), framesAsItems(before)), recent),
      };
    },
    twoPass(before) {
      const all = new Map<string, string>();
      // Grown as secrets are learnt, one interaction after another (the save-ahead), never listed again from scratch.
      const listed = new GrowingList(spellingsOf, MIN_GLOBAL, redactionPlaceholder);
      let global: [string, string][] = listed.grow([]);
      const learnPairs = (pairs: readonly SecretPair[]) => {
        const added: SecretEntry[] = [];
        for (const [v, n] of pairs)
          if (!all.has(v)) {
            all.set(v, n);
            added.push([v, n]);
          }
        // The list changes only with a new secret, so an unchanged list stays the same object.
        if (added.length > 0) global = listed.grow(added);
      };
      return {
        // Learnt from the interaction as given, and in the form `before` gives it, so no copy is made to learn.
        learn(i) {
          const pairs: SecretPair[] = [];
          for (const [v, n] of parsing(() => secretsOf(i))) {
            pairs.push([v, n]);
            const mapped = before?.text(v);
            if (mapped !== undefined) pairs.push([mapped, n]);
          }
          learnPairs(pairs);
          return pairs;
        },
        learnPairs,
        list() {
          return global;
        },
        version() {
          return listed.version;
        },
        scrub(i) {
          const scrubbing = scrubVisitor(global);
          return parsing(() => visitInteraction(i, before ? composeVisitors(before.visitor, scrubbing) : scrubbing));
        },
        target(s) {
          return scrub(s, global);
        },
      };
    },
    request(r, keep) {
      const found = new Map<string, string>();
      collectHeaders(found, r.headers);
      collectQuery(found, r.path);
      collectText(found, r.body);
      const secrets = found.size === 0 ? NO_SECRETS : scrubList(found);
      const headers: Record<string, string | string[] | undefined> = {};
      for (const k of Object.keys(r.headers)) {
        if (keep && !keep.has(k.toLowerCase())) continue;
        const v = r.headers[k];
        headers[k] = v === undefined ? v : Array.isArray(v) ? v.map((x) => scrubHeader(k, x, secrets)) : scrubHeader(k, v, secrets);
      }
      return { path: scrubPath(r.path, secrets), headers, body: r.body === '' ? r.body : scrubText(r.body, secrets) };
    },
  };
}

// A stream with no items before it; never added to.
const NO_ITEMS: SseItem[] = [];
// Shared by every request that carries no secret: never added to (scrub lists are built new).
const NO_SECRETS: [string, string][] = [];

// How many parsed texts a session keeps for the next windows (more than a window's context of every open stream),
// and the longest it keeps: SSE data, not bodies.
const RECENT_TEXTS = 4096;
const REMEMBERED_TEXT = 4096;
// How far back from a stream's end a secret still being streamed is looked for, and the shortest start of a known
// one held back (three characters of a secret tell nothing).
const UNFINISHED_WITHIN = 256;
const MIN_UNFINISHED = 4;
// The whole end line of a PEM block: until it has come, the block is open.
const BLOCK_END = /-----END[ A-Za-z0-9_-]{0,100}-----/;
// What the rest of a credential may look like: mixed-case letters and digits, or hex. A finding of the rules
// that runs from a stream's end into one of these is a credential that may not be over yet.
const CREDENTIAL_TAILS = ['Aa0Bb1Cc2Dd3Ee4Ff5Gg6Hh7Ii8Jj9Kk0Ll1Mm2Nn3Oo4Pp5', '0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f'];

/** A stream of SSE items and what the secret rules find in its text. */
interface Searched {
  stream: StreamText;
  findings: SecretFinding[];
}

/** The JSON-RPC method a frame carries, or nothing. */
function methodOf(json: unknown): string {
  const method = json && typeof json === 'object' && !Array.isArray(json) ? (json as { method?: unknown }).method : undefined;
  return typeof method === 'string' ? method : '';
}

/** A frame's payload as text the split search reads: JSON objects and arrays as JSON, text as it is; nothing else. */
function spelt(f: WsFrame): string | undefined {
  if (f.text !== undefined) return f.text;
  return f.json !== null && typeof f.json === 'object' ? JSON.stringify(f.json) : undefined;
}

/** One `name=value` pair of a query, decoded as URLSearchParams decodes it (a pair with no `=` has an empty value). */
function queryPair(pair: string): [string, string] {
  for (const entry of new URLSearchParams(pair)) return entry;
  return ['', ''];
}

/** A value with the length and mix of a credential rather than a word (`Xq7…`, not `bearer`). */
function looksRandom(value: string): boolean {
  return value.length >= 8 && shannonEntropy(value) >= 3 && /\d/.test(value) && /[A-Za-z]/.test(value);
}

// `Sec-WebSocket-Protocol: bearer, TOKEN` or `bearer.TOKEN`: browsers can send no Authorization on an upgrade, so tokens ride here.
const PROTOCOL_CARRIER = /^(?:bearer|token|access[_-]?token|auth[a-z._-]*|base64url\.bearer\.authorization\.k8s\.io)$/i;
const PROTOCOL_PREFIXED = /^(bearer|token|access[_-]?token|auth[a-z_-]*|base64url\.bearer\.authorization\.k8s\.io)[._-](.{8,})$/i;

/** The credentials a Sec-WebSocket-Protocol offer carries. */
function protocolSecrets(value: string): string[] {
  const items = value.split(',').map((p) => p.trim());
  return items.flatMap((item, k) => {
    const prefixed = PROTOCOL_PREFIXED.exec(item);
    if (prefixed) return [prefixed[2] as string];
    return k > 0 && PROTOCOL_CARRIER.test(items[k - 1] as string) && item.length >= 8 ? [item] : [];
  });
}

/** The offer with each credential it carries replaced. */
function scrubProtocols(value: string): string {
  let out = value;
  for (const secret of protocolSecrets(value)) out = out.split(secret).join(redactionPlaceholder('sec-websocket-protocol'));
  return out;
}

/** Text worth parsing as JSON: an object or array nested no deeper than a cassette keeps structure. */
function looksLikeJson(text: string): boolean {
  const c = text.trimStart().charCodeAt(0);
  return (c === 123 || c === 91) && jsonDepthWithin(text);
}

// Built on first use: compiling the rule set at import made every command's start-up pay for it.
let defaultRedactor: Redactor | undefined;

/** Returns a copy of the cassette with every secret replaced by its placeholder (default rules). */
export function redactCassette(cassette: Cassette, config?: RedactionConfig): Cassette {
  if (config) return makeRedactor(config).cassette(cassette);
  defaultRedactor ??= makeRedactor();
  return defaultRedactor.cassette(cassette);
}
