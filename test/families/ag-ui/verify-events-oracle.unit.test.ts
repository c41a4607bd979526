import { readdir } from 'node:fs/promises';
import { verifyEvents } from '@ag-ui/client';
import { from, lastValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { type Cassette, loadCassette } from '../../../src/cassette/index.js';
import { verifyCassette } from '../../../src/contracts/index.js';
import { agUiEvents } from '../../../src/families/ag-ui/index.js';
import { streamEdits } from '../../helpers/stream-edits.js';
import { type AgUiEvent, eventsOf, runsOf, setEvents } from './ag-ui-events.js';

/**
 * The oracle: `verifyEvents` from `@ag-ui/client` (the check the official client runs on every stream) against the
 * `ag-ui/events` pack, on every recorded AG-UI run and each of its edits. A stream the client refuses must be one the
 * pack refuses; a stream only the pack refuses must break a rule the pack names as beyond what verifyEvents checks.
 * The list of those is printed with `ONLY_PACK=1`.
 */
const FOLDERS = ['cassettes/ag-ui', 'cassettes/ag-ui-pydantic-real', 'cassettes/ag-ui-langgraph-real'];

const EDITS = streamEdits<AgUiEvent>();

/** What verifyEvents says of a stream: its error's message, or undefined when it passes the stream through. */
async function clientRefuses(events: readonly AgUiEvent[]): Promise<string | undefined> {
  try {
    await lastValueFrom(from(events as never[]).pipe(verifyEvents()), { defaultValue: undefined });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The pack's broken rules for one run's events, with the first message of each. */
function packRefuses(cassette: Cassette, seq: number, events: AgUiEvent[]): { rule: string; message: string }[] {
  const copy = structuredClone(cassette);
  const run = copy.interactions.find((i) => i.seq === seq);
  if (!run) throw new Error(`no interaction ${seq}`);
  setEvents(run, events);
  copy.interactions = [run];
  return verifyCassette(copy, 'edited.yaml', [agUiEvents]).rules.flatMap((r) =>
    r.violations.length > 0 ? [{ rule: r.rule, message: r.violations[0]?.message ?? '' }] : [],
  );
}

async function corpus(): Promise<{ where: string; cassette: Cassette; seq: number; events: AgUiEvent[] }[]> {
  const out = [];
  for (const dir of FOLDERS)
    for (const f of (await readdir(dir)).filter((f) => f.endsWith('.yaml') && f !== 'manifest.yaml')) {
      const cassette = await loadCassette(`${dir}/${f}`);
      for (const run of runsOf(cassette)) {
        const events = eventsOf(run);
        out.push({ where: `${dir}/${f} #${run.seq}`, cassette, seq: run.seq, events });
        for (const edit of EDITS)
          for (let i = 0; i < events.length; i++) {
            const edited = edit.apply(events, i);
            if (edited)
              out.push({ where: `${dir}/${f} #${run.seq} ${edit.name} ${i} (${events[i]?.type})`, cassette, seq: run.seq, events: edited });
          }
      }
    }
  return out;
}

const BEYOND = new Set(agUiEvents.rules.filter((r) => r.source.includes('verifyEvents does not check it')).map((r) => r.name));

describe('ag-ui/events against @ag-ui/client verifyEvents', () => {
  it('refuses every stream verifyEvents refuses; what only the pack refuses breaks a rule beyond verifyEvents', async () => {
    const streams = await corpus();
    const missed: string[] = [];
    const packOnly: string[] = [];
    let refusedByClient = 0;
    for (const s of streams) {
      const client = await clientRefuses(s.events);
      const pack = packRefuses(s.cassette, s.seq, s.events);
      if (client) refusedByClient++;
      if (client && pack.length === 0) missed.push(`${s.where}: verifyEvents: ${client}`);
      if (!client && pack.length > 0) {
        const listed = `${s.where}: ${pack.map((p) => `${p.rule} (${p.message})`).join('; ')}`;
        packOnly.push(listed);
        // Spans left open by a stream cut short break their own rules too; what refuses the stream is the rule beyond.
        expect(
          pack.some((p) => BEYOND.has(p.rule)),
          `${listed}: verifyEvents lets this stream through, so the pack must say why in a rule it names as beyond it`,
        ).toBe(true);
      }
    }
    if (process.env.ONLY_PACK) process.stdout.write(`${packOnly.join('\n')}\n`);
    expect(missed).toEqual([]);
    // The corpus is worth its name: the client refuses many edits, and the pack alone refuses some.
    expect(refusedByClient).toBeGreaterThan(100);
    expect(packOnly.length).toBeGreaterThan(10);
    expect(streams.length).toBeGreaterThan(300);
  });
});
