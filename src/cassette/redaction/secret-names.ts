/**
 * Whether a name (a header, a query parameter, a JSON field) holds a secret,
 * whatever its case and style: `accessToken`, `access_token`, `ACCESS-TOKEN`
 * and `X-Access-Token` are one name. A name is split into words and judged by
 * its last words, so `max_tokens`, `tokenUsage` and `sessionId` stay readable.
 */

/** The words of a name: camelCase, snake_case, kebab-case and dotted names alike, lower-cased. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** A last word that makes the name secret: `access_token`, `clientSecret`, `Password`, `X-Signature`. */
const SECRET_LAST = new Set([
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'signature',
  'sig',
  'credential',
  'credentials',
  'cookie',
  'jwt',
  'apikey',
  'grant',
  'authorization',
]);
/** Two last words that do: `api_key`, `private_key`, `x-amz-security-token` is caught by `token` already. */
const SECRET_PAIR = new Set([
  'api key',
  'private key',
  'secret key',
  'access key',
  'signing key',
  'auth key',
  'master key',
  'encryption key',
  'client key',
  'app key',
]);
/**
 * Two last words of an identifier a client sends back, never a credential: MCP's `progressToken` ties progress
 * notifications to the call, `nextPageToken`, `NextToken`, `continuationToken` and `cursor` page, `resume_token`
 * and `sync_token` pick up where a stream left off. Their values are still searched for credential shapes.
 */
const ECHOED_IDENTIFIER = new Set([
  'progress token',
  'page token',
  'next token',
  'continuation token',
  'pagination token',
  'resume token',
  'sync token',
  'cursor token',
]);
/** Words that name a password: what a person chose, a credential at any length (`hunter2`, a PIN of four digits). */
const PASSWORD_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase']);
/** Whole names that are secret by themselves. */
const SECRET_WHOLE = new Set(['auth', 'x amz credential', 'key']);

export type NamePlace = 'header' | 'query' | 'field';

/**
 * True when the value under this name is a secret. Headers are judged more
 * widely (any word `token`, `secret`, `key`, `auth`, `signature`, `session`,
 * `password`), since a header is a credential far more often than a field is;
 * a name ending in `id` is an identifier the client sends back, not a secret.
 */
export function isSecretName(name: string, place: NamePlace): boolean {
  const words = nameWords(name);
  const last = words.at(-1);
  if (!last) return false;
  const joined = words.join(' ');
  if (ECHOED_IDENTIFIER.has(words.slice(-2).join(' '))) return false;
  if (SECRET_LAST.has(last) || SECRET_PAIR.has(words.slice(-2).join(' '))) return true;
  if (place === 'field') return joined === 'auth';
  if (SECRET_WHOLE.has(joined)) return true;
  if (last === 'id' || last === 'ids') return false;
  if (place === 'header')
    return words.some((w) => /^(token|secret|key|auth|signature|session|password|passwd|credentials?)$/.test(w) || w.endsWith('key'));
  return words.some((w) => /^(token|secret|signature|password|passwd)$/.test(w));
}

/** Names that in free text (`session=…`, a cookie written out) hold a session's credential, though a field so named is an id. */
const SESSION_WORDS = new Set(['session', 'sid', 'phpsessid', 'jsessionid', 'connect sid']);

/**
 * True when `name=value` (or `name: value`) in free text holds a secret: a
 * secret field name, or, written with `=` as a cookie is, a session's
 * (`"session": "…"` in JSON names a session, and stays).
 */
export function isSecretAssignmentName(name: string, separator: string): boolean {
  return isSecretName(name, 'field') || (/^\s*=\s*["']?$/.test(separator) && SESSION_WORDS.has(nameWords(name).join(' ')));
}

/** Names of authentication schemes: what `auth: {type: "bearer"}` says, not a credential. */
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'digest', 'none', 'oauth', 'oauth2', 'apikey', 'api_key', 'hmac', 'jwt', 'mtls']);

/**
 * True when a string under a secret name only names how one authenticates
 * (hermes' `/v1/capabilities` sends `auth: {type: "bearer", required: true}`):
 * a client reads it, and it gives nothing away.
 */
export function isSchemeName(under: string, value: string): boolean {
  return nameWords(under).join(' ') === 'auth' && AUTH_SCHEMES.has(value.toLowerCase());
}

/** True for a name that holds a password: its value is secret however short it is. */
export function isPasswordName(name: string): boolean {
  return nameWords(name).some((w) => PASSWORD_WORDS.has(w));
}

/** True for a protocol identifier that looks secret by its last word (`progressToken`, `page_token`): see `ECHOED_IDENTIFIER`. */
export function isEchoedIdentifier(name: string): boolean {
  return ECHOED_IDENTIFIER.has(nameWords(name).slice(-2).join(' '));
}

/**
 * Values shorter than this are kept under a name judged secret by its words alone (decision 0016): no credential
 * a server issues is that short, and the short values found under such names are counters, flags and client-picked
 * ids (`progressToken: 7`). Passwords, names a configuration lists and the always-redacted headers are not judged.
 */
export const MIN_CREDENTIAL_LENGTH = 8;
