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
      `no recorded interaction matches ${method} ${path}. ${nearest.length ? `Nearest: ${near}.` : 'The cassettes hold no request at all.'} ${remedy(nearest[0]?.differs[0]?.path)}`,
      { exitCode: 1 },
    );
  }
}

/**
 * What to do about the nearest difference, naming only options that exist:
 * a body field or a query parameter can be ignored, in the "match" section of
 * tapedeck.config.json (bench replay, --config) or in the replay options.
 */
function remedy(path: string | undefined): string {
  const where = '(the "match" section of tapedeck.config.json, or the replay options)';
  if (path?.startsWith('body.')) {
    const field = path.slice('body.'.length).replace(/\[(\d+)\]/g, '.$1');
    return `Record again, or ignore that field: "ignoreBodyPaths": [${JSON.stringify(field)}] ${where}.`;
  }
  if (path?.startsWith('query.'))
    return `Record again, or ignore that parameter: "ignoreQuery": [${JSON.stringify(path.slice('query.'.length))}] ${where}.`;
  if (path?.startsWith('headers.'))
    return `Record again, or stop matching that header: leave ${JSON.stringify(path.slice('headers.'.length))} out of "matchHeaders" ${where}.`;
  return 'Record again.';
}
