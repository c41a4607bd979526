import type { Interaction } from '../cassette/index.js';
import type { TurnStart } from '../contracts/index.js';
import { routeTemplate } from '../net/route-template.js';
import { mergeTemplates, onRoutes, type Recording, templateRegex } from './recordings.js';

/** A turn start as a pack file writes it, with how many requests showed it. */
export interface LearnedTurnStart {
  method: string;
  path: string;
  bodyType?: string;
  requests: number;
  first: string;
}

const bodyTypeOf = (i: Interaction): string | undefined => {
  const body = i.request.body;
  const type = body && 'json' in body ? (body.json as { type?: unknown } | null)?.type : undefined;
  return typeof type === 'string' ? type : undefined;
};

/**
 * Requests that start a turn: those with a body that released events on a stream opened before them (a message
 * posted while the client listens). A poll releases events only by timing, so bodiless requests never count.
 */
export function learnTurnStarts(recordings: readonly Recording[], routes?: readonly RegExp[]): LearnedTurnStart[] {
  const seen: { template: string; bodyType: string | undefined; method: string; where: string }[] = [];
  for (const { name, cassette } of recordings) {
    const bySeq = new Map(cassette.interactions.map((i) => [i.seq, i]));
    const starters = new Set<number>();
    for (const i of cassette.interactions) {
      if (!i.response?.stream || !onRoutes(routes, i.request.path)) continue;
      for (const e of i.response.stream.events) if (e.after > i.seq) starters.add(e.after);
    }
    for (const seq of [...starters].sort((a, b) => a - b)) {
      const request = bySeq.get(seq)?.request;
      if (!request?.body || request.method === 'GET') continue;
      seen.push({
        template: routeTemplate(request.method, request.path),
        bodyType: bodyTypeOf(bySeq.get(seq) as Interaction),
        method: request.method,
        where: `${name} #${seq}`,
      });
    }
  }
  const merged = mergeTemplates(seen.map((s) => s.template));
  const found = new Map<string, LearnedTurnStart>();
  for (const s of seen) {
    const path = templateRegex(merged.get(s.template) ?? s.template);
    const key = `${s.method} ${path} ${s.bodyType ?? ''}`;
    const entry = found.get(key);
    if (entry) entry.requests++;
    else
      found.set(key, {
        method: s.method,
        path,
        ...(s.bodyType !== undefined ? { bodyType: s.bodyType } : {}),
        requests: 1,
        first: s.where,
      });
  }
  return [...found.values()].sort((a, b) => `${a.method} ${a.path} ${a.bodyType}`.localeCompare(`${b.method} ${b.path} ${b.bodyType}`));
}

/** The turn starts as the checker reads them. */
export const asTurnStarts = (learned: readonly LearnedTurnStart[]): TurnStart[] =>
  learned.map((t) => ({ method: t.method, path: new RegExp(t.path), ...(t.bodyType !== undefined ? { bodyType: t.bodyType } : {}) }));
