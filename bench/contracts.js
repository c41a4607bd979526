import { checkEvents, findPack } from '../dist/contracts/index.js';
import { fmt, medianMs } from './measure.js';

/** A long legal native-tui stream: many turns' worth of events in one segment. */
function events(n) {
  const cid = 'c0ffee00c0ffee00c0ffee00c0ffee00';
  const head = [
    { type: 'session.heartbeat', data: { sequence_number: null, type: 'session.heartbeat', server_time: null } },
    {
      type: 'response.in_progress',
      data: { sequence_number: 1, type: 'response.in_progress', response: { id: 'r', status: 'in_progress' } },
    },
    { type: 'response.completed', data: { sequence_number: 2, type: 'response.completed', response: { id: 'r', status: 'completed' } } },
    {
      type: 'session.input.consumed',
      data: { sequence_number: null, type: 'session.input.consumed', data: { item_id: 'u', type: 'message' } },
    },
  ];
  const body = Array.from({ length: n - head.length - 2 }, (_, i) => ({
    type: 'response.output_text.delta',
    data: { sequence_number: null, type: 'response.output_text.delta', delta: `w${i}`, message_id: 'm', index: i, final: false },
  }));
  const tail = [
    {
      type: 'response.output_item.done',
      data: { sequence_number: null, type: 'response.output_item.done', item: { id: 'i', type: 'message' } },
    },
    { type: 'session.status', data: { sequence_number: null, type: 'session.status', conversation_id: cid, status: 'idle' } },
  ];
  return [...head, ...body, ...tail];
}

/** Checking time per event for 10k and 100k events against the largest pack: linear means the same cost per event. */
export async function benchContracts() {
  const pack = findPack('omnigent/native-tui');
  const stream = findPack('omnigent/stream');
  const results = {};
  for (const n of [10_000, 100_000]) {
    const evs = events(n);
    const ms = await medianMs(
      () => {
        const found = [
          ...checkEvents(evs, pack, { cassette: 'bench', interaction: 1 }),
          ...checkEvents(evs, stream, { cassette: 'bench', interaction: 1 }),
        ].flatMap((r) => r.violations);
        if (found.length) throw new Error(`unexpected violations: ${found[0].message}`);
      },
      { runs: 7, warmup: 2 },
    );
    results[n] = { ms, perSecond: n / (ms / 1000), perEventUs: (ms * 1000) / n };
  }
  const ratio = results[100_000].perEventUs / results[10_000].perEventUs;
  console.log(
    `contract checking against omnigent/native-tui + omnigent/stream (${pack.rules.length + stream.rules.length} rules and payload schemas):`,
  );
  for (const n of [10_000, 100_000])
    console.log(`  ${String(n).padStart(7)} events: ${fmt(results[n].ms)} ms, ${fmt(results[n].perSecond, 0)} events/s`);
  console.log(`  per-event cost 100k / 10k: ${fmt(ratio)}x (target <= 1.5: linear)`);
  return { results, ratio };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchContracts();
