import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { type Interaction, isRecord, type SseItem } from '../cassette/index.js';
import { itemType, type Pack } from '../contracts/index.js';
import type { PayloadChange } from './payload-changes.js';

/** Whether a payload change keeps what an event says: the fuzzer varies how a message is written, never what it means. */
export type KeepsMeaning = (item: SseItem, data: unknown, change: PayloadChange) => boolean;

const at = (value: unknown, path: readonly string[]): unknown =>
  path.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);

/**
 * A field whose schema has a default is never absent to a reader: dropped, it reads as the default. So a drop
 * keeps the meaning only where the recorded value is that default (an SDK fills a dropped `content` with []).
 */
function dropKeepsMeaning(schema: z.ZodType, before: unknown, path: readonly string[]): boolean {
  const after = structuredClone(before);
  const parent = at(after, path.slice(0, -1));
  if (isRecord(parent)) delete parent[path[path.length - 1] as string];
  const read = schema.safeParse(after);
  if (!read.success) return true; // the packs' legality check refuses it anyway
  const filled = at(read.data, path);
  return filled === undefined || isDeepStrictEqual(filled, at(schema.safeParse(before).data, path));
}

/** The methods of the JSON-RPC requests in an interaction's body, by id: what its stream's results answer. */
function methodsById(interaction: Interaction): Map<string, string> {
  const body = interaction.request.body;
  const json = body && 'json' in body ? body.json : undefined;
  const messages = Array.isArray(json) ? json : [json];
  return new Map(
    messages.flatMap((m) => (isRecord(m) && typeof m.method === 'string' && m.id !== undefined ? [[JSON.stringify(m.id), m.method]] : [])),
  );
}

/**
 * The type whose payload schema judges an item: a JSON-RPC message's, as a session pack types it (its method, or
 * `response`), since its SSE item names no type of its own; any other item's own type.
 */
function schemaType(item: SseItem, data: unknown): string {
  if (!isRecord(data) || data.jsonrpc !== '2.0') return itemType(item);
  return typeof data.method === 'string' ? data.method : 'response';
}

/** The meaning check for one interaction's stream under its packs: each event by its type, each JSON-RPC result by its method. */
export function keepsMeaningIn(packs: readonly Pack[], interaction: Interaction): KeepsMeaning {
  let methods: Map<string, string> | undefined;
  return (item, data, change) => {
    if (change.kind !== 'drop') return true;
    if (at(data, change.path) === true) return false; // a flag left out reads as false (MCP's isError: true, dropped, is a success)
    const schemas = packs.flatMap((p) => p.payloads[schemaType(item, data)] ?? []);
    if (!schemas.every((s) => dropKeepsMeaning(s, data, change.path))) return false;
    if (!isRecord(data) || !('result' in data) || change.path[0] !== 'result') return true;
    methods ??= methodsById(interaction);
    const method = methods.get(JSON.stringify(data.id));
    const results = method === undefined ? [] : packs.flatMap((p) => p.results?.[method] ?? []);
    return results.every((s) => dropKeepsMeaning(s, data.result, change.path.slice(1)));
  };
}
