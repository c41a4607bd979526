export { type CheckRow, checkRowsJunit, checkRowsMarkdown } from './check-rows.js';
export { type JunitCase, type JunitSuite, renderJunitXml, xmlText } from './junit.js';
export { markdownCell, markdownTable } from './markdown.js';
export { progressMark, progressReporter } from './progress.js';
export { appendStepSummary } from './step-summary.js';
