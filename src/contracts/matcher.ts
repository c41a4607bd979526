import { readJson } from '../cassette/index.js';
import { checkEvents } from './check-events.js';
import type { Pack } from './pack.js';
import { resolvePackSync } from './pack-file.js';
import { renderViolation } from './render.js';
import type { CheckedEvent } from './selectors.js';
import { eventType } from './stream-events.js';

/** Events as tests hold them: parsed SSE items (`{event, data}`), or bare type names. */
export type MatcherEvents = readonly ({ event?: string | undefined; data?: unknown } | string)[];

function toChecked(events: MatcherEvents): CheckedEvent[] {
  return events.map((e) => {
    if (typeof e === 'string') return { type: e, data: undefined };
    let data = e.data;
    // Plain text data (or JSON too deep to read) stays as it is.
    if (typeof data === 'string') data = readJson(data)?.json ?? data;
    return { type: eventType({ event: e.event, data: typeof e.data === 'string' ? e.data : undefined }, data), data };
  });
}

/**
 * `expect(events).toSatisfyContract(pack)`: the same checks and messages as
 * `bench verify`, over one stream as one turn. `pack` is a pack, a built-in
 * name or a YAML/JSON pack file (a module pack: `await loadPack(file)` first).
 */
export function toSatisfyContract(received: MatcherEvents, pack: Pack | string) {
  const p = resolvePackSync(pack);
  const violations = checkEvents(toChecked(received), p, { cassette: '(events)', interaction: 0 }).flatMap((r) => r.violations);
  return {
    pass: violations.length === 0,
    message: () =>
      violations.length === 0
        ? `expected events to break ${p.name}, and they satisfy it`
        : violations.map((v) => renderViolation(v)).join('\n'),
  };
}
