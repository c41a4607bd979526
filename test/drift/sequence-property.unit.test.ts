import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/families/index.js';
import { type Cassette, loadCassette, type SseItem } from '../../src/cassette/index.js';
import { compareProfiles, DEFAULT_DRIFT_CONFIG } from '../../src/drift/index.js';
import { addToProfile, emptyProfile } from '../../src/drift/profile.js';
import { loadManifest } from '../../src/manifest/index.js';

/**
 * For a recorded turn and a random edit of its event sequence, drift reports
 * the edit; for a reordering the server's noise rules allow, it reports nothing.
 */

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const FAMILY_MANIFEST = await loadManifest(join(CASSETTES, 'claude-native', 'manifest.yaml'));
// Housekeeping drift leaves out (the config's defaults and the packs' noise): editing it is no change.
const IGNORED = new Set([...DEFAULT_DRIFT_CONFIG.ignoreEventTypes, 'session.heartbeat', 'session.terminal.activity']);

/**
 * A family's recording, profiled as drift profiles its folder: with the family's manifest, so its probes' own
 * closes are compared as recorded (a folder no family made forgives what came past the close: the last test).
 */
const profileOf = (cassette: Cassette) => {
  const profile = addToProfile(emptyProfile(), 'probe.yaml', cassette, DEFAULT_DRIFT_CONFIG);
  profile.manifest = FAMILY_MANIFEST;
  return profile;
};

/** The cassette with its turn's events (those caused by the turn's POST) replaced by `edit` of them. */
function withTurn(cassette: Cassette, edit: (turn: SseItem[]) => SseItem[]): Cassette {
  const post = cassette.interactions.find((i) => i.request.method === 'POST' && i.request.path.endsWith('/events'));
  const copy = structuredClone(cassette);
  // The stream open while the turn ran (the teardown's opens after it).
  for (const i of copy.interactions.filter((x) => post && x.seq < post.seq)) {
    const events = i.response?.stream?.events;
    if (!events || !post) continue;
    const from = events.findIndex((e) => e.after >= post.seq);
    if (from === -1) continue;
    events.splice(from, events.length - from, ...edit(events.slice(from)));
  }
  return copy;
}

const typeOf = (e: SseItem) => e.event ?? 'message';
/** The turn as a client reads it, written independently of drift: ignored types out, runs of deltas folded. */
const readable = (turn: SseItem[]) =>
  turn
    .map(typeOf)
    .filter((t) => !IGNORED.has(t))
    .filter((t, k, all) => !(t.endsWith('delta') && all[k - 1] === t))
    .join(' ');

type Edit =
  | { kind: 'delete' | 'duplicate'; at: number }
  | { kind: 'move' | 'insert'; at: number; to: number }
  | { kind: 'enum'; at: number };

function apply(turn: SseItem[], edit: Edit): SseItem[] {
  const out = [...turn];
  const at = edit.at % out.length;
  const event = out[at] as SseItem;
  if (edit.kind === 'delete') out.splice(at, 1);
  else if (edit.kind === 'duplicate') out.splice(at + 1, 0, { ...event });
  else if (edit.kind === 'insert') out.splice(edit.to % (out.length + 1), 0, { ...event });
  else if (edit.kind === 'move') {
    out.splice(at, 1);
    out.splice(edit.to % (out.length + 1), 0, event);
  } else {
    const data = JSON.parse(event.data ?? '{}') as Record<string, unknown>;
    out[at] = { ...event, data: JSON.stringify({ ...data, status: 'zz_changed' }) };
  }
  return out;
}

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const), at: fc.nat(200) }),
  fc.record({ kind: fc.constantFrom('move' as const, 'insert' as const), at: fc.nat(200), to: fc.nat(200) }),
  fc.record({ kind: fc.constant('enum' as const), at: fc.nat(200) }),
);

describe('drift compares every occurrence, in order', () => {
  it('reports any edit of a recorded turn that a client could see: insert, delete, duplicate, move, a changed enum value', async () => {
    const files = ['tool_calling.yaml', 'streaming.yaml', 'policy_deny.yaml', 'cost_tracking.yaml'];
    const cassettes = await Promise.all(files.map((f) => loadCassette(join(CASSETTES, 'claude-native', f))));
    fc.assert(
      fc.property(fc.nat(files.length - 1), editArb, (k, edit) => {
        const base = cassettes[k] as Cassette;
        let before: SseItem[] = [];
        let after: SseItem[] = [];
        const cand = withTurn(base, (turn) => {
          before = turn;
          after = apply(turn, edit);
          return after;
        });
        // An enum edit on a field drift knows as a closed set (a session.status's status); any other edit a client could see.
        if (edit.kind === 'enum') fc.pre(typeOf(before[edit.at % before.length] as SseItem) === 'session.status');
        else fc.pre(readable(before) !== readable(after));
        const findings = compareProfiles('h', profileOf(base), profileOf(cand));
        expect(findings.length, `${edit.kind}: ${readable(before)}\n -> ${readable(after)}`).toBeGreaterThan(0);
      }),
      { numRuns: 120 },
    );
  });

  it('reports nothing for a reordering or an event the noise rules allow', async () => {
    const base = await loadCassette(join(CASSETTES, 'openai-agents-real', 'basic_turn.yaml'));
    // The real server's own cancelled response, which it sends after an interrupt in some runs only.
    const interrupt = await loadCassette(join(CASSETTES, 'openai-agents-real', 'interrupt.yaml'));
    const cancelled = interrupt.interactions.flatMap((i) => i.response?.stream?.events ?? []).find((e) => e.event === 'response.cancelled');
    if (!cancelled) throw new Error('interrupt.yaml has no response.cancelled to copy');
    const noise = { unordered: [['session.status', 'session.input.consumed']] as const, sometimes: ['response.cancelled'] };
    const unordered = (a: string, b: string) =>
      (a === 'session.status' && b === 'session.input.consumed') || (b === 'session.status' && a === 'session.input.consumed');
    fc.assert(
      fc.property(fc.array(fc.nat(200), { maxLength: 4 }), fc.option(fc.nat(200)), (swaps, cancelledAt) => {
        const cand = withTurn(base, (turn) => {
          const out = [...turn];
          for (const s of swaps) {
            const at = s % Math.max(1, out.length - 1);
            const [a, b] = [out[at], out[at + 1]];
            if (a && b && unordered(typeOf(a), typeOf(b))) [out[at], out[at + 1]] = [b, a];
          }
          if (cancelledAt !== null) {
            const at = cancelledAt % (out.length + 1);
            const like = out[Math.max(0, at - 1)] as SseItem;
            out.splice(at, 0, { ...cancelled, at: like.at, after: like.after });
          }
          return out;
        });
        expect(compareProfiles('h', profileOf(base), profileOf(cand), noise)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
  it("leaves a field whose value is the server's race to the noise that names it, and reports it otherwise", async () => {
    // The real omnigent's native path reports MCP start-up as it goes: a stream that connects early catches `starting`.
    const base = await loadCassette(join(CASSETTES, 'codex-native-real', 'streaming.yaml'));
    const cand = structuredClone(base);
    for (const i of cand.interactions)
      for (const e of i.response?.stream?.events ?? [])
        if (e.event === 'session.mcp_startup') e.data = e.data?.replace('"status": "ready"', '"status": "starting"');
    const plain = { unordered: [], sometimes: [] };
    expect(compareProfiles('h', profileOf(base), profileOf(cand), plain).map((f) => f.message)).toEqual([
      'field servers.omnigent.status: ready -> starting (values were ready)',
    ]);
    const raced = { ...plain, racedFields: { 'session.mcp_startup': ['servers.omnigent'] } };
    expect(compareProfiles('h', profileOf(base), profileOf(cand), raced)).toEqual([]);
  });
  it("leaves a map entry that is there or not by the server's race to the noise that names it, and reports it otherwise", async () => {
    // omnigent settles its MCP start-up round by dropping a server codex has not reported to it yet: `servers: {}`.
    const base = await loadCassette(join(CASSETTES, 'codex-native-real', 'streaming.yaml'));
    const cand = structuredClone(base);
    for (const i of cand.interactions)
      for (const e of i.response?.stream?.events ?? [])
        if (e.event === 'session.mcp_startup') e.data = e.data?.replace(/"servers": \{.*\}\}$/, '"servers": {}}');
    const plain = { unordered: [], sometimes: [] };
    expect(compareProfiles('h', profileOf(base), profileOf(cand), plain).map((f) => f.message)).toEqual(['field servers.omnigent removed']);
    const raced = { ...plain, racedFields: { 'session.mcp_startup': ['servers.omnigent'] } };
    expect(compareProfiles('h', profileOf(base), profileOf(cand), raced)).toEqual([]);
    // Only what the noise names: another server's entry appearing is still a change.
    const other = structuredClone(base);
    for (const i of other.interactions)
      for (const e of i.response?.stream?.events ?? [])
        if (e.event === 'session.mcp_startup')
          e.data = e.data?.replace('"servers": {', '"servers": {"docs": {"status": "ready", "error": null}, ');
    expect(compareProfiles('h', profileOf(base), profileOf(other), raced).map((f) => f.message)).toEqual(['field servers.docs added']);
  });

  it('in a folder no family recorded, forgives what a client-closed stream carries past where the baseline client stopped, and nothing else', async () => {
    const base = await loadCassette(join(CASSETTES, 'claude-native', 'basic_turn.yaml'));
    const stream = (c: Cassette) => c.interactions.find((i) => i.response?.stream?.end === 'client-closed')?.response?.stream;
    expect(stream(base)).toBeDefined();
    const loose = (c: Cassette) => addToProfile(emptyProfile(), 'flow.yaml', c, DEFAULT_DRIFT_CONFIG);
    const edited = (change: (events: SseItem[]) => void) => {
      const copy = structuredClone(base);
      change((stream(copy) as NonNullable<ReturnType<typeof stream>>).events);
      return compareProfiles('h', loose(base), loose(copy), { unordered: [], sometimes: [] }).map((f) => f.message);
    };
    // The server got one more event out before the close reached it: the race of the close.
    expect(edited((events) => events.push({ ...(events.at(-2) as SseItem) }))).toEqual([]);
    // The last event the baseline client stopped on is gone: a change, reported.
    expect(edited((events) => events.pop())).not.toEqual([]);
  });
});
