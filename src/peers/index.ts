export { PEER_FOLDERS, type RecordPeerOptions, recordPeer } from './record-peer.js';
export { type PeerKind, type PeerServer, PeerStartError, processesUnder, type StartPeerOptions, startPeer } from './start-peer.js';
