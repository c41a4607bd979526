import type { Cassette, Headers, Interaction } from './schema.js';

/** Headers whose values never reach disk, whatever the caller configured. */
export const ALWAYS_REDACTED_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

/** The stable stand-in written in place of a secret header value. */
export function redactionPlaceholder(name: string): string {
  return `<redacted:${name.toLowerCase()}>`;
}

function redactHeaders(headers: Headers): Headers {
  let out: Headers | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!ALWAYS_REDACTED_HEADERS.includes(lower)) continue;
    out ??= { ...headers };
    const placeholder = redactionPlaceholder(lower);
    out[name] = Array.isArray(value) ? value.map(() => placeholder) : placeholder;
  }
  return out ?? headers;
}

function redactInteraction(i: Interaction): Interaction {
  const request = { ...i.request, headers: redactHeaders(i.request.headers) };
  if (i.response === undefined) return { ...i, request };
  return { ...i, request, response: { ...i.response, headers: redactHeaders(i.response.headers) } };
}

/** Returns a copy of the cassette with every secret header value replaced by its placeholder. */
export function redactCassette(cassette: Cassette): Cassette {
  return { ...cassette, interactions: cassette.interactions.map(redactInteraction) };
}
