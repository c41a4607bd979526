import type { Cassette } from '../schema.js';
import { collectHeaders, collectQuery, collectText, secretsOf } from './collect.js';
import { DEFAULT_REDACTION, type RedactionConfig, type Redactor, type RedactorOptions } from './config.js';
import { scrubHeader, scrubPath, scrubText } from './scrub.js';
import { redactorSession, redactWith, twoPass } from './session.js';
import { type Redaction, redaction, scrubList } from './state.js';

// Shared by every request that carries no secret: never added to (scrub lists are built new).
const NO_SECRETS: [string, string][] = [];

/** Builds a redactor from the defaults plus a configuration. */
export function makeRedactor(config: RedactionConfig = DEFAULT_REDACTION, options: RedactorOptions = {}): Redactor {
  const r = redaction(config, options);
  return {
    findSecrets: (c) => findSecrets(r, c),
    findShapes: (text) => r.finder.find(text).map(({ value, kind }) => ({ value, kind })),
    // Secrets found anywhere in the cassette are scrubbed everywhere in it.
    cassette: (c) => redactWith(r, c, new Map()),
    session: () => redactorSession(r),
    twoPass: (before) => twoPass(r, before),
    request: (req, keep) => redactRequest(r, req, keep),
  };
}

/** Every secret value the cassette still holds, every leaf a scrub would replace included. */
function findSecrets(r: Redaction, c: Cassette): { value: string; kind: string }[] {
  const all = new Map<string, string>();
  r.everyNamedLeaf = true;
  try {
    for (const i of c.interactions) for (const [v, n] of r.pass.run(() => secretsOf(r, i))) if (!all.has(v)) all.set(v, n);
  } finally {
    r.everyNamedLeaf = false;
  }
  return [...all].map(([value, kind]) => ({ value, kind }));
}

/** A live request with its secrets replaced as a recording would have them; with `keep`, only those headers come back. */
function redactRequest(r: Redaction, req: Parameters<Redactor['request']>[0], keep?: ReadonlySet<string>): ReturnType<Redactor['request']> {
  const found = new Map<string, string>();
  collectHeaders(r, found, req.headers);
  collectQuery(r, found, req.path);
  collectText(r, found, req.body);
  const secrets = found.size === 0 ? NO_SECRETS : scrubList(r, found);
  const headers: Record<string, string | string[] | undefined> = {};
  for (const k of Object.keys(req.headers)) {
    if (keep && !keep.has(k.toLowerCase())) continue;
    const v = req.headers[k];
    headers[k] = v === undefined ? v : Array.isArray(v) ? v.map((x) => scrubHeader(r, k, x, secrets)) : scrubHeader(r, k, v, secrets);
  }
  return { path: scrubPath(r, req.path, secrets), headers, body: req.body === '' ? req.body : scrubText(r, req.body, secrets) };
}

// Built on first use: compiling the rule set at import made every command's start-up pay for it.
let defaultRedactor: Redactor | undefined;

/** Returns a copy of the cassette with every secret replaced by its placeholder (default rules). */
export function redactCassette(cassette: Cassette, config?: RedactionConfig): Cassette {
  if (config) return makeRedactor(config).cassette(cassette);
  defaultRedactor ??= makeRedactor();
  return defaultRedactor.cassette(cassette);
}
