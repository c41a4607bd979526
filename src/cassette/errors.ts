import { TapedeckError } from '../errors.js';

export type CassetteErrorCode =
  | 'cassette_unreadable'
  | 'cassette_yaml'
  | 'cassette_version'
  | 'cassette_schema'
  | 'cassette_unwritable'
  | 'cassette_too_deep'
  | 'cassette_too_big'
  | 'cassette_not_prunable';

/**
 * A cassette that cannot be read or written. The message starts with
 * `file[:line]` and names the field path, so an editor can jump to it.
 */
export class CassetteError extends TapedeckError {
  declare readonly code: CassetteErrorCode;
  readonly file: string;
  readonly line: number | undefined;
  readonly fieldPath: string | undefined;

  constructor(
    code: CassetteErrorCode,
    where: { file: string; line?: number | undefined; fieldPath?: string | undefined },
    detail: string,
    options?: { cause?: unknown },
  ) {
    const loc = where.line === undefined ? where.file : `${where.file}:${where.line}`;
    const field = where.fieldPath ? ` ${where.fieldPath}:` : '';
    // Details can quote the file (a YAML key may itself be a multi-line mapping): errors stay one line.
    super(code, `${loc}${field} ${detail.replace(/\s*\n\s*/g, ' ')}`, options);
    this.file = where.file;
    this.line = where.line;
    this.fieldPath = where.fieldPath;
  }
}
