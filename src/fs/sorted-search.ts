/** The index of the last of the ascending `values` at or below `value`; -1 when none is. */
export function lastAtOrBelow(values: readonly number[], value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
