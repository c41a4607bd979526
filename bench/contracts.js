import '../dist/families/index.js';
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
      data: {
        sequence_number: null,
        type: 'response.output_item.done',
        item: { id: 'i', type: 'message', role: 'assistant', content: [] },
      },
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

/** An opencode /event stream of `sessions` sessions taking whole turns side by side (about `n` events), each streaming text. */
export function sessionEvents(n, sessions) {
  const ev = (type, properties) => ({ type, data: { id: `evt${type}`, type, properties } });
  const turn = (sid, t, deltas) => {
    const msg = `msg_${sid}_${t}`;
    const part = { id: `prt_${sid}_${t}`, sessionID: sid, messageID: msg, type: 'text', text: '' };
    return [
      ev('message.updated', { sessionID: sid, info: { id: `${msg}u`, role: 'user' } }),
      ev('session.status', { sessionID: sid, status: { type: 'busy' } }),
      ev('message.part.updated', { sessionID: sid, part }),
      ...Array.from({ length: deltas }, (_, i) =>
        ev('message.part.delta', { sessionID: sid, messageID: msg, partID: part.id, field: 'text', delta: `w${i} ` }),
      ),
      ev('message.part.updated', { sessionID: sid, part: { ...part, text: 'done' } }),
      ev('session.status', { sessionID: sid, status: { type: 'idle' } }),
      ev('session.idle', { sessionID: sid }),
    ];
  };
  const perTurn = 200;
  const queues = Array.from({ length: sessions }, () => []);
  for (let t = 0; queues.flat().length < n; t++) for (const [s, q] of queues.entries()) q.push(...turn(`ses_${s}`, t, perTurn));
  // Round robin: one event of each session in turn, as concurrent sessions interleave on one connection.
  const out = [ev('server.connected', {})];
  const longest = Math.max(...queues.map((q) => q.length));
  for (let i = 0; i < longest; i++) for (const q of queues) if (q[i]) out.push(q[i]);
  return out;
}

/** Scoped checking: opencode/events (rules per session) over 100k events of four concurrent sessions. */
export async function benchScopedContracts() {
  const pack = findPack('opencode/events');
  const evs = sessionEvents(100_000, 4);
  const ms = await medianMs(
    () => {
      const found = checkEvents(evs, pack, { cassette: 'bench', interaction: 1 }).flatMap((r) => r.violations);
      if (found.length) throw new Error(`unexpected violations: ${found[0].rule} ${found[0].message}`);
    },
    { runs: 7, warmup: 2 },
  );
  const perSecond = evs.length / (ms / 1000);
  console.log(
    `scoped contract checking, opencode/events (${pack.rules.filter((r) => r.by).length} of ${pack.rules.length} rules per session) over ${evs.length} events of 4 sessions: ${fmt(ms)} ms, ${fmt(perSecond, 0)} events/s (target >= 1M)`,
  );
  return { ms, perSecond };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchContracts();
  await benchScopedContracts();
}

/** `bench verify FILE` as a user runs it (a process: parse, segment, check, report) on one stream of `n` events. */
export async function benchVerifyEndToEnd() {
  const { execFileSync } = await import('node:child_process');
  const { mkdtemp, rm, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { serializeCassette } = await import('../dist/cassette/index.js');
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bench-verify-'));
  const bin = new URL('../bin/bench.js', import.meta.url).pathname;
  const floorScript = new URL('./verify-floor.js', import.meta.url).pathname;
  const rows = {};
  const floors = {};
  const ratiosOf = {};
  try {
    for (const n of [100_000, 300_000]) {
      const items = events(n).map((e, k) => ({ at: k * 0.01, after: 1, event: e.type, data: JSON.stringify(e.data) }));
      const cassette = {
        version: 1,
        meta: {
          recorder: 'bench',
          target: 'http://127.0.0.1:9',
          recordedAt: '2026-01-01T00:00:00.000Z',
          packs: ['omnigent/native-tui', 'omnigent/stream'],
        },
        interactions: [
          {
            seq: 1,
            request: { method: 'GET', path: '/v1/sessions/s/stream', headers: {} },
            response: { status: 200, headers: { 'content-type': 'text/event-stream' }, stream: { events: items, end: 'server-closed' } },
            timing: { start: 0 },
          },
        ],
      };
      const file = join(dir, `stream-${n}.yaml`);
      await writeFile(file, serializeCassette(cassette));
      const times = [];
      const floorTimes = [];
      // Alternated with the floor (a process that only reads the file and parses each event's data), so noise falls on both.
      for (let run = 0; run < 4; run++) {
        let started = performance.now();
        execFileSync(process.execPath, [bin, 'verify', file], { stdio: 'ignore' });
        times.push(performance.now() - started);
        started = performance.now();
        execFileSync(process.execPath, [floorScript, file], { stdio: 'ignore' });
        floorTimes.push(performance.now() - started);
      }
      rows[n] = { min: Math.min(...times), max: Math.max(...times) };
      floors[n] = { min: Math.min(...floorTimes), max: Math.max(...floorTimes) };
      // Each run beside the floor run that followed it: the same noise falls on both.
      const ratios = times.map((t, i) => t / (floorTimes[i] ?? t));
      ratiosOf[n] = { min: Math.min(...ratios), max: Math.max(...ratios) };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log('bench verify end to end (a process: start, read, validate, segment, check, report), one stream:');
  for (const [n, r] of Object.entries(rows)) {
    const f = floors[n];
    console.log(
      `  ${String(n).padStart(7)} events: ${fmt(r.min, 0)}-${fmt(r.max, 0)} ms, ${fmt(n / (r.max / 1000), 0)}-${fmt(n / (r.min / 1000), 0)} events/s over 4 runs`,
    );
    console.log(
      `           floor, a process that only reads the file and JSON.parses each event's data: ${fmt(f.min, 0)}-${fmt(f.max, 0)} ms, ${fmt(n / (f.max / 1000), 0)}-${fmt(n / (f.min / 1000), 0)} events/s`,
    );
    const q = ratiosOf[n];
    console.log(`           bench verify ÷ its floor, run by run: ${fmt(q.min)}-${fmt(q.max)}x (target <= 2)`);
  }
  const perEvent = (n) => ({ min: rows[n].min / n, max: rows[n].max / n });
  console.log(
    `  per-event cost 300k / 100k: ${fmt(perEvent(300_000).min / perEvent(100_000).max)}-${fmt(perEvent(300_000).max / perEvent(100_000).min)}x (target <= 1.5: linear)`,
  );
  return rows;
}
