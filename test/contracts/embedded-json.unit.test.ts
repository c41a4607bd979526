import { describe, expect, it } from 'vitest';
import { payloadSchemaFromJson } from '../../src/contracts/embedded-json.js';
import { checkEvents, embeddedJson, type Pack, precedes } from '../../src/contracts/index.js';
import { compileSelector } from '../../src/contracts/selectors.js';

const result = (content: unknown) => ({ type: 'TOOL_CALL_RESULT', data: { toolCallId: 'c1', content } });

describe('JSON sent as a string', () => {
  it('is read only where the string holds an object or array', () => {
    expect(embeddedJson('{"temp":21}')).toEqual({ temp: 21 });
    expect(embeddedJson('[1,2]')).toEqual([1, 2]);
    expect(embeddedJson('21')).toBeUndefined();
    expect(embeddedJson('"x"')).toBeUndefined();
    expect(embeddedJson('{not json')).toBeUndefined();
    expect(embeddedJson('It is {warm}')).toBeUndefined();
  });

  it('a selector addresses a field inside it with name{}', () => {
    const warm = compileSelector('TOOL_CALL_RESULT[content{}.temp=21]');
    expect(warm.matches(result('{"temp":21,"unit":"C"}'))).toBe(true);
    expect(warm.matches(result('{"temp":3}'))).toBe(false);
    expect(warm.matches(result('temp is 21'))).toBe(false);
    expect(compileSelector('TOOL_CALL_RESULT[content{}.unit]').matches(result('{"temp":21}'))).toBe(false);
  });

  it("a payload schema's contentSchema is checked inside the string, with the path into the document", () => {
    const schema = payloadSchemaFromJson({
      type: 'object',
      required: ['content'],
      properties: {
        content: {
          type: 'string',
          contentMediaType: 'application/json',
          contentSchema: { type: 'object', required: ['temp'], properties: { temp: { type: 'number' } } },
        },
      },
    });
    expect(schema.safeParse(result('{"temp":21,"humidity":40}').data).success).toBe(true);
    const typed = schema.safeParse(result('{"temp":"21"}').data);
    expect(typed.success).toBe(false);
    expect(typed.error?.issues[0]?.path).toEqual(['content', '{}', 'temp']);
    expect(schema.safeParse(result('{"unit":"C"}').data).success).toBe(false);
    expect(schema.safeParse(result('not json').data).error?.issues[0]?.message).toBe('expected JSON text (an object or array)');
  });

  it('a rule scoped by a key inside JSON text holds per value', () => {
    const pack: Pack = {
      name: 'p',
      description: '',
      turnStarts: [],
      payloads: {},
      openVocabulary: true,
      rules: [{ ...precedes('start', 'end', { name: 'r', description: 'd', source: 's', scope: 'stream' }), by: 'args{}.id' }],
    };
    const ev = (type: string, id: string) => ({ type, data: { args: JSON.stringify({ id }) } });
    const check = (events: { type: string; data: unknown }[]) =>
      checkEvents(events, pack, { cassette: 'c', interaction: 1 }).flatMap((r) => r.violations.map((v) => v.eventIndex));
    expect(check([ev('start', 'a'), ev('end', 'a')])).toEqual([]);
    expect(check([ev('start', 'a'), ev('end', 'b')])).toEqual([1]);
  });
});
