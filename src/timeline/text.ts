import type { TimelineSection } from './model.js';

/**
 * The timeline as text, one line per mark in time order: when, what, and
 * what released it (the request or client frame of its `after` link).
 */
export function renderTimelineText(section: TimelineSection): string[] {
  const releasedBy = new Map(section.arrows.map((a) => [a.to, a.from]));
  const order = [...section.marks].sort((a, b) => a.at - b.at || a.id - b.id);
  const width = section.spanMs.toFixed(1).length;
  return order.map((m) => {
    const from = releasedBy.get(m.id);
    const cause =
      from === undefined ? '' : `  ← released by ${section.marks[from]?.label.replace(/ → .*$/, '').replace(/ at [\d.]+ ms$/, '')}`;
    const notes = (m.notes ?? []).map((n) => `  [${n.kind}] ${n.text}`).join('');
    const label = m.kind === 'request' ? `${m.label} (until ${(m.until ?? m.at).toFixed(1)} ms)` : m.label.replace(/ at [\d.]+ ms$/, '');
    return `${m.at.toFixed(1).padStart(width)} ms  ${label}${m.failed ? '  FAILED' : ''}${cause}${notes}`;
  });
}
