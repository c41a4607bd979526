export { appendRecording } from './append.js';
export {
  decodeBody,
  encodeBody,
  exactJson,
  isRecord,
  jsonDepthWithin,
  MAX_JSON_DEPTH,
  MAX_STORED_BODY,
  omittedBody,
  readJson,
} from './body.js';
export {
  CONTENT_ENCODINGS,
  type ContentEncoding,
  contentEncodingOf,
  decodeContent,
  encodeContent,
  unreadableCoding,
} from './content-encoding.js';
export { cassettesConfigSchema, editorSchemaLine } from './editor-line.js';
export { CassetteError, type CassetteErrorCode } from './errors.js';
export { cassetteJsonSchema } from './json-schema.js';
export { loadCassette, MAX_CASSETTE_FILE, parseCassette, refuseTooBig, refuseTooDeep } from './load.js';
export {
  currentFolders,
  folderRestorer,
  type MachineFolders,
  machineNamesIn,
  makePortable,
  type PlaceholderMapper,
  placeholderMapper,
  portableInteraction,
  portablePass,
  restoreBody,
} from './portable-paths.js';
export { withoutInteractions } from './prune.js';
export { readCanonicalYaml } from './read-canonical-yaml.js';
export {
  ALWAYS_REDACTED_HEADERS,
  DEFAULT_REDACTION,
  makeRedactor,
  type PieceContext,
  type RedactionConfig,
  type Redactor,
  type RedactorSession,
  redactCassette,
  redactionConfigSchema,
  redactionPlaceholder,
  type SecretPair,
} from './redaction/index.js';
export { backtrackingRisk } from './redaction/pattern-safety.js';
export { isSecretName } from './redaction/secret-names.js';
export { GITLEAKS_VERSION } from './redaction/secret-rules.js';
export {
  interactionPreparer,
  type PreparedInteraction,
  scrubbingPreparer,
  serializeCassette,
  writeCassetteAtomic,
  writeCassetteStream,
  writeFileAtomic,
} from './save.js';
export {
  type Body,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteMeta,
  cassetteSchema,
  type Failure,
  type Headers,
  type Interaction,
  interactionSchema,
  metaSchema,
  RECORDING_INTERRUPTED,
  type RecordedRequest,
  type RecordedResponse,
  type SseItem,
  type SseStream,
  type StreamEnd,
  type Timing,
  type WsFrame,
  type WsSession,
} from './schema.js';
export { frameJson, payloadFromWire, payloadOf, payloadToWire, sendableCloseCode, type WsPayload, wireBytes } from './ws-frames.js';
