/**
 * The spellings a found secret can take elsewhere in a recording: URL-encoded
 * (echoed in a query or a form), JSON-escaped (inside a JSON string held as
 * text), and base64 (Basic credentials, tokens packed into other tokens),
 * including the base64 of the secret in the middle of a longer encoded value.
 */

// Shorter base64 fragments would match by chance in unrelated encoded data.
const MIN_BASE64_CORE = 10;

/** The base64 text that encodes `value` at each of the three byte alignments it can have inside a longer value. */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (const lead of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(lead), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // Characters that mix in bits of the unknown bytes before or after are dropped.
    const start = lead === 0 ? 0 : lead + 1;
    const total = (lead + bytes.length) * 8;
    const end = total % 6 === 0 ? encoded.length : encoded.length - 1;
    const core = encoded.slice(start, end);
    if (core.length >= MIN_BASE64_CORE) out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/** Every other spelling of a secret worth scrubbing, without the secret itself. */
export function secretSpellings(value: string): string[] {
  const spellings = new Set<string>([
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    JSON.stringify(value).slice(1, -1),
    ...base64Cores(value),
  ]);
  spellings.delete(value);
  return [...spellings];
}
