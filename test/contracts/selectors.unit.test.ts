import { describe, expect, it } from 'vitest';
import { compileSelector } from '../../src/contracts/selectors.js';

const interrupted = (responseId: unknown) => ({
  type: 'session.interrupted',
  data: { data: { requested_at: 1, response_id: responseId } },
});

describe('event selectors', () => {
  it('type[path] matches an event whose field is there and not null, whatever its value', () => {
    const acknowledged = compileSelector('session.interrupted[data.response_id]');
    expect(acknowledged.matches(interrupted('codex_1'))).toBe(true);
    expect(acknowledged.matches(interrupted(0))).toBe(true);
    expect(acknowledged.matches(interrupted(null))).toBe(false);
    expect(acknowledged.matches({ type: 'session.interrupted', data: { data: { requested_at: 1 } } })).toBe(false);
    expect(acknowledged.matches({ type: 'session.status', data: { data: { response_id: 'x' } } })).toBe(false);
  });

  it('type[path=value] still compares the value as text, and a bad selector says how to write one', () => {
    expect(compileSelector('session.status[status=idle]').matches({ type: 'session.status', data: { status: 'idle' } })).toBe(true);
    expect(compileSelector('session.status[status=idle]').matches({ type: 'session.status', data: { status: 'running' } })).toBe(false);
    expect(() => compileSelector('a[b')).toThrow(/use type, type\[field=value\], type\[field\] or \*/);
  });
});
