import { redactionPlaceholder } from './config.js';
import { kept, type SecrecyRules } from './secrecy.js';

/** One `name=value` pair of a query, decoded as URLSearchParams decodes it (a pair with no `=` has an empty value). */
export function queryPair(pair: string): [string, string] {
  for (const entry of new URLSearchParams(pair)) return entry;
  return ['', ''];
}

/** Whether a query value is redacted: under a secret name, not empty (it hides nothing), and not one `kept`. */
export function secretQueryValue(secrecy: SecrecyRules, name: string, value: string): boolean {
  const judged = value === '' ? 'none' : secrecy.query(name);
  return judged === 'always' || (judged === 'judged' && !kept(judged, value));
}

// `Sec-WebSocket-Protocol: bearer, TOKEN` or `bearer.TOKEN`: browsers can send no Authorization on an upgrade, so tokens ride here.
const PROTOCOL_CARRIER = /^(?:bearer|token|access[_-]?token|auth[a-z._-]*|base64url\.bearer\.authorization\.k8s\.io)$/i;
const PROTOCOL_PREFIXED = /^(bearer|token|access[_-]?token|auth[a-z_-]*|base64url\.bearer\.authorization\.k8s\.io)[._-](.{8,})$/i;

/** The credentials a Sec-WebSocket-Protocol offer carries. */
export function protocolSecrets(value: string): string[] {
  const items = value.split(',').map((p) => p.trim());
  return items.flatMap((item, k) => {
    const prefixed = PROTOCOL_PREFIXED.exec(item);
    if (prefixed) return [prefixed[2] as string];
    return k > 0 && PROTOCOL_CARRIER.test(items[k - 1] as string) && item.length >= 8 ? [item] : [];
  });
}

/** The offer with each credential it carries replaced. */
export function scrubProtocols(value: string): string {
  let out = value;
  for (const secret of protocolSecrets(value)) out = out.split(secret).join(redactionPlaceholder('sec-websocket-protocol'));
  return out;
}

/** Headers that carry an authentication challenge or its follow-up (RFC 7616): their nonces are the server's secrets. */
export const CHALLENGE_HEADERS: ReadonlySet<string> = new Set([
  'www-authenticate',
  'proxy-authenticate',
  'authentication-info',
  'proxy-authentication-info',
]);

const CHALLENGE_PARAM = /(?:^|[\s,])(nonce|opaque|cnonce|nextnonce)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/gi;

/** The Digest parameters of a challenge that a client hands back to prove who it is: `nonce`, `opaque`, `cnonce`, `nextnonce`. */
export function challengeSecrets(value: string): [string, string][] {
  const out: [string, string][] = [];
  for (const m of value.matchAll(CHALLENGE_PARAM)) {
    const secret = m[2] ?? m[3];
    if (secret) out.push([`digest-${(m[1] as string).toLowerCase()}`, secret]);
  }
  return out;
}
