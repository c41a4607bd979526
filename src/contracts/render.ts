import { markdownTable, renderJunitXml } from '../report/index.js';
import type { VerifyReport, Violation } from './report-types.js';

const paint = (on: boolean) => ({
  red: (s: string) => (on ? `\u001b[31m${s}\u001b[39m` : s),
  green: (s: string) => (on ? `\u001b[32m${s}\u001b[39m` : s),
  dim: (s: string) => (on ? `\u001b[2m${s}\u001b[22m` : s),
});

/** One violation as readable text: where, which rule, what, and the events around it. */
export function renderViolation(v: Violation, colour = false): string {
  const c = paint(colour);
  const head = `${c.red('✗')} ${v.cassette} #${v.interaction} event ${v.eventIndex}: ${v.pack} ${v.rule}: ${v.message}`;
  return [head, ...v.excerpt.map((l) => c.dim(`    ${l}`))].join('\n');
}

/** The whole report as text; the last line counts what was checked. */
export function renderText(report: VerifyReport, colour = false): string {
  const c = paint(colour);
  const streams = report.cassettes.reduce((n, x) => n + x.streams, 0);
  const events = report.cassettes.reduce((n, x) => n + x.events, 0);
  const rules = new Set(report.cassettes.flatMap((x) => x.rules.map((r) => `${r.pack} ${r.rule}`))).size;
  const unchecked = report.cassettes.filter((x) => x.packs.length === 0).length;
  const lines = report.violations.map((v) => renderViolation(v, colour));
  // Not judged, so not failures: each in one line, after the violations.
  for (const v of report.notObserved)
    lines.push(c.dim(`~ ${v.cassette} #${v.interaction} event ${v.eventIndex}: ${v.pack} ${v.rule}: ${v.message}`));
  for (const x of report.cassettes)
    for (const pick of x.chosen ?? []) lines.push(`${x.cassette}: names no pack; checked with ${pick.pack} (${pick.why})`);
  const verdict = report.violations.length === 0 ? c.green('no violations') : c.red(`${report.violations.length} violations`);
  lines.push(
    `checked ${report.cassettes.length} cassettes, ${streams} streams, ${events} events against ${rules} rules: ${verdict}${notObserved(report)}${unchecked ? ` (${unchecked} cassettes name no pack; use --pack)` : ''}`,
  );
  return lines.join('\n');
}

/** JUnit XML: one testsuite per cassette, one testcase per pack rule checked on it. */
export function renderJunit(report: VerifyReport): string {
  return renderJunitXml(
    'tapedeck verify',
    report.cassettes.map((cassette) => ({
      name: cassette.cassette,
      cases: cassette.rules.map((r) => ({
        classname: cassette.cassette,
        name: `${r.pack} ${r.rule}`,
        ...(r.violations.length > 0
          ? {
              failure: {
                type: r.violations[0]?.code ?? 'violation',
                message: r.violations[0]?.message ?? '',
                body: r.violations.map((v) => renderViolation(v)).join('\n\n'),
              },
            }
          : {}),
      })),
    })),
  );
}

/** For a CI job summary: the count, then one row per violation. */
export function renderMarkdown(report: VerifyReport): string {
  const events = report.cassettes.reduce((n, x) => n + x.events, 0);
  const head = `## tapedeck verify: ${report.violations.length === 0 ? '✅ no violations' : `❌ ${report.violations.length} violations`}`;
  const lines = [head, '', `${report.cassettes.length} cassettes, ${events} events checked${notObserved(report)}.`];
  if (report.violations.length > 0)
    lines.push(
      '',
      markdownTable(
        ['cassette', 'interaction', 'event', 'rule', 'what'],
        report.violations.map((v) => [v.cassette, `#${v.interaction}`, String(v.eventIndex), `${v.pack} ${v.rule}`, v.message]),
      ),
    );
  return `${lines.join('\n')}\n`;
}

/** The count of rule checks left unjudged on streams cut short, for a summary line. */
function notObserved(report: VerifyReport): string {
  const n = report.notObserved.length;
  return n === 0 ? '' : `, ${n} not observed (a stream the client closed or a stop cut ended before the event a rule waits for)`;
}
