import { readFile } from 'node:fs/promises';
import {
  CASSETTE_VERSION,
  type Cassette,
  type CassetteMeta,
  type Interaction,
  interactionSchema,
  RECORDING_INTERRUPTED,
} from '../../cassette/index.js';
import { describeIssue, formatFieldPath } from '../../fs/located-yaml.js';
import { foldRecord } from './fold.js';
import { JournalError, type JournalRecord } from './format.js';

/**
 * What a journal held, as a cassette; `interrupted` counts the exchanges the
 * recorder never saw end, `dropped` says which lines could not be kept and why.
 */
export interface Recovered {
  cassette: Cassette;
  interrupted: number;
  dropped: { line: number; reason: string }[];
}

const INTERRUPTED = RECORDING_INTERRUPTED;

/**
 * Folds a journal back into a cassette. A torn last line (the recorder killed
 * mid-write) is dropped; an exchange without its end is kept as far as it got,
 * its stream `broken` or, without a response, a `recording_interrupted` failure.
 */
export async function readJournal(file: string): Promise<Recovered> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new JournalError('journal_unreadable', `${file} cannot be read: ${(e as Error).message}`);
  }
  const lines = text.split('\n');
  let meta: CassetteMeta | undefined;
  const bySeq = new Map<number, Interaction>();
  const openedAt = new Map<number, number>();
  const ended = new Set<number>();
  const dropped: Recovered['dropped'] = [];
  for (const [index, line] of lines.entries()) {
    if (!line) continue;
    let r: JournalRecord;
    try {
      r = JSON.parse(line) as JournalRecord;
    } catch (e) {
      // The last line torn by a kill mid-write is expected; a bad line before it is told.
      if (lines.slice(index + 1).some(Boolean)) dropped.push({ line: index + 1, reason: `not JSON (${(e as Error).message})` });
      continue;
    }
    if (r.k === 'meta') {
      meta = r.meta;
      continue;
    }
    if (r.k === 'exchange') {
      bySeq.set(r.seq, r.interaction);
      openedAt.set(r.seq, index + 1);
      ended.add(r.seq);
      continue;
    }
    if (r.k === 'open') {
      bySeq.set(r.seq, { seq: r.seq, request: r.request, timing: { start: r.start } });
      openedAt.set(r.seq, index + 1);
      continue;
    }
    const i = bySeq.get(r.seq);
    if (i) foldRecord(i, r, ended);
  }
  if (!meta) throw new JournalError('journal_unreadable', `${file} is not a tapedeck journal (no meta line); it cannot be recovered`);
  let interrupted = 0;
  const interactions = keepValid(
    [...bySeq.values()].sort((a, b) => a.seq - b.seq),
    openedAt,
    dropped,
  );
  for (const i of interactions) {
    if (ended.has(i.seq)) continue;
    interrupted++;
    const live = i.response?.stream ?? i.response?.websocket;
    if (live) {
      live.end = 'broken';
      live.error = INTERRUPTED;
    } else i.failure = { code: 'recording_interrupted', message: INTERRUPTED };
  }
  return { cassette: { version: CASSETTE_VERSION, meta, interactions }, interrupted, dropped };
}

/** The exchanges a cassette can hold; any other is dropped, told by the journal line that opened it. */
function keepValid(interactions: Interaction[], openedAt: Map<number, number>, dropped: Recovered['dropped']): Interaction[] {
  return interactions.filter((i) => {
    // Checked as ended, so a cut-short exchange is judged with the failure or end it will be given.
    const probe = i.response || i.failure ? i : { ...i, failure: { code: 'recording_interrupted', message: '' } };
    const verdict = interactionSchema.safeParse(probe);
    if (verdict.success) return true;
    const issue = verdict.error.issues[0];
    const where = issue ? `${formatFieldPath(issue.path)}: ${describeIssue(issue, probe)}` : 'invalid';
    dropped.push({ line: openedAt.get(i.seq) ?? 0, reason: `exchange #${i.seq} cannot be kept in a cassette (${where})` });
    return false;
  });
}
