import type { Cassette, Interaction, SseItem, WsFrame } from '../../src/cassette/index.js';
import { type Pack, verifyCassette } from '../../src/contracts/index.js';
import type { Recording } from '../../src/infer/index.js';

/** A recording edited to break exactly one rule of its family's own pack: what the inferred pack must also reject. */
export interface Break {
  recording: string;
  /** The family pack's rule the edit breaks, `pack rule`. */
  rule: string;
  edit: string;
  cassette: Cassette;
}

type Item = SseItem | WsFrame;
type Mutation = { name: string; apply: (events: Item[], i: number) => Item[] | undefined };

// The edits the family packs' own tests make of a stream (or a WebSocket session's frames): an event dropped, sent
// twice, swapped with the next, moved last.
const MUTATIONS: Mutation[] = [
  { name: 'drop', apply: (e, i) => [...e.slice(0, i), ...e.slice(i + 1)] },
  { name: 'duplicate', apply: (e, i) => [...e.slice(0, i + 1), e[i] as Item, ...e.slice(i + 1)] },
  { name: 'swap', apply: (e, i) => (i + 1 < e.length ? [...e.slice(0, i), e[i + 1] as Item, e[i] as Item, ...e.slice(i + 2)] : undefined) },
  { name: 'move-last', apply: (e, i) => (i + 1 < e.length ? [...e.slice(0, i), ...e.slice(i + 1), e[i] as Item] : undefined) },
];

const POSITIONS = 24;

/** Evenly spread positions of a stream, at most `POSITIONS` of them: a long real stream need not be edited everywhere. */
const positions = (n: number) => {
  const k = Math.min(n, POSITIONS);
  return [...new Set(Array.from({ length: k }, (_, j) => Math.floor((j * n) / k)))];
};

/** The cassette with one interaction's stream events, or its WebSocket session's frames, replaced. */
function withEvents(cassette: Cassette, seq: number, events: Item[]): Cassette {
  return {
    ...cassette,
    interactions: cassette.interactions.map((i): Interaction => {
      const { stream, websocket } = i.response ?? {};
      if (i.seq !== seq || !i.response) return i;
      if (stream) return { ...i, response: { ...i.response, stream: { ...stream, events: events as SseItem[] } } };
      if (websocket) return { ...i, response: { ...i.response, websocket: { ...websocket, frames: events as WsFrame[] } } };
      return i;
    }),
  };
}

/** The rules of the family packs a cassette breaks, as `pack rule`. */
function brokenRules(cassette: Cassette, name: string, packs: readonly Pack[] | undefined): string[] {
  return verifyCassette(cassette, name, packs)
    .rules.filter((r) => r.violations.length > 0)
    .map((r) => `${r.pack} ${r.rule}`);
}

/**
 * Single-rule breaks of the recordings' streams and sessions: each edit kept when the family's own packs then
 * report exactly one ordering rule broken (payload and vocabulary checks aside), one break per (rule, recording).
 */
export function singleRuleBreaks(recordings: readonly Recording[], packs?: readonly Pack[]): Break[] {
  const out: Break[] = [];
  const seen = new Set<string>();
  for (const { name, cassette } of recordings)
    for (const interaction of cassette.interactions) {
      const events: Item[] | undefined = interaction.response?.stream?.events ?? interaction.response?.websocket?.frames;
      if (!events || events.length < 2) continue;
      for (const i of positions(events.length))
        for (const m of MUTATIONS) {
          const edited = m.apply(events, i);
          if (!edited) continue;
          const broken = withEvents(cassette, interaction.seq, edited);
          const rules = brokenRules(broken, name, packs);
          if (rules.length !== 1 || / (payload-schema|known-event-types)$/.test(rules[0] as string)) continue;
          const key = `${rules[0]} ${name}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ recording: name, rule: rules[0] as string, edit: `${m.name} event ${i} of seq ${interaction.seq}`, cassette: broken });
        }
    }
  return out;
}
