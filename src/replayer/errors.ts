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
    places: (setting: 'ignoreBodyPaths' | 'ignoreQuery' | 'matchHeaders') => string = DEFAULT_PLACES,
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
      `no recorded interaction matches ${method} ${path}. ${nearest.length ? `Nearest: ${near}.` : 'The cassettes hold no request at all.'} ${remedy(nearest[0]?.differs[0]?.path, places)}`,
      { exitCode: 1 },
    );
  }
}

const DEFAULT_PLACES = (setting: string) => `the "match" section of tapedeck.config.json, or the ${setting} option`;

/** What to do about the nearest difference, naming only options that exist, in the place the user can change them. */
function remedy(path: string | undefined, places: (setting: 'ignoreBodyPaths' | 'ignoreQuery' | 'matchHeaders') => string): string {
  if (path?.startsWith('body.')) {
    const field = path.slice('body.'.length).replace(/\[(\d+)\]/g, '.$1');
    return `Record again, or ignore that field: "ignoreBodyPaths": [${JSON.stringify(field)}] (${places('ignoreBodyPaths')}).`;
  }
  if (path?.startsWith('query.'))
    return `Record again, or ignore that parameter: "ignoreQuery": [${JSON.stringify(path.slice('query.'.length))}] (${places('ignoreQuery')}).`;
  if (path?.startsWith('headers.'))
    return `Record again, or stop matching that header: leave ${JSON.stringify(path.slice('headers.'.length))} out of "matchHeaders" (${places('matchHeaders')}).`;
  return 'Record again.';
}
