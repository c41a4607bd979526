import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, loadCassette, serializeCassette, type WsFrame } from '../../src/cassette/index.js';
import { findPack, verifyCassette } from '../../src/contracts/index.js';
import '../../src/families/index.js';
import { runBench } from '../helpers/cli.js';

const COMMITTED = new URL('../../cassettes/', import.meta.url).pathname;

/** JSON as Python's `json.dumps` writes it by default: a space after each `,` and `:` (omnigent's transports do). */
function pythonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonDumps(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** Every client frame of the cassette's sessions as Python would have sent it: kept as `text`, as the recorder keeps it. */
function fromPython(cassette: Cassette): Cassette {
  const frame = (f: WsFrame): WsFrame => {
    if (f.from !== 'client' || f.json === undefined) return f;
    const { json, ...rest } = f;
    return { ...rest, text: pythonDumps(json) };
  };
  const interactions = cassette.interactions.map((i): Interaction => {
    const ws = i.response?.websocket;
    return ws && i.response ? { ...i, response: { ...i.response, websocket: { ...ws, frames: ws.frames.map(frame) } } } : i;
  });
  return { ...cassette, interactions };
}

async function verifyFile(cassette: Cassette, name: string, ...flags: string[]) {
  const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-clients-')), name);
  await writeFile(file, serializeCassette(cassette));
  return runBench(['verify', file, ...flags]);
}

describe('contracts read what a client sent, not how it was stored', () => {
  it('a codex session whose client writes JSON with spaces verifies clean, as the compact one does', async () => {
    const original = await loadCassette(join(COMMITTED, 'codex-app-server', 'text_turn.yaml'));
    const python = fromPython(original);
    const frames = python.interactions.flatMap((i) => i.response?.websocket?.frames ?? []);
    expect(frames.some((f) => f.from === 'client' && f.text?.includes('": '))).toBe(true);
    const result = await verifyFile(python, 'python-client.yaml');
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/no violations/);
  }, 60_000);

  it('and still fails one that truly breaks a rule: turn/started with no turn/start before it', async () => {
    const python = fromPython(await loadCassette(join(COMMITTED, 'codex-app-server', 'text_turn.yaml')));
    const broken = python.interactions.map((i): Interaction => {
      const ws = i.response?.websocket;
      if (!ws || !i.response) return i;
      const frames = ws.frames.filter((f) => !(f.from === 'client' && f.text?.includes('"method": "turn/start"')));
      return { ...i, response: { ...i.response, websocket: { ...ws, frames } } };
    });
    const result = await verifyFile({ ...python, interactions: broken }, 'no-turn-start.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/codex\/app-server turn-started-after-start/);
  }, 60_000);
});

describe('a client on several connections', () => {
  it("holds turn/started to a turn/start the client sent on another connection first, as omnigent's codex transport does", async () => {
    const cassette = await loadCassette(join(COMMITTED, 'codex-app-server', 'text_turn.yaml'));
    const session = cassette.interactions.find((i) => i.response?.websocket);
    const ws = session?.response?.websocket;
    expect(ws).toBeDefined();
    if (!session || !ws || !session.response) return;
    const isTurnStart = (f: WsFrame) => f.from === 'client' && (f.json as { method?: string } | undefined)?.method === 'turn/start';
    const turnStart = ws.frames.filter(isTurnStart);
    expect(turnStart.length).toBeGreaterThan(0);
    // The thread's connection hears the turn; the turn/start went out on a connection of its own, just before.
    const owner: Interaction = {
      ...session,
      response: { ...session.response, websocket: { ...ws, frames: ws.frames.filter((f) => !isTurnStart(f)) } },
    };
    const sender: Interaction = {
      ...session,
      seq: Math.max(...cassette.interactions.map((i) => i.seq)) + 1,
      response: { ...session.response, websocket: { frames: turnStart, end: 'client-closed' } },
    };
    const split = { ...cassette, interactions: [...cassette.interactions.map((i) => (i === session ? owner : i)), sender] };
    const checked = verifyCassette(split, 'two-connections.yaml');
    expect(checked.rules.find((r) => r.rule === 'turn-started-after-start')?.violations).toEqual([]);
    // Without that other connection the same events break the rule.
    const alone = verifyCassette({ ...split, interactions: split.interactions.filter((i) => i !== sender) }, 'alone.yaml');
    expect(alone.rules.find((r) => r.rule === 'turn-started-after-start')?.violations.length).toBeGreaterThan(0);
  });
});

describe('a stream the client closed early', () => {
  /** The opencode session's event stream with everything from its settling status on cut off: no session.idle after the text. */
  async function unsettled(end: 'client-closed' | 'server-closed'): Promise<Cassette> {
    const cassette = await loadCassette(join(COMMITTED, 'opencode-serve', 'text_turn.yaml'));
    const interactions = cassette.interactions.map((i): Interaction => {
      const stream = i.response?.stream;
      if (!stream || !i.response) return i;
      const settle = stream.events.findIndex((e) => e.data?.includes('"status":{"type":"idle"}'));
      expect(settle).toBeGreaterThan(0);
      return { ...i, response: { ...i.response, stream: { events: stream.events.slice(0, settle), end } } };
    });
    return { ...cassette, interactions };
  }

  it('leaves a rule that waits for a later event not observed: counted apart, never a failure', async () => {
    const result = await verifyFile(await unsettled('client-closed'), 'client-closed.yaml');
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/~ .*opencode\/events text-settles-in-idle: not observed: .* never followed by session\.idle/);
    expect(result.stdout).toMatch(/no violations, \d+ not observed/);
  }, 60_000);

  it('judges the same events as broken when the server ended the stream', async () => {
    const result = await verifyFile(await unsettled('server-closed'), 'server-closed.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✗ .*opencode\/events text-settles-in-idle: .* never followed by session\.idle/);
  }, 60_000);

  it('judges them as broken too where the pack says a rule must hold at the close', async () => {
    const pack = findPack('opencode/events');
    expect(pack).toBeDefined();
    if (!pack) return;
    const strict = { ...pack, rules: pack.rules.map((r) => ({ ...r, mustHoldAtClose: true })) };
    const checked = verifyCassette(await unsettled('client-closed'), 'client-closed.yaml', [strict]);
    const settles = checked.rules.find((r) => r.rule === 'text-settles-in-idle');
    expect(settles?.violations.length).toBeGreaterThan(0);
    expect(settles?.notObserved).toEqual([]);
  });
});

describe('a stream the client opened late', () => {
  /**
   * The session's event stream as a second subscriber got it: opened after the prompt was posted, its first events
   * (its status events) already gone by. `after` the prompt (seq 3) when the prompt came first, else first of all.
   */
  async function joinedLate(prompted: boolean): Promise<Cassette> {
    const cassette = await loadCassette(join(COMMITTED, 'opencode-serve', 'text_turn.yaml'));
    const [stream, ...rest] = cassette.interactions;
    const events = stream?.response?.stream?.events ?? [];
    const busy = events.findIndex((e) => e.data?.includes('"status":{"type":"busy"}'));
    expect(busy).toBeGreaterThan(0);
    // Opened after the session's statuses went by (the turn's second busy repeats the first, as opencode sends it).
    const after = events.slice(busy + 1).filter((e) => !e.data?.includes('"type":"session.status"'));
    const late = {
      ...stream,
      response: { ...stream?.response, stream: { events: after, end: 'server-closed' } },
    } as Interaction;
    const renumbered = (prompted ? [...rest, late] : [late, ...rest]).map((i, k) => ({ ...i, seq: k + 1 }));
    return { ...cassette, interactions: renumbered };
  }

  it('leaves an earlier event it could not have seen not observed, for a session named before it opened', async () => {
    const checked = verifyCassette(await joinedLate(true), 'late.yaml');
    const rule = checked.rules.find((r) => r.rule === 'idle-after-status');
    expect(rule?.violations).toEqual([]);
    expect(rule?.notObserved[0]?.message).toMatch(
      /not observed: session\.idle without an earlier .*, but the stream opened after ses_\w+ began/,
    );
  });

  it('still fails a stream that shows an idle with no status before it for a session nothing named before', async () => {
    const checked = verifyCassette(await joinedLate(false), 'first.yaml');
    expect(checked.rules.find((r) => r.rule === 'idle-after-status')?.violations.length).toBeGreaterThan(0);
  });
});
