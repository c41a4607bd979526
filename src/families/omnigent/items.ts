import type { ToolCall } from './turn-result.js';

type Item = Record<string, unknown>;

/** An item's data fields, whether the item is flat (`/items`) or nested (snapshot). */
function fields(item: Item): Item {
  return typeof item.data === 'object' && item.data !== null && !('role' in item) ? (item.data as Item) : item;
}

export function itemType(item: Item): string | undefined {
  return typeof item.type === 'string' ? item.type : undefined;
}

export function itemRole(item: Item): string | undefined {
  const role = fields(item).role;
  return typeof role === 'string' ? role : undefined;
}

/** The text of an assistant message item, its output_text parts joined. */
export function assistantText(item: Item, separator = ' '): string {
  const content = fields(item).content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part as Item).text)
    .filter((t): t is string => typeof t === 'string')
    .join(separator);
}

export function functionCalls(items: Item[]): ToolCall[] {
  return items
    .filter((i) => itemType(i) === 'function_call')
    .map((i) => {
      const f = fields(i);
      return { callId: String(f.call_id ?? ''), name: String(f.name ?? ''), arguments: String(f.arguments ?? '') };
    });
}

/** A stream event carrying a tool call's output that the server's policy blocked (the full server writes the denial into the output). */
export function deniedToolOutput(event: Record<string, unknown>): boolean {
  if (event.type !== 'response.output_item.done') return false;
  const item = event.item as Item | undefined;
  return !!item && itemType(item) === 'function_call_output' && /\bDenied by policy\b/.test(String(fields(item).output ?? ''));
}
