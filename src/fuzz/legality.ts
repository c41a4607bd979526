import type { Cassette } from '../cassette/index.js';
import { type Pack, type Violation, verifyCassette } from '../contracts/index.js';

/** The rules left not observed in each recorded cassette: what its own client's early close already hid. */
const hiddenInRecording = new WeakMap<Cassette, Set<string>>();
const keyOf = (v: Violation) => `${v.pack} ${v.rule} #${v.interaction}`;

/**
 * What makes a variation illegal: a violation, or a rule a variation leaves unobserved that the recording did
 * observe. A server must still send the event a client stopped waiting for, so deleting it from a stream the
 * client closed is no legal variation, though `bench verify` would not fail the stream.
 */
export function illegalities(cassette: Cassette, name: string, packs: readonly Pack[], base?: Cassette): Violation[] {
  const rules = verifyCassette(cassette, name, packs).rules;
  let hidden = base ? hiddenInRecording.get(base) : undefined;
  if (base && !hidden) {
    hidden = new Set(verifyCassette(base, name, packs).rules.flatMap((r) => r.notObserved.map(keyOf)));
    hiddenInRecording.set(base, hidden);
  }
  return rules.flatMap((r) => [...r.violations, ...r.notObserved.filter((v) => !hidden?.has(keyOf(v)))]);
}

/** The illegalities of a cassette against a variation space's packs (and its recording), as one list. */
export function violationsOf(cassette: Cassette, space: { name: string; packs: readonly Pack[]; base?: Cassette }): Violation[] {
  return illegalities(cassette, space.name, space.packs, space.base);
}
