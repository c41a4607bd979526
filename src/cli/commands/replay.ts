import type { Command } from 'commander';
import { findConfigFile, loadRedactionConfig, readConfigSection } from '../../config.js';
import { UsageError } from '../../errors.js';
import { type ReplayCheckRow, replayCheck } from '../../probing/index.js';
import { loadCassetteSet, type MatchConfig, matchConfigSchema, startReplayServer } from '../../replayer/index.js';
import { type CheckRow, checkRowsJunit, checkRowsMarkdown, progressReporter } from '../../report/index.js';
import { parseByteCount, parseMissStatus, parsePort } from '../options.js';
import { addReportOptions, checkReportFlags, emitReport, type ReportFlags, reportFormat } from '../report-output.js';
import { runCommand } from '../run-command.js';
import { whenStopped } from '../stop-signal.js';

interface ReplayFlags {
  maxRequestBody?: number;
  cassette?: string[];
  port: number;
  host: string;
  timing: string;
  strict?: boolean;
  lenient?: boolean;
  quiet?: boolean;
  onMiss?: number;
  config?: string;
}

/** The `match` section of the config (the library's matching options), checked; none when absent. */
async function loadMatchConfig(file: string | undefined): Promise<MatchConfig> {
  const result = matchConfigSchema.safeParse((await readConfigSection(file, 'match')) ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = (await findConfigFile(file)) ?? 'tapedeck.config.json';
  throw new UsageError(`config ${where} match.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
}

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
    .addHelpText(
      'after',
      `
The first line on stdout is "listening on URL"; one line per request goes to
stderr. SSE events are released causally: an event recorded after the client's
POST waits until this client has sent that POST again. Stop with Ctrl-C; on
exit it lists recorded interactions no client asked for.

Example:
  $ bench replay --cassette cassettes/kiro-native --port 8080 --timing realtime
  $ bench replay cassettes/kiro-native cassettes/claude-native --on-miss 500`,
    )
    .action((positional: string[], flags: ReplayFlags) =>
      runCommand(async () => {
        if (flags.strict && flags.lenient) throw new UsageError('--strict and --lenient exclude each other; pick one');
        // A signal, or the wrapper that started us (npx, a shell) gone.
        const stopped = whenStopped(() => {});
        const paths = [...positional, ...(flags.cassette ?? [])];
        if (paths.length === 0)
          throw new UsageError('name the cassettes to serve: bench replay FILE|FOLDER..., or --cassette FILE|FOLDER (repeatable)');
        const redact = await loadRedactionConfig(flags.config);
        const match = await loadMatchConfig(flags.config);
        const set = [];
        for (const path of paths) set.push(...(await loadCassetteSet(path)));
        const server = await startReplayServer(set, {
          redact,
          ...match,
          port: flags.port,
          host: flags.host,
          timing: flags.timing,
          mode: flags.lenient ? 'lenient' : 'strict',
          ...(flags.onMiss ? { onMiss: flags.onMiss } : {}),
          ...(flags.maxRequestBody ? { maxRequestBody: flags.maxRequestBody } : {}),
          ...(flags.quiet ? {} : { log: (line: string) => process.stderr.write(`bench replay: ${line}\n`) }),
        });
        process.stdout.write(`listening on ${server.url}\n`);
        await stopped;
        await server.close();
        const unused = server.engine.unused();
        if (unused.length > 0) process.stderr.write(`bench replay: ${unused.length} recorded interactions were never requested\n`);
        return server.engine.missCount > 0 && server.engine.mode === 'strict' ? 1 : 0;
      }),
    );

  const check = program
    .command('replay-check')
    .description('run every recorded probe of the TypeScript driver against its cassette, offline, and compare verdicts with the manifests')
    .argument('[dir]', 'folder bench record wrote', 'cassettes')
    .addHelpText(
      'after',
      '\nExit codes: 0 every verdict reproduced, 1 one differs, 2 bad input.\n\nExamples (in CI):\n  $ bench replay-check cassettes --junit replay-check.xml\n  $ bench replay-check cassettes --shard 2/3',
    );
  addReportOptions(check, { shard: true }).action((dir: string, flags: ReportFlags) =>
    runCommand(async () => {
      await checkReportFlags(flags);
      const human = reportFormat(flags) === 'text';
      const progress = progressReporter('bench replay-check');
      const rows: ReplayCheckRow[] = await replayCheck(dir, {
        ...(flags.shard ? { shard: flags.shard } : {}),
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
