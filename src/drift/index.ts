export { compareProfiles, type Finding, HEADINGS, type Heading } from './compare.js';
export { DEFAULT_DRIFT_CONFIG, type DriftConfig, driftConfigSchema, loadDriftConfig, type Severity } from './config.js';
export { type DriftOptions, runDrift } from './drift.js';
export { type Profile, profileFolder } from './profile.js';
export { type DriftReport, renderDriftJunit, renderDriftMarkdown, renderDriftText } from './render.js';
