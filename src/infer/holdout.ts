import { parsePackTexts, verifyCassette } from '../contracts/index.js';
import { UsageError } from '../errors.js';
import { asTurnStartsOf, finishPacks, type InferOptions, type LearnedPack, learnPack, minSupportOf } from './infer.js';
import { learnPayloads, violatedType } from './payloads.js';
import { learnedStreams, type Recording } from './recordings.js';

/** A rule (or a payload schema) learned from the rest that a held-out recording broke: too strict for this server. */
export interface HeldOutBreak {
  pack: string;
  rule: string;
  recording: string;
  message: string;
}

export interface HoldoutReport {
  heldOut: string[];
  broken: HeldOutBreak[];
}

/**
 * Learns from all but the last `n` recordings, verifies those `n` with what was learned, and drops each rule they
 * break; payload schemas are then learned from every recording. The report names each dropped rule and its recording.
 */
export function learnWithHoldout(
  recordings: readonly Recording[],
  options: InferOptions,
  n: number,
): LearnedPack & { holdout: HoldoutReport } {
  if (n >= recordings.length)
    throw new UsageError(`--holdout ${n} leaves nothing to learn from: there are ${recordings.length} recordings; hold out fewer`);
  const learnFrom = recordings.slice(0, recordings.length - n);
  const held = recordings.slice(recordings.length - n);
  const first = learnPack(learnFrom, options);
  const packs = parsePackTexts(first.text, 'inferred.yaml');
  const broken: HeldOutBreak[] = [];
  const seen = new Set<string>();
  for (const r of held)
    for (const result of verifyCassette(r.cassette, r.name, packs).rules)
      for (const v of result.violations) {
        const rule = v.rule === 'payload-schema' || v.rule === 'known-event-types' ? `${v.rule} ${violatedType(v.message)}` : v.rule;
        if (seen.has(`${v.pack} ${rule}`)) continue;
        seen.add(`${v.pack} ${rule}`);
        broken.push({ pack: v.pack, rule, recording: `${r.name} #${v.interaction}`, message: v.message });
      }
  const minSupport = minSupportOf(options);
  const kept = first.packs.map((p) => ({
    ...p,
    rules: p.rules.filter((c) => !seen.has(`${p.name} ${c.rule.name}`)),
    // The shapes of every recording, held-out ones too: a schema is what the server sends, not a rule to test.
    payloads: learnPayloads(
      learnedStreams(
        recordings,
        asTurnStartsOf(p),
        p.routes.map((r) => new RegExp(r)),
      ),
      minSupport,
    ),
  }));
  const finished = finishPacks(
    kept,
    recordings,
    {
      minSupport,
      left: [],
      summary: `learned by bench infer from ${learnFrom.length} recording(s), ${n} held out: ${first.streams} streams, ${first.events} events`,
    },
    first,
  );
  return { ...finished, holdout: { heldOut: held.map((r) => r.name), broken } };
}
