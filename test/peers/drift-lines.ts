import { expect } from 'vitest';
import { runBench } from '../helpers/cli.js';

/** `npx bench drift --target <target> --server` against a baseline folder, every severity, as the expected files write it. */
export async function driftLines(target: string, baseline: string, url: string): Promise<string[]> {
  const r = await runBench(['drift', '--baseline', baseline, '--target', target, '--server', url, '--fail-on', 'info', '--json']);
  expect([0, 1], r.stderr).toContain(r.code);
  const report = JSON.parse(r.stdout) as {
    compared: { scope: string; probes: string[] }[];
    findings: { scope: string; severity: string; subject: string; message: string }[];
  };
  return [
    ...report.compared.map((c) => `compared ${c.scope}: ${c.probes.length} probes`),
    ...report.findings.map((f) => `${f.scope} [${f.severity}] ${f.subject}: ${f.message}`),
  ];
}
