export { findPack, registeredPacks, registerPacks } from './catalogue.js';
export { checkEvents } from './check-events.js';
export { checkRule, type RuleViolation, type Segment } from './check-rules.js';
export { embeddedJson } from './embedded-json.js';
export { jsonRpcSessions, type SessionKey, type SessionUnderCheck } from './jsonrpc-sessions.js';
export { isKeyName, keyFields } from './keys.js';
export { type MatcherEvents, toSatisfyContract } from './matcher.js';
export type { Pack, ResultContext } from './pack.js';
export { isPackFile, loadPack, loadPacks, readPackFile, readPackFiles, resolvePackSync, resolvePacksSync } from './pack-file.js';
export { PackFileError } from './pack-file-error.js';
export { type PackFile, packFileJsonSchema, parsePackText, parsePackTexts } from './pack-text.js';
export { renderJunit, renderMarkdown, renderText, renderViolation } from './render.js';
export type { CheckedCassette, RuleResult, VerifyReport, Violation, ViolationCode } from './report-types.js';
export {
  assembles,
  atMostOne,
  describeRule,
  eventually,
  exactlyOne,
  firstEvent,
  follows,
  framing,
  never,
  pairedBy,
  precedes,
  progression,
  type Rule,
  type RuleKind,
  ruleSchema,
  sequence,
  streamMeta,
  terminal,
} from './rules.js';
export { type CheckedEvent, compileSelector, valueAt } from './selectors.js';
export { eventType, frameType, itemType, streamsOf, type TurnStart } from './stream-events.js';
export { choosePacks, verifyCassette, verifyPaths } from './verify.js';
