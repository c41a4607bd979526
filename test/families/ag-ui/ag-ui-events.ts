import type { Cassette, Interaction, SseItem } from '../../../src/cassette/index.js';

/** An AG-UI event as a stream carries it: its type and fields. */
export type AgUiEvent = Record<string, unknown> & { type: string };

/** The streamed interactions of a cassette (the runs), in order. */
export const runsOf = (c: Cassette): Interaction[] => c.interactions.filter((i) => i.response?.stream);

/** The events of one run, parsed. */
export const eventsOf = (i: Interaction): AgUiEvent[] =>
  ((i.response?.stream?.events ?? []) as SseItem[]).flatMap((e) => (e.data === undefined ? [] : [JSON.parse(e.data) as AgUiEvent]));

/** The run's stream holding these events instead, each framed as the server framed them (a data line). */
export function setEvents(i: Interaction, events: readonly AgUiEvent[]): void {
  const stream = i.response?.stream as NonNullable<NonNullable<Interaction['response']>['stream']>;
  const old = stream.events as SseItem[];
  stream.events = events.map((e, n) => ({ ...(old[Math.min(n, old.length - 1)] as SseItem), data: JSON.stringify(e) }));
}
