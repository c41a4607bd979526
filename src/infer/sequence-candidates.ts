import { valueAt } from '../contracts/index.js';
import { type Candidate, candidate } from './candidate.js';
import type { KeyedStream } from './keyed-events.js';
import { scalarLeaves } from './leaves.js';

// A number named as a count of something done: a stream's event counter, a task's progress.
const COUNTER = /(^|[_.])(seq|sequence|sequence_number|index|offset|counter|number|progress)$|[a-z](Seq|Sequence|Index|Number)$/;

/** `sequence`: a counter in the data (to two levels: `params.progress`) that only goes up in every stream (by a fixed step where it always did). */
export function sequenceCandidates(streams: readonly KeyedStream[]): Candidate[] {
  const names = new Set<string>();
  for (const s of streams)
    for (const e of s.events)
      for (const [path, v] of scalarLeaves(e.data))
        if (typeof v === 'number' && path.split('.').length <= 2 && COUNTER.test(path)) names.add(path);
  const out: Candidate[] = [];
  for (const field of [...names].sort()) {
    const steps = new Set<number>();
    const starts = new Set<number>();
    let tested = 0;
    let first = '';
    let holds = true;
    for (const s of streams) {
      const values = s.events.map((e) => valueAt(e.data, field)).filter((v): v is number => typeof v === 'number');
      if (values.length === 0) continue;
      starts.add(values[0] as number);
      for (let i = 1; i < values.length; i++) {
        const step = (values[i] as number) - (values[i - 1] as number);
        if (step <= 0) holds = false;
        steps.add(step);
      }
      if (values.length > 1) {
        tested++;
        if (first === '') first = s.where;
      }
    }
    if (!holds || tested === 0) continue;
    const step = steps.size === 1 ? [...steps][0] : undefined;
    const start = starts.size === 1 ? [...starts][0] : undefined;
    const description = `${field} goes up${step === undefined ? '' : ` by ${step}`} in every stream${start === undefined ? '' : `, from ${start}`}`;
    out.push(
      candidate(
        {
          kind: 'sequence',
          description,
          scope: 'stream',
          field,
          ...(start !== undefined ? { start } : {}),
          ...(step !== undefined ? { step } : {}),
        },
        { support: tested, unit: 'streams', streams: tested, first },
      ),
    );
  }
  return out;
}
