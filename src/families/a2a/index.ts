// A2A: the family, its pack and its probes' client, for tests and for a team's own tooling.
export { A2aClient } from './client.js';
export { a2aFamily } from './family.js';
export { a2aJsonRpc } from './packs.js';
export { A2A_PROBES } from './probes.js';
