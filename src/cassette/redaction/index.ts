// Redaction before anything reaches disk: which names and values are secret, what is collected and scrubbed, per recording or per piece.
export {
  ALWAYS_REDACTED_HEADERS,
  DEFAULT_REDACTION,
  type PieceContext,
  type RedactionConfig,
  type Redactor,
  type RedactorOptions,
  type RedactorSession,
  redactionConfigSchema,
  redactionPlaceholder,
  type ScrubList,
  type SecretPair,
  sameScrubList,
} from './config.js';
export { makeRedactor, redactCassette } from './redactor.js';
