import { TapedeckError } from '../errors.js';

export interface NearMiss {
  seq: number;
  cassette: string;
  method: string;
  path: string;
  differs: { path: string; recorded: unknown; actual: unknown }[];
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** A request no recorded interaction matches; the message names the nearest ones and what differs. */
export class UnmatchedRequestError extends TapedeckError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly nearest: NearMiss[],
  ) {
    const near = nearest
      .map((n) => {
        const d = n.differs[0];
        const why = d ? `${d.path}: recorded ${show(d.recorded)}, got ${show(d.actual)}` : 'identical, but every answer was used';
        return `${n.cassette} #${n.seq} ${n.method} ${n.path} (${why})`;
      })
      .join('; ');
    super(
      'unmatched_request',
      `no recorded interaction matches ${method} ${path}. ${nearest.length ? `Nearest: ${near}.` : 'The cassettes hold no request at all.'} Record again, or list the field as ignorable (ignoreBodyPaths, ignoreQuery).`,
      { exitCode: 1 },
    );
  }
}
