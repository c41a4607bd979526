/**
 * A turn compared as a sequence, not a set: every occurrence counts and so
 * does its place. Both turns are first brought to a canonical form (runs of a
 * type the baseline streams in runs folded to one, pairs the server does not
 * order put in one order, types it sends only sometimes left out), then
 * aligned by a longest common subsequence; what is left over is an event
 * removed, inserted, or (the same type on both sides) moved.
 */

export interface SequenceNoise {
  /** Types whose run lengths are free (deltas): a run of any length is one. */
  runs: ReadonlySet<string>;
  /** `a\0b` for pairs whose relative order is the server's race. */
  unordered: ReadonlySet<string>;
  /** Types sent in some runs only. */
  sometimes: ReadonlySet<string>;
}

export type Edit =
  | { op: 'removed'; type: string; after: string | undefined }
  | { op: 'inserted'; type: string; after: string | undefined }
  | { op: 'moved'; type: string; wasAfter: string | undefined; nowAfter: string | undefined };

/** The turn as drift compares it. */
export function canonicalTurn(turn: readonly string[], noise: SequenceNoise): string[] {
  const out: string[] = [];
  for (const t of turn) {
    if (noise.sometimes.has(t)) continue;
    if (noise.runs.has(t) && out.at(-1) === t) continue;
    out.push(t);
  }
  // Adjacent events the server does not order are put in name order, so either race reads the same.
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i + 1 < out.length; i++) {
      const [a, b] = [out[i] as string, out[i + 1] as string];
      if (a > b && noise.unordered.has(`${a}\u0000${b}`)) {
        out[i] = b;
        out[i + 1] = a;
        changed = true;
      }
    }
  }
  return out;
}

/** The edits that turn `base` into `cand` (both canonical), removals and insertions of one type paired as moves. */
export function diffTurns(base: readonly string[], cand: readonly string[]): Edit[] {
  const n = base.length;
  const m = cand.length;
  // lcs[i][j]: the longest common subsequence of base[i..] and cand[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      (lcs[i] as Uint16Array)[j] =
        base[i] === cand[j]
          ? ((lcs[i + 1] as Uint16Array)[j + 1] as number) + 1
          : Math.max((lcs[i + 1] as Uint16Array)[j] as number, (lcs[i] as Uint16Array)[j + 1] as number);
  const removed: { type: string; after: string | undefined }[] = [];
  const inserted: { type: string; after: string | undefined }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && base[i] === cand[j]) {
      i++;
      j++;
    } else if (j < m && (i === n || ((lcs[i] as Uint16Array)[j + 1] as number) >= ((lcs[i + 1] as Uint16Array)[j] as number))) {
      inserted.push({ type: cand[j] as string, after: cand[j - 1] });
      j++;
    } else {
      removed.push({ type: base[i] as string, after: base[i - 1] });
      i++;
    }
  }
  const edits: Edit[] = [];
  for (const r of removed) {
    const k = inserted.findIndex((x) => x.type === r.type);
    if (k === -1) edits.push({ op: 'removed', ...r });
    else {
      const [moved] = inserted.splice(k, 1);
      edits.push({ op: 'moved', type: r.type, wasAfter: r.after, nowAfter: moved?.after });
    }
  }
  for (const x of inserted) edits.push({ op: 'inserted', ...x });
  return edits;
}
