export { markDrift, markViolations } from './annotate.js';
export { renderTimelineHtml } from './html.js';
export { buildSection, type TimelineArrow, type TimelineLane, type TimelineMark, type TimelineSection } from './model.js';
export { renderTimelineText } from './text.js';
