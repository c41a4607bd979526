export { type PeerServer, PeerStartError, processesUnder, type StartPeerOptions, startPeer } from './start-peer.js';
