import type { Violation } from '../contracts/index.js';
import type { Finding } from '../drift/index.js';
import type { TimelineMark, TimelineSection } from './model.js';

function note(mark: TimelineMark, kind: 'violation' | 'drift', text: string): void {
  mark.notes ??= [];
  mark.notes.push({ kind, text });
}

/** Puts each contract violation on the event or frame that broke the rule. */
export function markViolations(section: TimelineSection, violations: readonly Violation[]): number {
  let placed = 0;
  for (const v of violations) {
    const mark = section.marks.find((m) => m.seq === v.interaction && m.index === v.eventIndex && m.kind !== 'request');
    if (!mark) continue;
    note(mark, 'violation', `${v.pack} ${v.rule}: ${v.message}`);
    placed++;
  }
  return placed;
}

/** A route as drift names it (`GET /v1/sessions/{id}/items`) as a test of a recorded path. */
function routeTest(subject: string): ((m: TimelineMark) => boolean) | undefined {
  const route = /^([A-Z]+) (\/\S*)/.exec(subject);
  if (!route) return undefined;
  const [, method, template] = route as unknown as [string, string, string];
  const pattern = new RegExp(
    `^${template
      .split(/\{[^}]*\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );
  return (m) => m.kind === 'request' && m.label.includes(` ${method} `) && pattern.test((m.label.split(' ')[2] ?? '').split('?')[0] ?? '');
}

/**
 * Puts each drift finding on the marks it concerns in one probe's cassette:
 * the events of the type it names, or the requests of the route it names.
 */
export function markDrift(section: TimelineSection, findings: readonly Finding[], probe: string): number {
  let placed = 0;
  for (const f of findings) {
    if (f.probes && !f.probes.includes(probe)) continue;
    const subject = f.subject.split(' in ')[0] ?? f.subject;
    const concerns = routeTest(subject) ?? ((m: TimelineMark) => m.type === subject);
    for (const mark of section.marks.filter(concerns)) {
      note(mark, 'drift', `[${f.severity}] ${f.heading}: ${f.message}`);
      placed++;
    }
  }
  return placed;
}
