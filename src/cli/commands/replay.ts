import type { Command } from 'commander';
import { type ReplayCheckRow, replayCheck } from '../../probing/index.js';
import { type UsageFile, writeUsageFile } from '../../replayer/index.js';
import { type CheckRow, checkRowsJunit, checkRowsMarkdown, progressReporter } from '../../report/index.js';
import { parseByteCount, parseMissStatus, parsePort, seedParser } from '../options.js';
import { addReportOptions, checkReportFlags, emitReport, type ReportFlags, reportFormat } from '../report-output.js';
import { runCommand } from '../run-command.js';
import { REPLAY_HELP, type ReplayFlags, runReplay } from './replay-run.js';

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('serve cassettes as a real HTTP server on loopback, for clients in any language')
    .argument('[cassettes...]', 'cassette files or folders to serve, as --cassette')
    .option(
      '--cassette <path>',
      'a cassette file, or a folder served as one set (a recorded harness folder replays in probe order); repeatable: all are served, in the order given',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--max-request-body <bytes>',
      'request bodies larger than this are answered 413 unread (default 67108864, 64 MiB)',
      parseByteCount,
    )
    .option('--port <n>', 'port to listen on; 0 picks a free one', parsePort, 0)
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--timing <mode>', 'instant (no waits, order kept), realtime, or scaled:<factor>', 'instant')
    .option('--strict', 'an unmatched request answers 400 with code tapedeck_unmatched_request and the nearest recordings (the default)')
    .option(
      '--on-miss <status>',
      'the status of a strict miss instead of 400 (400 is not retried by the openai SDK, undici or httpx; 5xx is)',
      parseMissStatus,
    )
    .option('--lenient', 'an unmatched request is logged and answered 404 with code tapedeck_no_recording')
    .option('--quiet', 'no log line per request')
    .option(
      '--config <file>',
      'JSON config: its "redact" section (what the cassettes were recorded with: live requests are redacted the same way before matching) and its "match" section (ignoreBodyPaths, ignoreQuery, matchHeaders); default tapedeck.config.json if present',
    )
    .option(
      '--pid-file <file>',
      'write the PID here once listening: the server then runs until stopped by a signal, past the shell that started it',
    )
    .option('--ready-file <file>', 'write the URL here once listening, for a script that waits for it')
    .option('--usage <file>', 'on exit, write which recordings the clients used, for bench prune --usage')
    .option(
      '--fault <rule>',
      'break the transport on chosen answers (repeatable): key=value pairs such as kind=status,status=503,header.retry-after=1,path=/v1/*,call=1, or JSON; see FAULTS below',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--faults <file>', 'fault rules from a YAML or JSON file: { seed, faults: [...] }')
    .option(
      '--fault-seed <n>',
      "the seed a rule's probability draws from (default 0, or the file's): the same seed breaks the same calls",
      seedParser('--fault-seed'),
    )
    .addHelpText('after', REPLAY_HELP)
    .action((positional: string[], flags: ReplayFlags) => runCommand(() => runReplay(positional, flags)));

  registerReplayCheck(program);
}

/** `bench replay-check`: every recorded probe replayed offline against its manifest's verdict. */
function registerReplayCheck(program: Command): void {
  const check = program
    .command('replay-check')
    .description('run every recorded probe of the TypeScript driver against its cassette, offline, and compare verdicts with the manifests')
    .argument('[dir]', 'folder bench record wrote', 'cassettes')
    .option('--usage <file>', 'write which recordings the probes used, for bench prune --usage')
    .addHelpText(
      'after',
      '\nExit codes: 0 every verdict reproduced, 1 one differs, 2 bad input.\n\nExamples (in CI):\n  $ bench replay-check cassettes --junit replay-check.xml\n  $ bench replay-check cassettes --shard 2/3',
    );
  addReportOptions(check, { shard: true }).action((dir: string, flags: ReportFlags & { usage?: string }) =>
    runCommand(async () => {
      await checkReportFlags(flags);
      const human = reportFormat(flags) === 'text';
      const progress = progressReporter('bench replay-check');
      const usages: UsageFile[] = [];
      const rows: ReplayCheckRow[] = await replayCheck(dir, {
        ...(flags.shard ? { shard: flags.shard } : {}),
        onUsage: (u) => usages.push(u),
        onRow: (r, done, total) => {
          if (!human) return;
          const mark = r.ok ? 'ok  ' : 'FAIL';
          const detail = r.ok ? '' : ` (manifest says ${r.expected}: ${r.reason})`;
          process.stdout.write(`${mark} ${r.harness} ${r.probe}: ${r.replayed}${detail}\n`);
          progress(done, total);
        },
      });
      const checks = rows.map(
        (r): CheckRow => ({
          group: r.harness,
          name: r.probe,
          ok: r.ok,
          summary: r.ok ? r.replayed : `replayed ${r.replayed}, manifest says ${r.expected}: ${r.reason}`,
        }),
      );
      const failed = rows.filter((r) => !r.ok).length;
      if (flags.usage) await writeUsageFile(flags.usage, ...usages);
      await emitReport(flags, {
        text: () =>
          `${rows.length - failed} passed, ${failed} failed${flags.shard ? ` (shard ${flags.shard.index}/${flags.shard.count})` : ''}`,
        json: () => rows,
        junit: () => checkRowsJunit('tapedeck replay-check', checks),
        markdown: () => checkRowsMarkdown('tapedeck replay-check', checks, 'recorded probes replayed'),
      });
      return failed === 0 ? 0 : 1;
    }),
  );
}
