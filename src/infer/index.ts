export { type HeldOutBreak, type HoldoutReport, learnWithHoldout } from './holdout.js';
export { DEFAULT_MIN_SUPPORT, type InferOptions, type LearnedPack, learnPack } from './infer.js';
export { loadRecordings, type Recording } from './recordings.js';
