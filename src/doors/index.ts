// The doors users already have, able to record: replay-only, they are the replayer's own.
import {
  CassetteDispatcher,
  type CassetteDispatcherOptions,
  type CassetteHandlerOptions,
  type CassetteHandlers,
  type NamedCassette,
  cassetteHandlers as replayHandlers,
} from '../replayer/index.js';
import { type RecordingCassetteHandlers, recordingHandlers } from './msw-door.js';
import type { RecordVia } from './msw-recording.js';
import { type DoorRecordOptions, recordPlan } from './record-options.js';
import { RecordingCassetteDispatcher } from './recording-dispatcher-door.js';

export { type RecordVia, recorderHandlers } from './msw-recording.js';
export type { DoorRecordMode, DoorRecordOptions } from './record-options.js';
export type { RecordingCassetteDispatcher, RecordingCassetteHandlers };

type Recorded = DoorRecordOptions & { record: 'missing' | 'record' };

/**
 * An undici Dispatcher serving the cassettes; with `record`, one that records in the test's process (through the
 * same recorder as `bench proxy`) what it does not replay, saved by `save()` or `close()`.
 */
export function cassetteDispatcher(
  set: readonly NamedCassette[],
  options: CassetteDispatcherOptions & Recorded,
): RecordingCassetteDispatcher;
export function cassetteDispatcher(
  set: readonly NamedCassette[],
  options?: CassetteDispatcherOptions & DoorRecordOptions,
): CassetteDispatcher;
export function cassetteDispatcher(
  set: readonly NamedCassette[],
  options: CassetteDispatcherOptions & DoorRecordOptions = {},
): CassetteDispatcher | RecordingCassetteDispatcher {
  const plan = recordPlan('cassetteDispatcher', set, options);
  if (plan) return new RecordingCassetteDispatcher(set, plan, options);
  const { record: _r, saveTo: _s, ...replay } = options;
  return new CassetteDispatcher(set, replay);
}

type HandlerOptions = CassetteHandlerOptions & DoorRecordOptions & { recordVia?: RecordVia };

/**
 * MSW handlers serving the cassettes; with `record`, handlers that record (in-process, or through a recording
 * proxy with `recordVia: 'proxy'`) what they do not replay, saved by `save()`.
 */
export function cassetteHandlers(set: readonly NamedCassette[], options: HandlerOptions & Recorded): RecordingCassetteHandlers;
export function cassetteHandlers(set: readonly NamedCassette[], options?: HandlerOptions): CassetteHandlers;
export function cassetteHandlers(
  set: readonly NamedCassette[],
  options: HandlerOptions = {},
): CassetteHandlers | RecordingCassetteHandlers {
  const plan = recordPlan('cassetteHandlers', set, options);
  const { record: _r, saveTo: _s, recordVia, ...replay } = options;
  if (plan) return recordingHandlers(set, plan, { ...replay, ...(recordVia ? { recordVia } : {}) });
  return replayHandlers(set, replay);
}
