import type { RerunReport } from './rerun.js';

/** One line of what a re-run did. */
export function describeRerun(r: RerunReport): string {
  const polls = r.polls.map(
    (p) =>
      `; poll ${p.request} sent ${p.sent} times (${p.recorded} recorded, ${p.held === undefined ? 'as recorded' : p.held ? 'the change showed' : `the change never showed within ${p.bound}`})`,
  );
  const cut = r.waitsCut > 0 ? `; ${r.waitsCut} waits cut at the time bound` : '';
  const sockets = r.websockets > 0 ? `; ${r.websockets} WebSocket sessions not re-run (not supported yet)` : '';
  const dropped = r.dropped.length > 0 ? `; not sent (recorded as placeholders; give --header): ${r.dropped.join(', ')}` : '';
  return `rerun ${r.cassette}: ${r.requests} requests, ${r.sent} sent, ${r.learned} issued values learned${polls.join('')}${cut}${sockets}${dropped}`;
}
