import { performance } from 'node:perf_hooks';

/** Median wall time in ms of `fn` over `runs` runs, after `warmup` unmeasured ones; GC between runs when exposed. */
export async function medianMs(fn, { runs = 15, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    globalThis.gc?.();
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return percentile(times, 50);
}

/** The p-th percentile (0-100) of a list of numbers. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export function fmt(n, digits = 2) {
  return Number.isFinite(n) ? n.toFixed(digits) : String(n);
}

/** Medians of two functions measured in alternation, so machine noise falls on both alike. */
export async function medianPair(a, b, { runs = 15, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta = [];
  const tb = [];
  for (let i = 0; i < runs; i++) {
    for (const [fn, out] of i % 2
      ? [
          [b, tb],
          [a, ta],
        ]
      : [
          [a, ta],
          [b, tb],
        ]) {
      globalThis.gc?.();
      const t = performance.now();
      await fn();
      out.push(performance.now() - t);
    }
  }
  return [percentile(ta, 50), percentile(tb, 50)];
}

/**
 * The ratio b/a as a range over interleaved rounds: each round takes the
 * median of `runs` alternating runs of both, so a loaded moment moves one
 * round, not the figure; the range says how steady the machine was.
 */
export async function ratioRange(a, b, { rounds = 4, runs = 7, warmup = 2 } = {}) {
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    const [ma, mb] = await medianPair(a, b, { runs, warmup: r === 0 ? warmup : 1 });
    ratios.push(mb / ma);
  }
  return { min: Math.min(...ratios), max: Math.max(...ratios), ratios };
}

/** `1.21-1.38x`, with the load average the figure was taken under. */
export function fmtRange({ min, max }) {
  return `${fmt(min)}-${fmt(max)}x`;
}
