/** Seconds as a person reads them: `40 s`, `3 min 5 s`. */
function readable(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * `[12/87, about 40 s left]` for long work done in units of similar cost: the
 * estimate is the mean time per unit so far times the units still to do.
 */
export function progressMark(done: number, total: number, elapsedMs: number): string {
  if (done === 0 || done >= total) return `[${done}/${total}]`;
  return `[${done}/${total}, about ${readable(((elapsedMs / done) * (total - done)) / 1000)} left]`;
}

/**
 * Reports progress on stderr: a line redrawn in place on a terminal, and in a
 * log (CI) a line at most every `everyMs`, so short runs print nothing extra.
 */
export function progressReporter(label: string, options: { stream?: NodeJS.WriteStream; everyMs?: number } = {}) {
  const stream = options.stream ?? process.stderr;
  const everyMs = options.everyMs ?? 10_000;
  const started = Date.now();
  let lastLine = started;
  return (done: number, total: number): void => {
    const now = Date.now();
    const mark = progressMark(done, total, now - started);
    if (stream.isTTY) stream.write(`\r${label}: ${mark}\u001b[K${done >= total ? '\n' : ''}`);
    else if (now - lastLine >= everyMs && done < total) {
      lastLine = now;
      stream.write(`${label}: ${mark}\n`);
    }
  };
}
