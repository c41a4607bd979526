// What a family is built from: clients, stream readers, checks of a server URL, and the probe helpers every family shares.

export { reconcile, type SuiteObservation, supported, unsupported, type Verdict } from '../../manifest/index.js';
export { checkHealthRoute, checkHttpListening, checkListening } from './check-server.js';
export { InfrastructureError, isInfrastructure, ServerResponseError } from './errors.js';
export { type FetchLike, JsonClient, type JsonReply } from './json-client.js';
export { MessageLog } from './message-log.js';
export { bearer, findProbe, observeSafely, selectNamed } from './probe-helpers.js';
export { REPLAY_ORIGIN, type ReplayDoor, throughDoor } from './replay-door.js';
export { type StreamEvent, StreamReader } from './stream-reader.js';
