export { describeRerun } from './describe.js';
export { type RerunOptions, type RerunReport, rerunCassette } from './rerun.js';
