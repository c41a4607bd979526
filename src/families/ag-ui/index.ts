// AG-UI: the family, its pack and its probes' client, for tests and for a team's own tooling.
export { AgUiClient, messagesOf } from './client.js';
export { agUiFamily } from './family.js';
export { type ProbeInputs, probeInputsSchema } from './inputs.js';
export { agUiEvents } from './packs.js';
export { AG_UI_PROBES } from './probes.js';
