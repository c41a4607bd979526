import { type Finding, HEADINGS } from './compare.js';

export interface DriftReport {
  baseline: string;
  candidate: string;
  findings: Finding[];
  failOn: Finding['severity'];
  failed: boolean;
}

const counts = (f: Finding[]) =>
  `${f.filter((x) => x.severity === 'breaking').length} breaking, ${f.filter((x) => x.severity === 'notable').length} notable, ${f.filter((x) => x.severity === 'info').length} info`;

/** Grouped by scope and heading, breaking first: readable in a minute. */
export function renderDriftText(report: DriftReport): string {
  const lines = [`drift ${report.baseline} -> ${report.candidate}: ${counts(report.findings)}`];
  const scopes = [...new Set(report.findings.map((f) => f.scope))].sort();
  for (const scope of scopes) {
    lines.push('', `${scope}:`);
    for (const heading of HEADINGS) {
      const found = report.findings.filter((f) => f.scope === scope && f.heading === heading);
      if (found.length === 0) continue;
      lines.push(`  ${heading}:`);
      for (const f of found) {
        lines.push(`    [${f.severity}] ${f.subject}: ${f.message}`);
        for (const e of f.excerpt ?? []) lines.push(`      ${e}`);
      }
    }
  }
  lines.push('', report.failed ? `FAIL: findings at or above ${report.failOn}` : `ok: nothing at or above ${report.failOn}`);
  return lines.join('\n');
}

const md = (s: string) => s.replace(/\|/g, '\\|');

/** For a pull-request comment or a CI job summary. */
export function renderDriftMarkdown(report: DriftReport): string {
  const lines = [
    `## tapedeck drift: ${report.failed ? '❌' : '✅'} ${counts(report.findings)}`,
    '',
    `Baseline \`${report.baseline}\`, candidate \`${report.candidate}\`.`,
  ];
  if (report.findings.length > 0) {
    lines.push('', '| severity | harness | heading | subject | change |', '|---|---|---|---|---|');
    const order = { breaking: 0, notable: 1, info: 2 };
    for (const f of [...report.findings].sort((a, b) => order[a.severity] - order[b.severity])) {
      const change = f.excerpt ? `${f.message}<br>\`${md(f.excerpt.join('`<br>`'))}\`` : f.message;
      lines.push(`| ${f.severity} | ${md(f.scope)} | ${f.heading} | \`${md(f.subject)}\` | ${md(change)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch] as string);

/** One testsuite per harness, one testcase per heading; failures at or above the fail-on severity. */
export function renderDriftJunit(report: DriftReport): string {
  const order = { breaking: 0, notable: 1, info: 2 };
  const failing = (f: Finding) => order[f.severity] <= order[report.failOn];
  const scopes = [...new Set(report.findings.map((f) => f.scope))].sort();
  const suites = scopes.map((scope) => {
    const cases = HEADINGS.map((heading) => {
      const bad = report.findings.filter((f) => f.scope === scope && f.heading === heading && failing(f));
      if (bad.length === 0) return `    <testcase classname="${xml(scope)}" name="${heading}"/>`;
      const text = bad.map((f) => `[${f.severity}] ${f.subject}: ${f.message}${f.excerpt ? `\n${f.excerpt.join('\n')}` : ''}`).join('\n');
      return `    <testcase classname="${xml(scope)}" name="${heading}">\n      <failure message="${xml(bad[0]?.message ?? '')}">${xml(text)}</failure>\n    </testcase>`;
    });
    const failures = HEADINGS.filter((h) => report.findings.some((f) => f.scope === scope && f.heading === h && failing(f))).length;
    return `  <testsuite name="${xml(scope)}" tests="${HEADINGS.length}" failures="${failures}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="tapedeck drift">\n${suites.join('\n')}\n</testsuites>\n`;
}
