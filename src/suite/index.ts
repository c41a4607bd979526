export { checkHealthRoute, checkListening } from './check-server.js';
export { InfrastructureError, isInfrastructure, RecordingStopped, ServerResponseError, unlessStopped } from './errors.js';
export { type FetchLike, JsonClient, type JsonReply } from './json-client.js';
export { MessageLog } from './message-log.js';
export { findProbe, observeSafely, recordSuite, selectNamed } from './record-suite.js';
export { cassetteFetch, REPLAY_ORIGIN, type ReplayDoor, throughDoor } from './replay-door.js';
export { type StreamEvent, StreamReader } from './stream-reader.js';
export {
  type Declaration,
  type DriftNoise,
  type Pace,
  type PeerLaunch,
  type PeerSpec,
  type PlanContext,
  type RecordSuiteOptions,
  type RunningServer,
  type SimulatorOptions,
  type Suite,
  type SuitePlan,
  type SuiteProbe,
  type SuiteProgress,
  simulatorBasics,
  TURN_MS,
  turnCeiling,
} from './suite.js';
