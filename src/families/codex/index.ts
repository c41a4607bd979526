export { CodexClient, methodOf, RpcCallError, type RpcMessage } from './client.js';
export { CODEX_FOLDER, CODEX_PACKS, codexFamily, observeCodexProbe, replayCodexProbe } from './family.js';
export { CODEX_PROBE_NAMES, CODEX_PROBES, type CodexProbe, type CodexProbeName } from './probes.js';
export { type CodexProtocol, loadCodexProtocol, type ProtocolFinding } from './protocol-schema.js';
