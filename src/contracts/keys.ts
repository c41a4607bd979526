/**
 * A field that says which message, item, call, part or index an event belongs to: `id`, `item_id`, `messageId`,
 * `toolCallID`, `output_index`, `index`.
 */
const KEY_NAME = /^(id|index)$|[_-](id|index)$|[a-z0-9](Id|ID|Index)$/;
// Keys sit at the top or a little below it (`part.messageID`, `properties.info.id`); deeper is content, not identity.
const KEY_DEPTH = 3;

function collect(value: unknown, path: string, depth: number, out: Map<string, string | number>): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || depth > KEY_DEPTH) return;
  for (const [name, v] of Object.entries(value)) {
    const at = path === '' ? name : `${path}.${name}`;
    if ((typeof v === 'string' || typeof v === 'number') && KEY_NAME.test(name)) out.set(at, v);
    else if (v !== null && typeof v === 'object') collect(v, at, depth + 1, out);
  }
}

/** Whether a field's name says it holds an id or an index (`messageId`, `item_id`, `output_index`). */
export const isKeyName = (name: string) => KEY_NAME.test(name);

/** The key fields of an event's data, by dot path: what says which message, item or call the event is part of. */
export function keyFields(data: unknown): Map<string, string | number> {
  const out = new Map<string, string | number>();
  collect(data, '', 0, out);
  return out;
}
