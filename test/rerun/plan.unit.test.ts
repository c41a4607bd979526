import { describe, expect, it } from 'vitest';
import type { Interaction } from '../../src/cassette/index.js';
import { IssuedValues } from '../../src/rerun/issued.js';
import { planOf } from '../../src/rerun/plan.js';
import { pollCondition } from '../../src/rerun/polls.js';

/** A recorded exchange: its request, its answer (a JSON body, or SSE events at given times) and its timing. */
function exchange(
  seq: number,
  method: string,
  path: string,
  start: number,
  end: number,
  answer: { json?: unknown; events?: number[]; closed?: 'client-closed' | 'proxy-closed' } = {},
): Interaction {
  const stream = answer.events && {
    events: answer.events.map((at) => ({ at, after: seq, event: 'tick', data: '{}' })),
    end: answer.closed ?? ('server-closed' as const),
  };
  return {
    seq,
    request: { method, path, headers: {} },
    response: {
      status: 200,
      headers: {},
      ...(answer.json === undefined ? {} : { body: { json: answer.json } }),
      ...(stream ? { stream } : {}),
    },
    timing: { start, end },
  } as Interaction;
}

describe('the plan of a re-run', () => {
  it('waits for what had ended before a request, and for an open stream as far as it had come', () => {
    const steps = planOf([
      exchange(1, 'POST', '/s', 0, 10),
      exchange(2, 'GET', '/s/events', 12, 100, { events: [15, 40, 80], closed: 'client-closed' }),
      exchange(3, 'POST', '/s/m', 20, 25),
      exchange(4, 'POST', '/s/m2', 50, 55),
      exchange(5, 'DELETE', '/s', 101, 102),
    ]);
    expect(steps.map((s) => [s.interaction.seq, s.waits])).toEqual([
      [1, []],
      [2, [{ seq: 1 }]],
      [3, [{ seq: 1 }, { seq: 2, mark: { type: 'tick', count: 1 } }]],
      [4, [{ seq: 1 }, { seq: 2, mark: { type: 'tick', count: 2 } }, { seq: 3 }]],
      [5, [{ seq: 1 }, { seq: 2 }, { seq: 3 }, { seq: 4 }]],
    ]);
    // Closed by the client after three events, once what had ended before its close has ended again.
    expect(steps[1]?.readTo).toEqual({ kind: 'events', mark: { type: 'tick', count: 3 }, total: 3, after: [3, 4] });
  });

  it('folds back-to-back repeats of one plain request into a poll, with the gap between them', () => {
    const steps = planOf([
      exchange(1, 'GET', '/job', 0, 5, { json: { status: 'running' } }),
      exchange(2, 'GET', '/job', 25, 30, { json: { status: 'running' } }),
      exchange(3, 'GET', '/job', 50, 55, { json: { status: 'done', id: 'res_123456', took: 41 } }),
      exchange(4, 'GET', '/other', 60, 61),
    ]);
    expect(steps.map((s) => [s.interaction.seq, s.poll?.repeats.map((r) => r.seq), s.poll?.gapMs])).toEqual([
      [1, [2, 3], 20],
      [4, undefined, undefined],
    ]);
    const first = steps[0]?.interaction as Interaction;
    const last = steps[0]?.poll?.repeats.at(-1) as Interaction;
    // The state word must match; an id or a number that appeared need only be there.
    expect(pollCondition(first, last)).toEqual({
      status: undefined,
      fields: [
        { path: ['status'], value: 'done' },
        { path: ['id'], value: 'res_123456', present: true },
        { path: ['took'], value: 41, present: true },
      ],
    });
    expect(pollCondition(first, steps[0]?.poll?.repeats[0] as Interaction)).toBeUndefined();
  });
});

describe('issued values', () => {
  it('learns only values a later request echoes, and puts the longest in place first', () => {
    const issued = new IssuedValues();
    const echoed = new Set(['ses_1234', 'ses_12345', 'tok_abcdef']);
    issued.learn(
      {
        headers: { 'x-token': 'tok_abcdef' },
        body: { id: 'ses_1234', child: 'ses_12345', name: 'a-name-nobody-echoes', n: [{ id: 'ses_1234' }] },
      },
      {
        headers: { 'x-token': 'tok_zzzzzz' },
        body: { id: 'ses_9876', child: 'ses_98765', name: 'another-name-here', n: [{ id: 'ses_9876' }] },
      },
      (v) => echoed.has(v),
    );
    expect(issued.size).toBe(3);
    expect(issued.apply('/s/ses_12345/x/ses_1234?t=tok_abcdef')).toBe('/s/ses_98765/x/ses_9876?t=tok_zzzzzz');
    expect(issued.applyJson({ session: 'ses_1234', list: ['ses_12345'] })).toEqual({ session: 'ses_9876', list: ['ses_98765'] });
    expect(issued.apply('a-name-nobody-echoes')).toBe('a-name-nobody-echoes');
  });

  it('lays SSE events over each other by type and occurrence, ids included', () => {
    const issued = new IssuedValues();
    issued.learn(
      {
        headers: {},
        events: [
          { type: 'ready', data: { session: 'ses_aaaaaa' }, id: 'evt_000001' },
          { type: 'msg', data: { id: 'msg_bbbbbb' } },
        ],
      },
      {
        headers: {},
        events: [
          { type: 'ping', data: {} },
          { type: 'ready', data: { session: 'ses_cccccc' }, id: 'evt_000009' },
          { type: 'msg', data: { id: 'msg_dddddd' } },
        ],
      },
      () => true,
    );
    expect(issued.apply('ses_aaaaaa msg_bbbbbb evt_000001')).toBe('ses_cccccc msg_dddddd evt_000009');
  });
});
