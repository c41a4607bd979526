export {
  type EntryInfo,
  MISSES_KEPT,
  type NamedCassette,
  type ReplayAnswer,
  ReplayEngine,
  type ReplayOptions,
  STRICT_MISS_STATUS,
  type UnusedEntry,
} from './engine.js';
export { type NearMiss, UnmatchedRequestError } from './errors.js';
export {
  type FaultKind,
  type FaultRule,
  type FaultsFile,
  faultRuleSchema,
  type InjectedFault,
  parseFaultSpec,
  readFaultsFile,
} from './faults/index.js';
export { loadCassetteSet } from './load-set.js';
export { loadMatchConfig, type MatchConfig, matchConfigSchema } from './match-config.js';
export type { MatchOptions, ReplayRequest } from './match-request.js';
export { type CassetteHandlerOptions, type CassetteHandlers, cassetteHandlers, releaseMockedBodies } from './msw-door.js';
export { type PrunePlan, planPrune, readUsage } from './prune.js';
export { type ReplayServer, type ReplayServerOptions, startReplayServer } from './replay-server.js';
export { parseTiming, type TimingMode } from './timing.js';
export { CassetteDispatcher, type CassetteDispatcherOptions, cassetteDispatcher } from './undici-door.js';
export { describeUnused, mergeUsage, type UsageFile, usageFileSchema, writeUsageFile } from './usage.js';
