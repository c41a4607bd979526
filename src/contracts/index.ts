export { findPack, registeredPacks, registerPacks } from './catalogue.js';
export { checkRule, type RuleViolation, type Segment } from './check-rules.js';
export { type MatcherEvents, toSatisfyContract } from './matcher.js';
export type { Pack } from './pack.js';
export { loadPack, type PackFile, PackFileError, packFileJsonSchema, readPackFile, resolvePackSync } from './pack-file.js';
export { renderJunit, renderMarkdown, renderText, renderViolation } from './render.js';
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
export type { CheckedEvent } from './selectors.js';
export { eventType, frameType, itemType, streamsOf, type TurnStart } from './stream-events.js';
export {
  type CheckedCassette,
  checkEvents,
  choosePacks,
  type VerifyReport,
  type Violation,
  type ViolationCode,
  verifyCassette,
  verifyPaths,
} from './verify.js';
