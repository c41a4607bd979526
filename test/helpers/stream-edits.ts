/** One way to edit a stream's events at position `i`; undefined where it does not apply there. */
export type StreamEdit<T> = { name: string; apply: (events: T[], i: number) => T[] | undefined };

/** The oracles' corpus edits: an event dropped, duplicated, swapped with the next, moved last, or the stream cut before it. */
export function streamEdits<T>(): StreamEdit<T>[] {
  return [
    { name: 'drop', apply: (e, i) => e.toSpliced(i, 1) },
    { name: 'duplicate', apply: (e, i) => e.toSpliced(i, 0, e[i] as T) },
    { name: 'swap', apply: (e, i) => (i + 1 < e.length ? e.toSpliced(i, 2, e[i + 1] as T, e[i] as T) : undefined) },
    { name: 'move-last', apply: (e, i) => (i + 1 < e.length ? [...e.toSpliced(i, 1), e[i] as T] : undefined) },
    { name: 'cut', apply: (e, i) => (i > 0 ? e.slice(0, i) : undefined) },
  ];
}
