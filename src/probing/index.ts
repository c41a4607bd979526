// Running families: record one (against its simulator, a server or its real peer), replay what it recorded, start a peer.
export type { RecordFamilyOptions, RecordProgress } from './options.js';
export { recordFamily } from './record-family.js';
export { peerSpecFor, type RecordTargetOptions, recordTarget, startFamilyMockModel } from './record-target.js';
export { type RecordedProbe, type ReplayCheckRow, recordedProbes, replayCheck } from './replay-check.js';
export { cassetteFetch } from './replay-door.js';
export { type PeerServer, PeerStartError, processesUnder, type StartPeerOptions, startPeer } from './start-peer.js';
export { RecordingStopped, unlessStopped } from './stopped.js';
