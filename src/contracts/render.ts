import type { VerifyReport, Violation } from './verify.js';

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
  for (const x of report.cassettes)
    for (const pick of x.chosen ?? []) lines.push(`${x.cassette}: names no pack; checked with ${pick.pack} (${pick.why})`);
  const verdict = report.violations.length === 0 ? c.green('no violations') : c.red(`${report.violations.length} violations`);
  lines.push(
    `checked ${report.cassettes.length} cassettes, ${streams} streams, ${events} events against ${rules} rules: ${verdict}${unchecked ? ` (${unchecked} cassettes name no pack; use --pack)` : ''}`,
  );
  return lines.join('\n');
}

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch] as string);

/** JUnit XML: one testsuite per cassette, one testcase per pack rule checked on it. */
export function renderJunit(report: VerifyReport): string {
  const suites = report.cassettes.map((cassette) => {
    const failures = cassette.rules.filter((r) => r.violations.length > 0).length;
    const cases = cassette.rules.map((r) => {
      const name = xml(`${r.pack} ${r.rule}`);
      if (r.violations.length === 0) return `    <testcase classname="${xml(cassette.cassette)}" name="${name}"/>`;
      const body = r.violations.map((v) => renderViolation(v)).join('\n\n');
      return `    <testcase classname="${xml(cassette.cassette)}" name="${name}">\n      <failure message="${xml(r.violations[0]?.message ?? '')}" type="${r.violations[0]?.code}">${xml(body)}</failure>\n    </testcase>`;
    });
    return `  <testsuite name="${xml(cassette.cassette)}" tests="${cassette.rules.length}" failures="${failures}" errors="0">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const tests = report.cassettes.reduce((n, c) => n + c.rules.length, 0);
  const failures = report.cassettes.reduce((n, c) => n + c.rules.filter((r) => r.violations.length > 0).length, 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="tapedeck verify" tests="${tests}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}
