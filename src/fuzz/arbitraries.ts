import fc from 'fast-check';
import type { Edit, Transport, Variation, VariationSpace } from './variation.js';

// Indices are taken modulo what is there, so any natural number is a valid choice; small ones shrink best.
const nat = fc.nat({ max: 4096 });

/**
 * Every variation the space allows: edits its packs make optional (moves among
 * events released together, inserts and deletes of optional events, payload
 * changes, comments where allowed), then line endings and chunk cuts. Arrays
 * shrink towards fewer edits and fewer cuts, line endings towards LF.
 */
export function variationArbitrary(
  space: VariationSpace,
  options: { maxEdits?: number; maxCuts?: number; lineEnds?: readonly Transport['eol'][]; payloads?: boolean } = {},
): fc.Arbitrary<Variation> {
  const edits: fc.Arbitrary<Edit>[] = [fc.record({ op: fc.constant('move' as const), stream: nat, event: nat, to: nat })];
  if (options.payloads !== false) edits.push(fc.record({ op: fc.constant('payload' as const), stream: nat, event: nat, change: nat }));
  if (space.sources.length > 0) edits.push(fc.record({ op: fc.constant('insert' as const), stream: nat, at: nat, source: nat }));
  if (space.optional.size > 0)
    edits.push(
      fc.record({ op: fc.constant('delete' as const), stream: nat, event: nat }),
      fc.record({ op: fc.constant('collapse' as const), stream: nat, type: nat }),
    );
  if (space.comments) edits.push(fc.record({ op: fc.constant('comment' as const), stream: nat, at: nat }));
  const transport: fc.Arbitrary<Transport> = fc.record({
    eol: fc.constantFrom(...(options.lineEnds?.length ? options.lineEnds : (['lf', 'crlf', 'cr'] as const))),
    cuts: fc.array(fc.record({ stream: nat, kind: fc.constantFrom('any' as const, 'line-end' as const, 'utf8' as const), at: nat }), {
      maxLength: options.maxCuts ?? 8,
    }),
  });
  return fc.record({ edits: fc.array(fc.oneof(...edits), { maxLength: options.maxEdits ?? 12 }), transport });
}
