// Replayed WebSocket sessions (decision 0004): one session's frames, the pool of a path's sessions, one connection's choice.
export { WsSessionChooser } from './chooser.js';
export { type WsRecorded, WsSessionPool } from './pool.js';
export { WsReplaySession, type WsTexts } from './session.js';
export type { ClientFrame, WsDelivered, WsOutgoing, WsSessionLike } from './types.js';
