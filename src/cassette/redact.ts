import { z } from 'zod';
import { jsonDepthWithin } from './body.js';
import type { Body, Cassette, Interaction, SseItem } from './schema.js';
import { composeVisitors, type InteractionVisitor, mapJsonStrings, visitInteraction } from './visit.js';

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
/** JSON fields redacted by default, at any depth. */
export const DEFAULT_SECRET_FIELDS: readonly string[] = [
  'token',
  'access_token',
  'refresh_token',
  'secret',
  'password',
  'api_key',
  'apiKey',
  'client_secret',
  'grant',
];
const SECRET_NAME = /token|secret|key|passw/i;
/** Names that look secret to SECRET_NAME but identify a request, not a caller: kept, so retries stay readable. */
const NOT_SECRET: readonly string[] = ['idempotency-key'];

/** Credential shapes found anywhere, with the name their placeholder gets. */
const SHAPES: [string, RegExp][] = [
  ['jwt', /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
  ['api-key', /\bsk-[A-Za-z0-9_-]{16,}/g],
  ['github-token', /\bgh[pousr]_[A-Za-z0-9]{30,}/g],
  ['aws-key', /\bAKIA[0-9A-Z]{16}\b/g],
  ['slack-token', /\bxox[abprs]-[A-Za-z0-9-]{10,}/g],
  ['bearer', /(?<=\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*/g],
];

/** The stable stand-in written in place of a secret. */
export function redactionPlaceholder(name: string): string {
  return `<redacted:${name.toLowerCase()}>`;
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
  /**
   * A redactor for pieces of one recording given in turn (the journal): each
   * piece is scrubbed of the secrets found in it and in every piece before.
   */
  session(): (c: Cassette) => Cassette;
  /**
   * Two passes for a recording too big to copy whole: `learn` every
   * interaction, then `scrub` each (and `target`) of every secret learnt.
   */
  twoPass(before?: { visitor: InteractionVisitor; text: (s: string) => string }): {
    learn(i: Interaction): void;
    scrub(i: Interaction): Interaction;
    target(s: string): string;
  };
  /** A live request with its secrets replaced as a recording would have them (for replay matching). */
  request(r: { path: string; headers: Record<string, string | string[] | undefined>; body: string }): {
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  };
}

/** Builds a redactor from the defaults plus a configuration. */
export function makeRedactor(config: RedactionConfig = DEFAULT_REDACTION): Redactor {
  const exempt = new Set([...NOT_SECRET, ...config.exempt].map((n) => n.toLowerCase()));
  const headerNames = new Set([...ALWAYS_REDACTED_HEADERS, ...config.headers.map((h) => h.toLowerCase())]);
  const fieldNames = new Set([...DEFAULT_SECRET_FIELDS, ...config.jsonFields]);
  const shapes: [string, RegExp][] = [
    ...SHAPES,
    ...config.patterns.map((p, i): [string, RegExp] => [`pattern-${i + 1}`, new RegExp(p, 'g')]),
  ];
  // One pass to learn whether any shape occurs at all; most strings have none.
  const anyShape = new RegExp(shapes.map(([, re]) => re.source).join('|'));
  // Header names repeat on every request: decide each once.
  const headerVerdicts = new Map<string, boolean>();
  const secretHeader = (name: string) => {
    let verdict = headerVerdicts.get(name);
    if (verdict === undefined) {
      const lower = name.toLowerCase();
      verdict = ALWAYS_REDACTED_HEADERS.includes(lower) || (!exempt.has(lower) && (headerNames.has(lower) || SECRET_NAME.test(lower)));
      if (headerVerdicts.size < 1000) headerVerdicts.set(name, verdict);
    }
    return verdict;
  };
  const secretQuery = (name: string) => !exempt.has(name.toLowerCase()) && (config.query.includes(name) || SECRET_NAME.test(name));
  const secretField = (name: string) => !exempt.has(name.toLowerCase()) && fieldNames.has(name);

  /** Secret values found in one interaction's request or response: value -> placeholder name. */
  function collect(found: Map<string, string>, name: string, value: string): void {
    if (!value || PLACEHOLDER.test(value)) return;
    if (!found.has(value)) found.set(value, name);
    // `Bearer abc`, `HermesRoom abc`: the credential alone may appear elsewhere too.
    const space = value.indexOf(' ');
    if (space > 0 && !found.has(value.slice(space + 1))) found.set(value.slice(space + 1).trim(), name);
  }

  function collectHeaders(found: Map<string, string>, headers: Record<string, string | string[] | undefined>): void {
    for (const [name, raw] of Object.entries(headers)) {
      if (raw === undefined || !secretHeader(name)) continue;
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        collect(found, name.toLowerCase(), v);
        if (name.toLowerCase() === 'cookie' || name.toLowerCase() === 'set-cookie') {
          for (const part of v.split(';')) {
            const eq = part.indexOf('=');
            if (eq > 0) collect(found, name.toLowerCase(), part.slice(eq + 1).trim());
          }
        }
      }
    }
  }

  function collectQuery(found: Map<string, string>, path: string): void {
    const q = path.indexOf('?');
    if (q === -1) return;
    for (const [name, value] of new URLSearchParams(path.slice(q + 1))) if (secretQuery(name)) collect(found, name, value);
  }

  function collectJson(found: Map<string, string>, value: unknown): void {
    if (Array.isArray(value)) for (const v of value) collectJson(found, v);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === 'string' && secretField(k)) collect(found, k, v);
        else collectJson(found, v);
      }
    }
  }

  function collectText(found: Map<string, string>, text: string): void {
    if (!looksLikeJson(text)) return;
    try {
      collectJson(found, JSON.parse(text));
    } catch {
      // Not JSON: only shapes apply.
    }
  }

  /** Replaces every known secret and every credential shape in a string. */
  function scrub(text: string, secrets: [string, string][]): string {
    let out = text;
    for (const [value, name] of secrets) if (out.includes(value)) out = out.split(value).join(redactionPlaceholder(name));
    if (anyShape.test(out)) for (const [name, re] of shapes) out = out.replace(re, redactionPlaceholder(name));
    return out;
  }

  function scrubJson(value: unknown, secrets: [string, string][]): unknown {
    return mapJsonStrings(value, {
      value: (v, key) => (key !== undefined && secretField(key) && !PLACEHOLDER.test(v) ? redactionPlaceholder(key) : scrub(v, secrets)),
    });
  }

  function scrubHeader(name: string, value: string, secrets: [string, string][]): string {
    if (!secretHeader(name)) return scrub(value, secrets);
    return PLACEHOLDER.test(value) ? value : redactionPlaceholder(name);
  }

  function scrubPath(path: string, secrets: [string, string][]): string {
    const q = path.indexOf('?');
    if (q === -1) return scrub(path, secrets);
    const params = path
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
        return eq !== -1 && secretQuery(name)
          ? `${pair.slice(0, eq)}=${encodeURIComponent(redactionPlaceholder(name))}`
          : scrub(pair, secrets);
      });
    return `${scrub(path.slice(0, q), secrets)}?${params.join('&')}`;
  }

  function scrubBody(body: Body, secrets: [string, string][]): Body {
    if ('json' in body) return { json: scrubJson(body.json, secrets) };
    if ('text' in body) return { text: scrubText(body.text, secrets) };
    if ('omitted' in body) return body;
    const bytes = Buffer.from(body.base64, 'base64').toString('latin1');
    const clean = scrub(
      bytes,
      secrets.map(([v, n]) => [Buffer.from(v, 'utf8').toString('latin1'), n]),
    );
    return clean === bytes ? body : { base64: Buffer.from(clean, 'latin1').toString('base64') };
  }

  /**
   * Text that may be JSON is scrubbed as structure, each secret field getting
   * its own placeholder; the exact bytes are kept when nothing was secret.
   * Live requests go through the same function, so placeholders match.
   */
  function scrubText(text: string, secrets: [string, string][]): string {
    if (looksLikeJson(text)) {
      try {
        const parsed: unknown = JSON.parse(text);
        const clean = scrubJson(parsed, secrets);
        return stableJson(clean) === stableJson(parsed) ? text : JSON.stringify(clean);
      } catch {
        // Not JSON after all.
      }
    }
    return scrub(text, secrets);
  }

  function secretsOf(i: Interaction): Map<string, string> {
    const found = new Map<string, string>();
    collectHeaders(found, i.request.headers);
    collectQuery(found, i.request.path);
    if (i.response) collectHeaders(found, i.response.headers);
    for (const body of [i.request.body, i.response?.body]) {
      if (body && 'json' in body) collectJson(found, body.json);
      if (body && 'text' in body) collectText(found, body.text);
    }
    for (const e of i.response?.stream?.events ?? []) if (e.data) collectText(found, e.data);
    for (const fr of i.response?.websocket?.frames ?? []) {
      if (fr.json !== undefined) collectJson(found, fr.json);
      if (fr.text !== undefined) collectText(found, fr.text);
    }
    return found;
  }

  /** Sorted for scrubbing: longest first, so a secret inside another is never split. */
  function scrubList(all: Map<string, string>): [string, string][] {
    return [...all].filter(([v]) => v.length >= MIN_GLOBAL).sort((a, b) => b[0].length - a[0].length);
  }

  /**
   * An SSE item scrubbed; its recorded wire text goes when scrubbing changed
   * the item (the canonical form then carries the placeholders), and is
   * scrubbed as text otherwise.
   */
  function scrubEvent(e: SseItem, global: [string, string][]): SseItem {
    const data = e.data !== undefined ? scrubText(e.data, global) : undefined;
    const comment = e.comment !== undefined ? scrub(e.comment, global) : undefined;
    const { raw, ...rest } = e;
    const out: SseItem = { ...rest, ...(data !== undefined ? { data } : {}), ...(comment !== undefined ? { comment } : {}) };
    if (raw === undefined || data !== e.data || comment !== e.comment) return out;
    return { ...out, raw: scrub(raw, global) };
  }

  /** The redaction pass: the path and its query, headers, bodies and frames, SSE items, failure messages. */
  function scrubVisitor(global: [string, string][]): InteractionVisitor {
    return {
      path: (path) => scrubPath(path, global),
      header: (name, value) => scrubHeader(name, value, global),
      body: (body) => scrubBody(body, global),
      event: (e) => scrubEvent(e, global),
      note: (text) => scrub(text, global),
    };
  }

  function scrubInteraction(i: Interaction, global: [string, string][]): Interaction {
    return visitInteraction(i, scrubVisitor(global));
  }

  /** Scrubs a cassette of the secrets found in it and of those already in `all`, which it extends. */
  function redactWith(c: Cassette, all: Map<string, string>): Cassette {
    for (const i of c.interactions) for (const [v, n] of secretsOf(i)) if (!all.has(v)) all.set(v, n);
    const global = scrubList(all);
    return {
      ...c,
      meta: { ...c.meta, target: scrub(c.meta.target, global) },
      interactions: c.interactions.map((i) => scrubInteraction(i, global)),
    };
  }

  return {
    findSecrets(c) {
      const all = new Map<string, string>();
      for (const i of c.interactions) for (const [v, n] of secretsOf(i)) if (!all.has(v)) all.set(v, n);
      return [...all].map(([value, kind]) => ({ value, kind }));
    },
    findShapes(text) {
      if (!anyShape.test(text)) return [];
      return shapes.flatMap(([kind, re]) => [...text.matchAll(re)].map((m) => ({ value: m[0], kind })));
    },
    cassette(c) {
      // Secrets found anywhere in the cassette are scrubbed everywhere in it.
      return redactWith(c, new Map());
    },
    session() {
      const known = new Map<string, string>();
      return (c) => redactWith(c, known);
    },
    twoPass(before) {
      const all = new Map<string, string>();
      let global: [string, string][] | undefined;
      return {
        // Learnt from the interaction as given, and in the form `before` gives it, so no copy is made to learn.
        learn(i) {
          for (const [v, n] of secretsOf(i)) {
            if (!all.has(v)) all.set(v, n);
            const mapped = before?.text(v);
            if (mapped !== undefined && !all.has(mapped)) all.set(mapped, n);
          }
          global = undefined;
        },
        scrub(i) {
          global ??= scrubList(all);
          const scrubbing = scrubVisitor(global);
          return visitInteraction(i, before ? composeVisitors(before.visitor, scrubbing) : scrubbing);
        },
        target(s) {
          global ??= scrubList(all);
          return scrub(s, global);
        },
      };
    },
    request(r) {
      const found = new Map<string, string>();
      collectHeaders(found, r.headers);
      collectQuery(found, r.path);
      collectText(found, r.body);
      const secrets = [...found].filter(([v]) => v.length >= MIN_GLOBAL).sort((a, b) => b[0].length - a[0].length);
      // Only path and body take part in matching by default; secret headers just get their placeholder.
      const headers: Record<string, string | string[] | undefined> = {};
      for (const [k, v] of Object.entries(r.headers)) headers[k] = v !== undefined && secretHeader(k) ? redactionPlaceholder(k) : v;
      return { path: scrubPath(r.path, secrets), headers, body: r.body === '' ? r.body : scrubText(r.body, secrets) };
    },
  };
}

const stableJson = (v: unknown) => JSON.stringify(v);

/** Text worth parsing as JSON: an object or array nested no deeper than a cassette keeps structure. */
function looksLikeJson(text: string): boolean {
  const c = text.trimStart().charCodeAt(0);
  return (c === 123 || c === 91) && jsonDepthWithin(text);
}

const defaultRedactor = makeRedactor();

/** Returns a copy of the cassette with every secret replaced by its placeholder (default rules). */
export function redactCassette(cassette: Cassette, config?: RedactionConfig): Cassette {
  return (config ? makeRedactor(config) : defaultRedactor).cassette(cassette);
}
