export { GatewayClient, type GatewayReply, JsonClient } from './client.js';
export { GATEWAY_PROBE_NAMES, GATEWAY_PROBES, type GatewayProbe, type GatewayProbeName } from './probes.js';
export {
  GATEWAY_FOLDER,
  GATEWAY_PACKS,
  observeGatewayProbe,
  type RecordGatewayOptions,
  recordGateway,
  replayGatewayProbe,
} from './record-gateway.js';
