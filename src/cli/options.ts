import { UsageError } from '../errors.js';

/** Parses a `--port` value: an integer from 0 (pick a free port) to 65535. */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new UsageError(`--port ${JSON.stringify(value)} is not a port; use a number from 0 (any free port) to 65535`);
  }
  return n;
}

/** Parses a positive whole number of bytes (`--max-request-body`). */
export function parseByteCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1)
    throw new UsageError(`${JSON.stringify(value)} is not a number of bytes; use a whole number such as 67108864`);
  return n;
}

/** Parses `--on-miss`: an HTTP status from 400 to 599. */
export function parseMissStatus(value: string): number {
  const n = Number(value);
  if (!/^\d{3}$/.test(value) || n < 400 || n > 599) {
    throw new UsageError(
      `--on-miss ${JSON.stringify(value)} is not an error status; use one from 400 to 599 (default 400, which clients do not retry)`,
    );
  }
  return n;
}

/** Parses repeated `--label key=value` flags into a record. */
export function parseLabel(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--label ${JSON.stringify(value)} needs the form key=value`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** A parser for a seed flag: a non-negative integer. */
export const seedParser =
  (flag: string) =>
  (value: string): number => {
    if (!/^\d{1,10}$/.test(value)) throw new UsageError(`${flag} ${JSON.stringify(value)} must be a whole number, e.g. ${flag} 1`);
    return Number(value);
  };

/** Parses a `--seed`. */
export const parseSeed = seedParser('--seed');

/** Parses a duration flag in whole milliseconds (0 to one minute). */
export function parseWholeMs(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 60_000)
    throw new UsageError(`${JSON.stringify(value)} is not a duration; give whole milliseconds from 0 to 60000`);
  return n;
}

/**
 * Parses repeated `--header 'Name: value'` flags; `$VAR` and `${VAR}` in the value are read from the environment
 * (quoted so the shell leaves them, the key never lands in a shell history or a cassette).
 */
export function parseHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const colon = value.indexOf(':');
  const name = value.slice(0, colon).trim();
  if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new UsageError(`--header ${JSON.stringify(value)} needs the form 'Name: value', e.g. --header 'Authorization: Bearer $API_KEY'`);
  const expanded = value
    .slice(colon + 1)
    .trim()
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => {
      const variable = (braced ?? bare) as string;
      const set = process.env[variable];
      if (set === undefined)
        throw new UsageError(`--header ${name}: $${variable} is not set in the environment; export it, or give the value itself`);
      return set;
    });
  return { ...previous, [name.toLowerCase()]: expanded };
}

/** Parses `--jobs`: how many things run at once, 1 to 64. */
export function parseJobs(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 64) throw new UsageError(`--jobs ${JSON.stringify(value)}: give a whole number from 1 to 64`);
  return n;
}
