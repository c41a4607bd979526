export { HermesClient, type HermesReply } from './client.js';
export { HERMES_PACKS, hermesFamily } from './family.js';
export { HERMES_PROBE_NAMES, HERMES_PROBES, type HermesProbe, type HermesProbeName } from './probes.js';
