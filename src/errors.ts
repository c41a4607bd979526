/**
 * Every error tapedeck raises on purpose carries a stable `code` (for programs)
 * and a message that names what was wrong and how to fix it (for people).
 */
export class TapedeckError extends Error {
  readonly code: string;
  /** Exit code the CLI maps this error to: 2 for usage or input problems. */
  readonly exitCode: number;

  constructor(code: string, message: string, options?: { cause?: unknown; exitCode?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = options?.exitCode ?? 2;
  }
}

/** A user-supplied value (flag, path, config) that cannot be used as given. */
export class UsageError extends TapedeckError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('usage', message, options);
  }
}
