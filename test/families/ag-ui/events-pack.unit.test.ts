import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type Cassette, loadCassette } from '../../../src/cassette/index.js';
import { choosePacks, registerPacks, verifyCassette } from '../../../src/contracts/index.js';
import { agUiEvents } from '../../../src/families/ag-ui/index.js';
import { type AgUiEvent, eventsOf, runsOf, setEvents } from './ag-ui-events.js';

/**
 * The `ag-ui/events` pack on the committed AG-UI recordings: it holds on every one, is chosen by their traffic alone,
 * and each rule fails on one of them changed in exactly the way the rule forbids.
 */
const DIR = 'cassettes/ag-ui';
const probe = async (name: string): Promise<Cassette> => structuredClone(await loadCassette(`${DIR}/${name}.yaml`));

function broken(c: Cassette): string[] {
  return verifyCassette(c, 'edited.yaml', [agUiEvents]).rules.flatMap((r) => (r.violations.length > 0 ? [r.rule] : []));
}

/** Edits the first run's events of a probe's recording. */
const edit = (name: string, change: (events: AgUiEvent[]) => AgUiEvent[]) => async (): Promise<Cassette> => {
  const c = await probe(name);
  const run = runsOf(c)[0];
  if (!run) throw new Error(`${name} has no run`);
  setEvents(run, change(eventsOf(run)));
  return c;
};

const at = (events: AgUiEvent[], type: string) => events.findIndex((e) => e.type === type);
const without = (events: AgUiEvent[], type: string) => events.filter((_, i) => i !== at(events, type));
/** The events with `e` put just before the first event of `type`. */
const before = (events: AgUiEvent[], type: string, e: AgUiEvent) => [
  ...events.slice(0, at(events, type)),
  e,
  ...events.slice(at(events, type)),
];
/** The first event of `type` moved to just after the first of `anchor` (or before it). */
function move(events: AgUiEvent[], type: string, anchor: string, place: 'after' | 'before'): AgUiEvent[] {
  const moved = events[at(events, type)] as AgUiEvent;
  const rest = without(events, type);
  const i = at(rest, anchor) + (place === 'after' ? 1 : 0);
  return [...rest.slice(0, i), moved, ...rest.slice(i)];
}
const reasoning = (type: string) => ({ type, messageId: 'reason_1', ...(type.endsWith('START') ? { role: 'reasoning' } : {}) });

/** Each rule, and the edit of a recording that breaks it. */
const BREAKS: Record<string, () => Promise<Cassette>> = {
  'run-started-first': edit('run', (e) => without(e, 'RUN_STARTED')),
  'one-run-per-request': edit('run', (e) => [...e.slice(0, -1), { ...(e[0] as AgUiEvent) }, e.at(-1) as AgUiEvent]),
  'one-terminal-last': edit('run', (e) => without(e, 'RUN_FINISHED')),
  'text-message-closed': edit('run', (e) => without(e, 'TEXT_MESSAGE_END')),
  'text-message-content-after-start': edit('run', (e) => move(e, 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_START', 'before')),
  'text-message-no-content-after-end': edit('run', (e) => move(e, 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'after')),
  'tool-call-closed': edit('backend_tool', (e) => without(e, 'TOOL_CALL_END')),
  'tool-call-content-after-start': edit('backend_tool', (e) => move(e, 'TOOL_CALL_ARGS', 'TOOL_CALL_START', 'before')),
  'tool-call-no-content-after-end': edit('backend_tool', (e) => move(e, 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'after')),
  'tool-result-for-a-call': edit('backend_tool', (e) =>
    e.map((x) => (x.type === 'TOOL_CALL_RESULT' ? { ...x, toolCallId: 'call_never_made' } : x)),
  ),
  'step-closed': edit('run', (e) => without(e, 'STEP_FINISHED')),
  'reasoning-closed': edit('run', (e) => before(e, 'TEXT_MESSAGE_START', reasoning('REASONING_START'))),
  'reasoning-message-closed': edit('run', (e) => before(e, 'TEXT_MESSAGE_START', reasoning('REASONING_MESSAGE_START'))),
  'reasoning-message-content-after-start': edit('run', (e) =>
    before(e, 'TEXT_MESSAGE_START', { ...reasoning('REASONING_MESSAGE_CONTENT'), delta: 'Thinking' }),
  ),
  'reasoning-message-no-content-after-end': edit('run', (e) =>
    before(e, 'TEXT_MESSAGE_START', reasoning('REASONING_MESSAGE_START')).toSpliced(
      at(e, 'TEXT_MESSAGE_START') + 1,
      0,
      reasoning('REASONING_MESSAGE_END'),
      { ...reasoning('REASONING_MESSAGE_CONTENT'), delta: 'late' },
    ),
  ),
  'subagent-closed': edit('run', (e) =>
    before(e, 'TEXT_MESSAGE_START', { type: 'SUBAGENT_STARTED', subagentRunId: 'sub_1', name: 'helper' }),
  ),
  'state-delta-after-snapshot': edit('state', (e) => without(e, 'STATE_SNAPSHOT')),
  'activity-delta-after-snapshot': edit('run', (e) =>
    before(e, 'TEXT_MESSAGE_START', { type: 'ACTIVITY_DELTA', messageId: 'act_1', activityType: 'search', patch: [] }),
  ),
};

describe('ag-ui/events', () => {
  it('holds on every committed AG-UI recording (the simulator, pydantic-ai, LangGraph), and is chosen for them by their traffic alone', async () => {
    registerPacks([agUiEvents]);
    const dirs = [DIR, 'cassettes/ag-ui-pydantic-real', 'cassettes/ag-ui-langgraph-real'];
    const files = [];
    for (const dir of dirs)
      files.push(...(await readdir(dir)).filter((f) => f.endsWith('.yaml') && f !== 'manifest.yaml').map((f) => `${dir}/${f}`));
    expect(files.length).toBeGreaterThanOrEqual(18);
    for (const file of files) {
      const c = await loadCassette(file);
      expect(broken(c), file).toEqual([]);
      const { meta: _meta, ...unnamed } = c;
      if (runsOf(c).length > 0)
        expect(
          choosePacks({ ...unnamed, meta: { ...c.meta, packs: [] } }).chosen.map((p) => p.pack),
          file,
        ).toEqual(['ag-ui/events']);
    }
  });

  it('lets a run that fails leave what it opened: RUN_ERROR ends it where RUN_FINISHED could not', async () => {
    const cut = (end: AgUiEvent) => edit('run', (e) => [...e.slice(0, at(e, 'TEXT_MESSAGE_CONTENT') + 1), end]);
    expect(broken(await cut({ type: 'RUN_ERROR', message: 'model unreachable' })())).toEqual([]);
    expect(broken(await cut({ type: 'RUN_FINISHED', threadId: 'thread-run', runId: 'run-run-1' })())).toEqual([
      'text-message-closed',
      'step-closed',
    ]);
  });

  it('has a recording that breaks each rule', () => {
    expect(Object.keys(BREAKS).sort()).toEqual(agUiEvents.rules.map((r) => r.name).sort());
  });

  for (const [rule, make] of Object.entries(BREAKS))
    it(`fails ${rule} on a recording that breaks it`, async () => {
      expect(broken(await make())).toContain(rule);
    });
});
