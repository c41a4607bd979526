import { SseParser } from '../dist/sse/index.js';
import { fmt, medianMs } from './measure.js';

/** Parses one event whose data line is `mb` megabytes, in 64 KiB chunks as a socket delivers it. */
function parseOne(mb) {
  const bytes = Buffer.from(`event: big\ndata: ${'x'.repeat(mb * 1024 * 1024)}\n\n`);
  return () => {
    const parser = new SseParser();
    for (let at = 0; at < bytes.length; at += 65536) parser.push(bytes.subarray(at, at + 65536));
  };
}

/** `npm run bench` part: the SSE parser is linear in the size of one event (target: 40 MB within 10x of 4 MB). */
export async function benchSseParse() {
  const big = Buffer.from(`event: big\ndata: ${'x'.repeat(40 * 1024 * 1024)}\n\n`);
  const chunks40 = [];
  for (let at = 0; at < big.length; at += 65536) chunks40.push(big.subarray(at, at + 65536));
  const small = await medianMs(parseOne(4), { runs: 5, warmup: 1 });
  const large = await medianMs(parseOne(40), { runs: 5, warmup: 1 });
  // What any reader of a 40 MB event pays: gathering the bytes and decoding them once. A big fresh allocation
  // costs more per byte than a small one (page faults), so the 4 -> 40 ratio of linear code sits above 10x.
  const floor = await medianMs(() => Buffer.concat(chunks40).toString('utf8'), { runs: 5, warmup: 1 });
  console.log('SSE parse of one large event, 64 KiB chunks (median of 5)');
  console.log(
    `  4 MB: ${fmt(small, 1)} ms, 40 MB: ${fmt(large, 1)} ms, ratio ${fmt(large / small, 1)}x; 40 MB ÷ concat+decode of the same bytes ${fmt(large / floor, 2)}x (quadratic was 75x and 7.2 s)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSseParse();
