import { UsageError } from '../../errors.js';
import type { Pack } from '../pack.js';
import { codexAppServer } from './codex.js';
import { hermesRuns, hermesSessionStream } from './hermes.js';
import { omnigentFullServer, omnigentNativeTui, omnigentStream } from './omnigent.js';
import { hermesResponses, openaiChatCompletions, openaiResponses } from './openai.js';
import { opencodeEvents } from './opencode.js';

export const BUILT_IN_PACKS: readonly Pack[] = [
  omnigentStream,
  omnigentNativeTui,
  omnigentFullServer,
  hermesSessionStream,
  hermesRuns,
  openaiResponses,
  hermesResponses,
  openaiChatCompletions,
  codexAppServer,
  opencodeEvents,
];

/** A built-in pack by name; an unknown name lists the known ones. */
export function findPack(name: string): Pack {
  const pack = BUILT_IN_PACKS.find((p) => p.name === name);
  if (!pack) throw new UsageError(`unknown pack ${JSON.stringify(name)}; built-in packs: ${BUILT_IN_PACKS.map((p) => p.name).join(', ')}`);
  return pack;
}
