import fc from 'fast-check';

// Random as real credentials are: the rules, like gitleaks, pass over look-alikes such as `AAAA…`.
const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const randomPart = (n: number) =>
  fc
    .array(fc.constantFrom(...ALNUM), { minLength: n, maxLength: n })
    .filter((a) => new Set(a).size >= Math.min(10, n / 2))
    .map((a) => a.join(''));

/** A few lower-case words: text around a secret that no rule mistakes for one. */
export const prose = fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));

/**
 * A secret as a model spells it out: a credential the client sent in a header (`header`; no rule knows its
 * shape), keys the rules know (whose first piece alone may already look like one), a password after its name, a
 * private key. `random` is the part of it that must never be stored, not even in pieces.
 */
export const spokenSecret = fc.oneof(
  randomPart(22).map((r) => ({ text: `T${r}`, random: r, header: `Bearer T${r}` as string | undefined })),
  randomPart(32).map((r) => ({ text: `sk-${r}`, random: r, header: undefined })),
  randomPart(36).map((r) => ({ text: `ghp_${r}`, random: r, header: undefined })),
  randomPart(14).map((r) => ({ text: `password: ${r}`, random: r, header: undefined })),
  fc.tuple(randomPart(64), randomPart(64), randomPart(40)).map(([a, b, c]) => ({
    text: `-----BEGIN RSA PRIVATE KEY-----\nMIIE${a}\n${b}\n${c}==\n-----END RSA PRIVATE KEY-----`,
    random: `${a}${b}${c}`,
    header: undefined,
  })),
);

/** `text` cut at the given points (taken modulo its length), into two pieces or more. */
export function cutInto(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => 1 + (c % (text.length - 1))))].sort((a, b) => a - b);
  return [0, ...at].map((from, k) => text.slice(from, at[k] ?? text.length));
}

/** Every four characters of `random` with a letter in them (digits alone could be a time or a count elsewhere). */
export const piecesOf = (random: string) =>
  Array.from({ length: random.length - 3 }, (_, k) => random.slice(k, k + 4)).filter((g) => /[A-Z]/.test(g));
