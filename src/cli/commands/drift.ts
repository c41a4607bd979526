import type { Command } from 'commander';
import { loadDriftConfig, renderDriftJunit, renderDriftMarkdown, renderDriftText, runDrift, type Severity } from '../../drift/index.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_FAMILY, families, familyById, familyIds } from '../../families/index.js';
import { parseHeader } from '../options.js';
import { addReportOptions, checkReportFlags, emitReport, type ReportFlags } from '../report-output.js';
import { runCommand } from '../run-command.js';

const SEVERITIES = ['breaking', 'notable', 'info'] as const;

interface DriftFlags extends ReportFlags {
  baseline: string;
  server?: string;
  peer?: string;
  candidate?: string;
  harness?: string;
  target: string;
  apiKey?: string;
  header?: Record<string, string>;
  update?: boolean;
  failOn?: string;
  config?: string;
}

const HELP = `
Values are noise (ids, timestamps, token counts, text, timings): only types,
names and order are compared. tapedeck.config.json can add more:
  {"drift": {"ignoreFields": ["blocked_on"], "ignoreEventTypes": ["session.terminal.activity"], "failOn": "breaking"}}

A folder of recordings no family made (bench proxy's: any client, any
language) is re-run against --server: its requests are sent again in their
recorded order and overlap, with the ids the new server hands out in place of
the recorded ones, and the answers compared as any candidate's:
  $ bench drift --baseline recordings --server http://127.0.0.1:8080
  bench drift: re-running 1 recordings of recordings against http://127.0.0.1:8080
  bench drift:   rerun recordings/flow.yaml: 9 requests, 9 sent, 4 issued values learned; poll GET /sessions/ses_4f0c/messages/msg_9a1e sent 5 times (5 recorded, the change showed)
  drift recordings -> http://127.0.0.1:8080: 1 breaking, 1 notable, 1 info (1 probes compared in recordings)

  recordings:
    vocabulary:
      [breaking] message.completed: event type message.completed disappeared
      [notable] message.finished: event type message.finished appeared
    payload shape:
      [info] GET /sessions/{id}/messages/{id}: field usage added

  FAIL: findings at or above breaking

Exit codes: 0 nothing at or above --fail-on, 1 drift found, 2 bad input.

Examples:
  $ bench drift --baseline cassettes --server http://127.0.0.1:6767 --junit drift.xml
  $ bench drift --baseline cassettes/kiro-native --candidate /tmp/new/kiro-native
  $ bench drift --baseline cassettes --server http://127.0.0.1:8642 --target <id> --api-key "$KEY"
  $ bench drift --baseline cassettes/<folder>-real --target <id> --peer ./node_modules/.bin/<binary>

With $GITHUB_STEP_SUMMARY set (GitHub Actions), the Markdown report is also
appended to the job summary.`;

const envKey = (name: string | undefined) => (name ? process.env[name] : undefined);

export function registerDrift(program: Command): void {
  const cmd = program
    .command('drift')
    .description(
      're-record against a changed server (or read a candidate folder) and report what moved: vocabulary, payload shape, ordering, status codes, contracts, verdicts',
    )
    .requiredOption('--baseline <dir>', 'committed cassettes (a harness folder, or a folder of them)')
    .option(
      '--server <url>',
      're-record the same probes against this server into a temporary folder; a folder of bench proxy recordings is re-run as its client sent it (see bench rerun)',
    )
    .option(
      '--peer <binary>',
      `with --target ${families()
        .filter((s) => s.peer)
        .map((s) => s.id)
        .join(' or ')}: re-record against this real vendor binary, started offline against the mock model`,
    )
    .option('--candidate <dir>', 'compare with this folder instead (same layout as the baseline)')
    .option('--harness <id>', 'only this harness')
    .option('--target <id>', `with --server or --peer: ${familyIds().join(', ')}; folders of other families are left out`, DEFAULT_FAMILY)
    .option(
      '--api-key <key>',
      `with --server: the server's key (default ${families()
        .filter((f) => f.apiKeyEnv)
        .map((f) => `$${f.apiKeyEnv} for ${f.id}`)
        .join(', ')})`,
    )
    .option(
      '--header <header>',
      "with --server, for bench proxy recordings: a header for every re-sent request, e.g. 'Authorization: Bearer $KEY' (repeatable)",
      parseHeader,
    )
    .option('--fail-on <severity>', `lowest severity that exits 1: ${SEVERITIES.join(', ')} (default from config, else breaking)`)
    .option('--config <file>', 'JSON config with a "drift" section (default tapedeck.config.json if present)')
    .option('--update', 'after reporting, replace the baseline with the candidate')
    .addHelpText('after', HELP);
  addReportOptions(cmd).action((flags: DriftFlags) =>
    runCommand(async () => {
      await checkReportFlags(flags);
      if (flags.failOn && !(SEVERITIES as readonly string[]).includes(flags.failOn))
        throw new UsageError(`--fail-on ${JSON.stringify(flags.failOn)}: use one of ${SEVERITIES.join(', ')}`);
      const report = await runDrift({
        baseline: flags.baseline,
        server: flags.server,
        peer: flags.peer,
        candidate: flags.candidate,
        harness: flags.harness,
        target: flags.target,
        apiKey: flags.apiKey ?? envKey(familyById(flags.target).apiKeyEnv),
        headers: flags.header,
        config: await loadDriftConfig(flags.config),
        failOn: flags.failOn as Severity | undefined,
        update: flags.update,
        onProgress: (line) => process.stderr.write(`bench drift: ${line}\n`),
      });
      await emitReport(flags, {
        text: () => renderDriftText(report),
        json: () => report,
        junit: () => renderDriftJunit(report),
        markdown: () => renderDriftMarkdown(report),
      });
      if (flags.update) process.stderr.write(`bench drift: baseline ${flags.baseline} replaced with the candidate\n`);
      return report.failed ? 1 : 0;
    }),
  );
}
