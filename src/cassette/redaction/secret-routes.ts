import { MIN_CREDENTIAL_LENGTH } from './secret-names.js';

/**
 * Routes whose path segment is a credential itself, not an id that names
 * one: `GET /v1/keys/<key>` (many API-key services), `/tokens/<token>`. Each
 * matches as a run of segments anywhere in a path; what stands in `{name}` is
 * a secret when it could be a credential (`MIN_CREDENTIAL_LENGTH`).
 */
export const DEFAULT_SECRET_ROUTES: readonly string[] = [
  '/keys/{key}',
  '/api-keys/{key}',
  '/api_keys/{key}',
  '/apikeys/{key}',
  '/tokens/{token}',
  '/secrets/{secret}',
  '/credentials/{credential}',
];

type Segment = { literal: string } | { name: string };

/** A route template as its segments: `{name}` stands for a secret, anything else for itself. */
function segmentsOf(template: string): Segment[] {
  return template
    .split('/')
    .filter(Boolean)
    .map((s) => {
      const named = /^\{([A-Za-z0-9_.-]+)\}$/.exec(s);
      return named ? { name: named[1] as string } : { literal: s };
    });
}

/**
 * The secrets a request path holds by its route: each `[name, value]`. The
 * configured routes (`redact.paths`) take any value; the built-in ones a
 * value as long as a credential.
 */
export function routeSecrets(configured: readonly string[]): (pathname: string) => [string, string][] {
  const routes = [
    ...DEFAULT_SECRET_ROUTES.map((t) => ({ segments: segmentsOf(t), min: MIN_CREDENTIAL_LENGTH })),
    ...configured.map((t) => ({ segments: segmentsOf(t), min: 1 })),
  ].filter((r) => r.segments.some((s) => 'name' in s));
  const firsts = new Set(routes.map((r) => (r.segments[0] && 'literal' in r.segments[0] ? r.segments[0].literal : '')));
  return (pathname) => {
    // Most paths hold none of the routes' first words: one cheap look decides.
    if (!firsts.has('') && ![...firsts].some((f) => pathname.includes(f))) return [];
    const parts = pathname.split('/');
    const out: [string, string][] = [];
    for (const { segments, min } of routes)
      for (let at = 0; at + segments.length <= parts.length; at++) {
        const run = parts.slice(at, at + segments.length);
        if (!segments.every((s, k) => ('literal' in s ? s.literal === run[k] : (run[k] ?? '').length >= min))) continue;
        for (const [k, s] of segments.entries()) if ('name' in s) out.push([s.name, run[k] as string]);
      }
    return out;
  };
}
