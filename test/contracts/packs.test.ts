import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cassette } from '../../src/cassette/index.js';
import '../../src/families/index.js';
import {
  type CheckedEvent,
  checkEvents,
  findPack,
  type Pack,
  type Rule,
  registeredPacks,
  renderJunit,
  renderText,
  type VerifyReport,
  verifyCassette,
} from '../../src/contracts/index.js';
import '../../src/vitest/index.js';

/**
 * An event that a selector matches: its first type (`a|b`), a made-up one for `*` or a prefix (`client:*`), and
 * every condition met (`[path=value]` with the first value, `[path]` with any value there).
 */
function eventFor(selector: string, extra: Record<string, unknown> = {}): CheckedEvent {
  const m = /^(\[DONE\]|[^[\]]+)((?:\[[^\]]+\])*)$/.exec(selector);
  const first = m?.[1] === '[DONE]' ? '[DONE]' : (m?.[1]?.split('|')[0] as string);
  const type = first === '*' ? 'zz.other' : first.endsWith('*') ? `${first.slice(0, -1)}zz` : first;
  const data: Record<string, unknown> = structuredClone(extra);
  for (const [, path, value] of (m?.[2] ?? '').matchAll(/\[([^=\]]+)(?:=([^\]]*))?\]/g))
    setPath(data, path as string, value === undefined ? 'present' : value.split('|')[0]);
  return { type, data };
}

const unrelated: CheckedEvent = { type: 'zz.unrelated', data: {} };

function setPath(data: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = data;
  // A field a selector only needs present ('present') becomes an object when a deeper path (a scope key) goes through it.
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts.at(-1) as string] = value;
}

/** The smallest sequence that breaks a rule, and the index where it breaks. */
function minimalViolation(rule: Rule): [CheckedEvent[], number] {
  switch (rule.kind) {
    case 'precedes':
      return [[eventFor(rule.later)], 0];
    case 'exactlyOne':
      return [[eventFor(rule.of[0] as string), eventFor(rule.of[0] as string)], 1];
    case 'atMostOne':
      return [[eventFor(rule.of), eventFor(rule.of)], 1];
    case 'terminal':
      return [[eventFor(rule.of[0] as string), unrelated], 1];
    case 'pairedBy':
      return [[eventFor(rule.start, { [rule.key.split('.')[0] as string]: rule.key.includes('.') ? { id: 'x1' } : 'x1' })], 0];
    case 'never':
      return [[eventFor(rule.after), eventFor(rule.event)], 1];
    case 'eventually':
      return [[eventFor(rule.after)], 0];
    case 'firstEvent':
      return [[unrelated], 0];
    case 'framing':
      return [[{ ...unrelated, id: '1', retry: 5, comment: ' c' }], 0];
    case 'progression': {
      // The later stage first, then an earlier one for the same key: the second moves back.
      const at = (stage: number) => {
        const e = eventFor(rule.event);
        setPath(e.data as Record<string, unknown>, rule.key.split('|')[0] as string, 'k1');
        setPath(e.data as Record<string, unknown>, rule.field.split('|')[0] as string, rule.stages[stage]?.[0]);
        return e;
      };
      return [[at(1), at(0)], 1];
    }
    case 'assembles': {
      // Two pieces, then a whole text for the same key that is not what they add up to.
      const piece = (text: string) => {
        const e = eventFor(rule.delta);
        setPath(e.data as Record<string, unknown>, rule.deltaKey, 'k1');
        setPath(e.data as Record<string, unknown>, rule.deltaField, text);
        return e;
      };
      const whole = eventFor(rule.whole);
      setPath(whole.data as Record<string, unknown>, rule.wholeKey, 'k1');
      // A whole text the pieces miss; or, for pieces that must parse, pieces that join to no JSON document.
      if (rule.wholeField === undefined) return [[piece(':1}'), piece('{"a"'), whole], 2];
      setPath(whole.data as Record<string, unknown>, rule.wholeField, 'Hello world');
      return [[piece('world '), piece('Hello'), whole], 2];
    }
    case 'sequence': {
      const at = (n: number) => {
        const e = eventFor('zz.numbered');
        setPath(e.data as Record<string, unknown>, rule.field, n);
        return e;
      };
      return rule.start === undefined ? [[at(5), at(5)], 1] : [[at(rule.start + 1)], 0];
    }
  }
}

/** The events in the scope named `key` of a scoped rule (its first path), left as they are for one that has none. */
const inScope = (rule: Rule, key: string, events: CheckedEvent[]): CheckedEvent[] =>
  rule.by === undefined
    ? events
    : events.map((e) => {
        const data = structuredClone(e.data) as Record<string, unknown>;
        setPath(data, rule.by?.split('|')[0] as string, key);
        return { ...e, data };
      });

/**
 * Events that keep a rule by themselves, placed before and after another
 * scope's violation: where they would hide it if scopes were mixed (an earlier
 * event for `precedes`, a later one for `eventually`), they do.
 */
function fineNeighbours(rule: Rule): { before: CheckedEvent[]; after: CheckedEvent[] } {
  switch (rule.kind) {
    case 'precedes':
      return { before: [eventFor(rule.earlier)], after: [] };
    case 'eventually':
      return { before: [], after: [eventFor(rule.event)] };
    case 'never':
      return { before: [eventFor(rule.event)], after: [] };
    case 'exactlyOne':
    case 'terminal':
      return { before: [eventFor(rule.of[0] as string)], after: [] };
    case 'progression': {
      const [events] = minimalViolation(rule);
      return { before: [...events].reverse(), after: [] };
    }
    default:
      return { before: [], after: [] };
  }
}

const violationsOf = (pack: Pack, rule: Rule, events: CheckedEvent[]) =>
  checkEvents(events, { ...pack, payloads: {}, rules: [rule] }, { cassette: 't', interaction: 1 }).flatMap((r) => r.violations);

describe('built-in packs', () => {
  const cases = registeredPacks().flatMap((pack) =>
    pack.rules.map((rule) => [`${pack.name} ${rule.name} (${rule.source})`, pack, rule] as const),
  );
  it.each(cases)('catches a minimal violation of %s at the right event', (_name, pack, rule) => {
    const [events, index] = minimalViolation(rule);
    const found = violationsOf(pack, rule, inScope(rule, 's1', events));
    expect(found.map((v) => [v.rule, v.eventIndex])).toContainEqual([rule.name, index]);
  });

  const scoped = cases.filter(([, , rule]) => rule.by !== undefined);
  it('scopes the rules of sessions and threads: opencode by session, codex by thread, turn or item', () => {
    expect(scoped.map(([name]) => name.split(' (')[0])).toEqual(
      expect.arrayContaining([
        'opencode/events no-tool-result-after-idle',
        'opencode/events text-settles-in-idle',
        'codex/app-server deltas-add-up',
        'codex/app-server turn-ends',
      ]),
    );
  });

  it.each(scoped)('catches a violation of %s within one scope while another scope is fine', (_name, pack, rule) => {
    const [events, index] = minimalViolation(rule);
    const { before, after } = fineNeighbours(rule);
    const other = [...inScope(rule, 's2', before), ...inScope(rule, 's2', after)];
    expect(violationsOf(pack, rule, other)).toEqual([]);
    const mixed = [...inScope(rule, 's2', before), ...inScope(rule, 's1', events), ...inScope(rule, 's2', after)];
    const found = violationsOf(pack, rule, mixed);
    expect(found.map((v) => [v.rule, v.eventIndex])).toContainEqual([rule.name, index + before.length]);
    expect(found.every((v) => v.eventIndex >= before.length && v.eventIndex < before.length + events.length)).toBe(true);
  });

  it('every rule has a name, a one-line description and a source', () => {
    for (const pack of registeredPacks()) {
      expect(new Set(pack.rules.map((r) => r.name)).size).toBe(pack.rules.length);
      for (const r of pack.rules) {
        expect(r.description).not.toMatch(/\n/);
        expect(r.source.length).toBeGreaterThan(5);
      }
    }
    expect(registeredPacks().map((p) => p.name)).toEqual([
      'omnigent/stream',
      'omnigent/native-tui',
      'omnigent/full-server',
      'hermes/session-stream',
      'hermes/runs',
      'openai/responses',
      'hermes/responses',
      'openai/chat-completions',
      'codex/app-server',
      'opencode/events',
      'mcp/streamable-http',
      'ag-ui/events',
      'a2a/jsonrpc',
      'anthropic/messages',
    ]);
  });
});

const cid = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const ev = (type: string, data: Record<string, unknown> = {}) => ({
  event: type,
  data: JSON.stringify({ sequence_number: null, type, ...data }),
});
const status = (s: string) => ev('session.status', { conversation_id: cid, status: s });
const response = (s: string) => ({ response: { id: 'resp_1', status: s, model: 'claude-native-ui' } });
// What each type of item carries (the pack asks for it): a message its role and content, a call its id, name and arguments.
const ITEM_FIELDS: Record<string, Record<string, unknown>> = {
  message: { role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] },
  function_call: { call_id: 'call_1', name: 'list_files', arguments: '{}' },
};
const item = (type: string) => ev('response.output_item.done', { item: { id: 'i1', type, ...ITEM_FIELDS[type] } });

/** A legal native-tui turn (trace A of the reference), with optional parts. */
function legalTurn(o: { deltas: number; flaps: number; deny: boolean }) {
  return [
    ev('response.in_progress', response('in_progress')),
    ev('response.completed', response('completed')),
    ev('session.input.consumed', { data: { item_id: 'u1', type: 'message' } }),
    status('running'),
    ...Array.from({ length: o.flaps }, (_, i) => (i % 2 ? status('running') : status('idle'))),
    ...Array.from({ length: o.deltas }, (_, i) => ev('response.output_text.delta', { delta: `w${i}` })),
    item('message'),
    ...(o.deny ? [item('function_call'), ev('response.policy_denied', { conversation_id: cid, reason: 'r', phase: 'tool_call' })] : []),
    status('idle'),
  ];
}

describe('omnigent/native-tui on whole turns', () => {
  const turnArb = fc.record({ deltas: fc.nat(4), flaps: fc.nat(2).map((n) => n * 2), deny: fc.boolean() }).map(legalTurn);

  it('accepts every legal turn', () => {
    fc.assert(
      fc.property(turnArb, (turn) => {
        expect(turn).toSatisfyContract('omnigent/native-tui');
      }),
      { numRuns: 200 },
    );
  });

  it('rejects a legal turn after a single drop, duplicate or swap of a constrained event', () => {
    const mutations: [string, (t: ReturnType<typeof legalTurn>) => ReturnType<typeof legalTurn>][] = [
      ['drop in_progress', (t) => t.slice(1)],
      ['duplicate in_progress', (t) => [t[0], ...t] as ReturnType<typeof legalTurn>],
      ['swap in_progress and completed', (t) => [t[1], t[0], ...t.slice(2)] as ReturnType<typeof legalTurn>],
      // A mid-turn flap leaves an earlier idle (I26 allows it), so every idle goes.
      ['drop every idle', (t) => t.filter((e) => !e.data.includes('"status":"idle"'))],
      [
        'move the first output item before completed',
        (t) => {
          const i = t.findIndex((e) => e.event === 'response.output_item.done');
          return [t[0], t[i], ...t.slice(1, i), ...t.slice(i + 1)] as ReturnType<typeof legalTurn>;
        },
      ],
    ];
    fc.assert(
      fc.property(turnArb, fc.constantFrom(...mutations), (turn, [, mutate]) => {
        expect(mutate(turn)).not.toSatisfyContract('omnigent/native-tui');
      }),
      { numRuns: 200 },
    );
  });
});

function cassetteOf(list: ({ event: string; data: string } | undefined)[]): Cassette {
  const events = list.filter((e): e is { event: string; data: string } => e !== undefined);
  return {
    version: 1,
    meta: { recorder: 't', target: 'http://x', recordedAt: 'now', packs: ['omnigent/stream', 'omnigent/native-tui'] },
    interactions: [
      {
        seq: 1,
        request: { method: 'GET', path: `/v1/sessions/${cid}/stream`, headers: {} },
        response: {
          status: 200,
          headers: {},
          stream: { end: 'client-closed', events: events.map((e, i) => ({ at: i, after: i === 0 ? 1 : 2, ...e })) },
        },
        timing: { start: 0 },
      },
      {
        seq: 2,
        request: { method: 'POST', path: `/v1/sessions/${cid}/events`, headers: {}, body: { json: { type: 'message' } } },
        response: { status: 202, headers: {} },
        timing: { start: 1 },
      },
    ],
  };
}

const report = (c: Cassette): VerifyReport => {
  const checked = verifyCassette(c, 'cassettes/x/deny.yaml');
  return {
    cassettes: [checked],
    violations: checked.rules.flatMap((r) => r.violations),
    notObserved: checked.rules.flatMap((r) => r.notObserved),
  };
};

describe('reports', () => {
  it('names each pack with the payload violations it finds, also where two packs share their schemas and check once', () => {
    const turn = legalTurn({ deltas: 2, flaps: 0, deny: false });
    // Both omnigent packs check payloads against the same schemas: a delta with no text breaks both, each by name.
    const bad = turn.map((e) =>
      e.event === 'response.output_text.delta' ? { ...e, data: e.data.replace(/"delta":"w\d"/, '"delta":3') } : e,
    );
    const payload = report(cassetteOf(bad)).violations.filter((v) => v.rule === 'payload-schema');
    expect(payload.map((v) => [v.pack, v.eventIndex, v.message])).toEqual(
      ['omnigent/stream', 'omnigent/native-tui'].flatMap((pack) =>
        [4, 5].map((i) => [pack, i, 'response.output_text.delta data.delta: Invalid input: expected string, received number']),
      ),
    );
  });
  it('shows where response.output_item.done came before response.completed', () => {
    const turn = legalTurn({ deltas: 0, flaps: 0, deny: false });
    const bad = [ev('session.heartbeat'), turn[0], turn[4], turn[1], turn[2], turn[3], turn[5]] as { event: string; data: string }[];
    expect(renderText(report(cassetteOf(bad)))).toMatchInlineSnapshot(`
      "✗ cassettes/x/deny.yaml #1 event 2: omnigent/native-tui output-after-completed: response.output_item.done without an earlier response.completed
               0 session.heartbeat
               1 response.in_progress
          >    2 response.output_item.done
               3 response.completed
               4 session.input.consumed
      ✗ cassettes/x/deny.yaml #1 event 2: omnigent/native-tui input-before-output: response.output_item.done without an earlier session.input.consumed
               0 session.heartbeat
               1 response.in_progress
          >    2 response.output_item.done
               3 response.completed
               4 session.input.consumed
      checked 1 cassettes, 1 streams, 7 events against 19 rules: 2 violations"
    `);
  });

  it("shows a text delta after the harness's session.interrupted, and lets one in flight after the route's pass", () => {
    const turn = legalTurn({ deltas: 0, flaps: 0, deny: false });
    const bad = [
      ev('session.heartbeat'),
      turn[0],
      turn[1],
      turn[2],
      turn[3],
      // As the real codex-native turn (0.19.1) sends it: the route's interrupt, a delta in flight, the harness's own.
      ev('session.interrupted', { data: { requested_at: 1, response_id: null } }),
      ev('response.output_text.delta', { delta: 'in flight' }),
      ev('session.interrupted', { data: { requested_at: 1, response_id: 'codex_1' } }),
      ev('response.output_text.delta', { delta: 'late' }),
      status('idle'),
    ];
    expect(renderText(report(cassetteOf(bad)))).toMatchInlineSnapshot(`
      "✗ cassettes/x/deny.yaml #1 event 8: omnigent/native-tui quiet-after-interrupt: response.output_text.delta after session.interrupted[data.response_id]
               6 response.output_text.delta
               7 session.interrupted
          >    8 response.output_text.delta
               9 session.status
      checked 1 cassettes, 1 streams, 10 events against 19 rules: 1 violations"
    `);
  });

  it('shows a policy_denied with no tool call before it, and a second in_progress', () => {
    const turn = legalTurn({ deltas: 0, flaps: 0, deny: false });
    const bad = [
      ev('session.heartbeat'),
      turn[0],
      turn[1],
      ev('response.policy_denied', { conversation_id: cid, reason: 'r', phase: 'tool_call' }),
      turn[0],
      turn[2],
      turn[3],
      turn[4],
      turn[5],
    ];
    expect(renderText(report(cassetteOf(bad)))).toMatchInlineSnapshot(`
      "✗ cassettes/x/deny.yaml #1 event 4: omnigent/native-tui one-in-progress: a second response.in_progress; expected exactly one of response.in_progress
               2 response.completed
               3 response.policy_denied
          >    4 response.in_progress
               5 session.input.consumed
               6 session.status
      ✗ cassettes/x/deny.yaml #1 event 4: omnigent/native-tui no-restart: response.in_progress after response.completed
               2 response.completed
               3 response.policy_denied
          >    4 response.in_progress
               5 session.input.consumed
               6 session.status
      ✗ cassettes/x/deny.yaml #1 event 3: omnigent/native-tui denied-after-input: response.policy_denied without an earlier session.input.consumed
               1 response.in_progress
               2 response.completed
          >    3 response.policy_denied
               4 response.in_progress
               5 session.input.consumed
      checked 1 cassettes, 1 streams, 9 events against 19 rules: 3 violations"
    `);
  });

  it('names the event index and field path of a payload that breaks its schema', () => {
    const bad = [ev('session.heartbeat'), ev('session.status', { conversation_id: cid, status: 'sleeping' })];
    const violations = report(cassetteOf(bad)).violations.filter((v) => v.code === 'payload_invalid');
    expect(violations[0]).toMatchObject({ code: 'payload_invalid', eventIndex: 1, rule: 'payload-schema' });
    expect(violations[0]?.message).toMatch(/^session\.status data\.status: /);
  });

  it('reports unknown event types instead of passing them', () => {
    const found = report(cassetteOf([ev('session.heartbeat'), ev('session.mystery')])).violations.filter((v) => v.code === 'unknown_event');
    expect(found.map((v) => [v.eventIndex, v.message])).toContainEqual([1, 'unknown event type session.mystery: not in omnigent/stream']);
  });

  it('writes JUnit that is well-formed XML, one testcase per cassette and rule', () => {
    const checked = report(cassetteOf([ev('session.heartbeat'), ev('response.output_item.done', { item: { id: 'i', type: 'message' } })]));
    const xml = renderJunit(checked);
    const summary = execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import sys, xml.dom.minidom as m; d = m.parseString(sys.stdin.read()); print(len(d.getElementsByTagName("testcase")), len(d.getElementsByTagName("failure")))',
      ],
      { input: xml },
    ).toString();
    const rules = findPack('omnigent/stream').rules.length + findPack('omnigent/native-tui').rules.length + 2;
    const failing = checked.cassettes[0]?.rules.filter((r) => r.violations.length > 0).length;
    expect(failing).toBeGreaterThan(0);
    expect(summary.trim()).toBe(`${rules} ${failing}`);
  });
});

describe('omnigent payloads: an output item carries what its type means', () => {
  const pack = findPack('omnigent/full-server');
  const done = (item: Record<string, unknown>) => ({ sequence_number: 6, type: 'response.output_item.done', item });
  const schema = pack?.payloads?.['response.output_item.done'];
  it("accepts the real full server's items and refuses one that dropped what a client reads", () => {
    const output = { id: 'fco_1', type: 'function_call_output', call_id: 'call_1', output: '{"error": "Denied by policy: p"}' };
    expect(schema?.safeParse(done(output)).success).toBe(true);
    // Where 0.19.1 writes a policy denial: a variation without it is not one the server sends (bench fuzz, seed 7).
    const { output: _, ...noOutput } = output;
    expect(schema?.safeParse(done(noOutput)).success).toBe(false);
    expect(schema?.safeParse(done({ id: 'fc_1', type: 'function_call', call_id: 'c', name: 'ls' })).success).toBe(false);
    expect(schema?.safeParse(done({ id: 'm1', type: 'message', role: 'assistant' })).success).toBe(false);
    // An item type the pack does not know keeps only its id and type.
    expect(schema?.safeParse(done({ id: 'r1', type: 'reasoning' })).success).toBe(true);
  });
});
