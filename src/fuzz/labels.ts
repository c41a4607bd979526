import type { Interaction, SseItem } from '../cassette/index.js';
import { frameType, itemType } from '../contracts/index.js';

/** How a report lists an interaction's events: each SSE event's label, or each WebSocket frame's type. */
export function eventLabels(interaction: Interaction | undefined): string[] {
  const { stream, websocket } = interaction?.response ?? {};
  return stream ? stream.events.map(labelOf) : (websocket?.frames ?? []).map(frameType);
}

/** `session.status[idle]`: the type, and the status when there is one, as reports print an event. */
export function labelOf(item: SseItem): string {
  const type = itemType(item);
  if (item.data === undefined || type === ':comment') return type;
  try {
    const status = (JSON.parse(item.data) as { status?: unknown }).status;
    return typeof status === 'string' ? `${type}[${status}]` : type;
  } catch {
    return type;
  }
}
