import { describe, expect, it } from 'vitest';
import { checkRule, exactlyOne, never, precedes, ruleSchema, sequence } from '../../src/contracts/index.js';

const events = (...types: string[]) => types.map((type) => ({ type, data: {} }));

describe('rule makers as the README writes them', () => {
  it('precedes(earlier, later) needs no name: it gets one from what it says, and checks', () => {
    const rule = precedes('response.created', 'response.completed');
    expect(ruleSchema.parse(rule)).toEqual(rule);
    expect(rule.name).toBe('precedes-response-created-response-completed');
    expect(rule.description).toBe('precedes(response.created, response.completed)');
    const all = { start: 0, end: 2 };
    expect(checkRule(rule, events('response.created', 'response.completed'), all)).toEqual([]);
    expect(checkRule(rule, events('response.completed', 'response.created'), all).map((v) => v.rule)).toEqual([
      'precedes-response-created-response-completed',
    ]);
  });

  it('every maker takes its metadata as an optional last argument', () => {
    for (const rule of [exactlyOne(['done']), never('*', { after: 'done' }), sequence('seq')]) expect(ruleSchema.parse(rule)).toEqual(rule);
    expect(precedes('a', 'b', { name: 'a-first', description: 'a before b', source: 'team doc §2' }).name).toBe('a-first');
  });
});
