import { type JunitCase, markdownCell as md, renderJunitXml } from '../report/index.js';
import { type Finding, HEADINGS } from './compare.js';

export interface DriftReport {
  baseline: string;
  candidate: string;
  /** Every harness compared, with the probes compared in it: a clean run lists them all. */
  compared: { scope: string; probes: string[] }[];
  findings: Finding[];
  failOn: Finding['severity'];
  failed: boolean;
}

const counts = (f: Finding[]) =>
  `${f.filter((x) => x.severity === 'breaking').length} breaking, ${f.filter((x) => x.severity === 'notable').length} notable, ${f.filter((x) => x.severity === 'info').length} info`;

/** Grouped by scope and heading, breaking first: readable in a minute. */
export function renderDriftText(report: DriftReport): string {
  const probes = report.compared.reduce((n, c) => n + c.probes.length, 0);
  const lines = [
    `drift ${report.baseline} -> ${report.candidate}: ${counts(report.findings)} (${probes} probes compared in ${report.compared.map((c) => c.scope).join(', ') || 'no harness'})`,
  ];
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

/**
 * One testsuite per harness, one testcase per probe compared (passing ones
 * too) plus one for what concerns the whole harness (routes, vocabulary,
 * shapes); findings at or above the fail-on severity are failures, the others
 * are listed in the testcase's output at their severity.
 */
export function renderDriftJunit(report: DriftReport): string {
  const order = { breaking: 0, notable: 1, info: 2 };
  const failing = (f: Finding) => order[f.severity] <= order[report.failOn];
  const line = (f: Finding) => `[${f.severity}] ${f.heading}: ${f.subject}: ${f.message}${f.excerpt ? `\n${f.excerpt.join('\n')}` : ''}`;
  const scopes = [...new Set([...report.compared.map((c) => c.scope), ...report.findings.map((f) => f.scope)])].sort();
  const suites = scopes.map((scope) => {
    const probes = report.compared.find((c) => c.scope === scope)?.probes ?? [];
    const mine = report.findings.filter((f) => f.scope === scope);
    const cases = [HARNESS_CASE, ...probes].map((name): JunitCase => {
      const found = mine.filter((f) => (name === HARNESS_CASE ? !f.probes?.length : f.probes?.includes(name)));
      const bad = found.filter(failing);
      const rest = found.filter((f) => !failing(f));
      return {
        classname: scope,
        name,
        ...(bad[0] ? { failure: { type: bad[0].severity, message: bad[0].message, body: bad.map(line).join('\n') } } : {}),
        ...(rest.length ? { output: rest.map(line).join('\n') } : {}),
      };
    });
    return { name: scope, cases };
  });
  return renderJunitXml('tapedeck drift', suites);
}

/** The testcase for findings about the harness as a whole, not one probe. */
const HARNESS_CASE = '(harness: routes, vocabulary, shapes, values)';
