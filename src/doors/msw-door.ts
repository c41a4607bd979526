import type { Cassette } from '../cassette/index.js';
import {
  type CassetteHandlerOptions,
  type CassetteHandlers,
  type NamedCassette,
  cassetteHandlers as replayHandlers,
} from '../replayer/index.js';
import { type RecordVia, recorderHandlers } from './msw-recording.js';
import type { RecordPlan } from './record-options.js';

/** The MSW door's handlers when it records, and how to save what they recorded. */
export interface RecordingCassetteHandlers extends CassetteHandlers {
  /** Ends the recording and writes the cassette (after the one it added to); once, however often called. */
  save(): Promise<Cassette | undefined>;
}

/** The MSW door recording as `plan` says: `missing` replays and records the rest; `record` records every request. */
export function recordingHandlers(
  cassettes: readonly NamedCassette[],
  plan: RecordPlan,
  options: CassetteHandlerOptions & { recordVia?: RecordVia },
): RecordingCassetteHandlers {
  const recorder = recorderHandlers(plan.file, options, 'cassetteHandlers');
  const save = () => recorder.save(plan.base);
  if (plan.mode === 'record') {
    // Nothing is replayed: the engine only stands for the door (no misses, no unused interactions).
    return { handlers: [recorder.handler], engine: replayHandlers([], options).engine, webSockets: false, save };
  }
  return { ...replayHandlers(cassettes, { ...options, onUnmatched: recorder.forward }), save };
}
