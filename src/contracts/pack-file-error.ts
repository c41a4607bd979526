import { TapedeckError } from '../errors.js';

export type PackFileErrorCode = 'pack_unreadable' | 'pack_invalid';

/** A pack file that cannot be used: the message starts with `file[:line]` and names the field. */
export class PackFileError extends TapedeckError {
  declare readonly code: PackFileErrorCode;
  constructor(code: PackFileErrorCode, where: { file: string; line?: number | undefined; field?: string | undefined }, detail: string) {
    const loc = where.line === undefined ? where.file : `${where.file}:${where.line}`;
    super(code, `${loc}${where.field ? ` ${where.field}:` : ''} ${detail.replace(/\s*\n\s*/g, ' ')}`);
  }
}
