// Replayed WebSocket sessions (decision 0004): one session's frames, the pool of a path's sessions, one connection's choice.
export { WsSessionChooser } from './chooser.js';
export { WsSessionPool } from './pool.js';
export { WsReplaySession, type WsTexts } from './session.js';
export type { ClientFrame, WsDelivered, WsOutgoing, WsRecorded, WsSessionLike } from './types.js';
