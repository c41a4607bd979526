import { TapedeckError } from '../errors.js';

/** Exit codes, the same for every command. */
export const EXIT = { ok: 0, checkFailed: 1, usage: 2, internal: 3 } as const;

let verbose = false;

/** Turns on stack traces for unexpected errors (the global `--verbose`). */
export function setVerbose(on: boolean): void {
  verbose = on;
}

/** Prints one line to stderr with the `bench:` prefix; the only place that adds it. */
export function printError(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

/**
 * Runs a command body and maps what it throws to an exit code: a TapedeckError
 * becomes its one-line message, anything else an internal error.
 */
export async function runCommand(body: () => Promise<number | undefined>): Promise<void> {
  try {
    process.exitCode = (await body()) ?? EXIT.ok;
  } catch (err) {
    if (err instanceof TapedeckError) {
      printError(err.message);
      if (verbose && err.stack) process.stderr.write(`${err.stack}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    const e = err as Error;
    printError(`internal error: ${e?.message ?? String(err)} (this is a bug in tapedeck; --verbose shows the stack)`);
    if (verbose && e?.stack) process.stderr.write(`${e.stack}\n`);
    process.exitCode = EXIT.internal;
  }
}
