/**
 * Deterministic ids and timestamps for one simulator run: the same seed and
 * the same requests give the same ids, so recordings can be compared byte for byte.
 */
export class SeededIds {
  private state: number;
  private tick = 0;
  /** Logical Unix seconds: each timestamp taken is one second after the last. */
  private readonly epoch = 1_787_000_000;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** mulberry32: small, fast, good enough for ids. */
  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** `n` lowercase hex characters. */
  hex(n = 32): string {
    let out = '';
    while (out.length < n)
      out += Math.floor(this.next() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, n);
  }

  now(): number {
    this.tick += 1;
    return this.epoch + this.tick;
  }
}
