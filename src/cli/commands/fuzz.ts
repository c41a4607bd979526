import type { Command } from 'commander';
import { loadPacks, type Pack } from '../../contracts/index.js';
import { UsageError } from '../../errors.js';
import { formatCounterexample, fuzzProbes, newSeed, type ProbeFuzzRow } from '../../fuzz/index.js';
import { type CheckRow, checkRowsJunit, checkRowsMarkdown, progressReporter } from '../../report/index.js';
import { parseJobs, parseSeed, parseWholeMs } from '../options.js';
import { addReportOptions, checkReportFlags, emitReport, type ReportFlags, reportFormat } from '../report-output.js';
import { runCommand } from '../run-command.js';
import { runClientFuzz } from './fuzz-client.js';

export interface FuzzFlags extends ReportFlags {
  cassettes: string;
  client?: string;
  jobs: number;
  timeout: number;
  runs: string;
  seed?: string;
  pack?: string[];
  saveCounterexample?: string;
  varyObserved?: boolean;
}

function parseRuns(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100_000)
    throw new UsageError(`--runs ${JSON.stringify(value)}: give the number of variations per probe, from 1 to 100000`);
  return n;
}

function describeRow(r: ProbeFuzzRow): string {
  const f = r.report.failure;
  const unreplayable =
    r.report.unreplayable > 0 ? ` (${r.report.unreplayable} more the recording cannot replay: the driver sent back varied text)` : '';
  if (!f) return `ok   ${r.harness} ${r.probe}: ${r.report.runs} legal variations, verdict ${r.expected} held${unreplayable}\n`;
  const head = `FAIL ${r.harness} ${r.probe}: verdict ${r.replayed ?? '?'} instead of ${r.expected} on variation ${f.runs}`;
  return `${head}\n${formatCounterexample(r.report)
    .split('\n')
    .map((l) => `     ${l}`)
    .join('\n')}\n`;
}

export function registerFuzz(program: Command): void {
  const cmd = program
    .command('fuzz')
    .description("throw legal variations of recorded streams at the bench's own driver and check each probe keeps its recorded verdict")
    .option('--cassettes <dir>', 'folder bench record wrote (a harness folder or a folder of them)', 'cassettes')
    .option('--runs <n>', 'variations per probe', '100')
    .option('--seed <n>', 'fast-check seed (default: a new one, printed); the same seed tries the same variations')
    .option(
      '--pack <name|file>',
      "pack that decides which variations are legal, instead of each cassette's meta.packs (repeatable): a built-in name, a pack file (.yaml, .json) or a module (.js)",
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option(
      '--vary-observed',
      'also add and remove the events a verdict is about (text deltas for streaming): shows which verdicts rest on events the contract calls optional',
    )
    .option('--client <command>', "fuzz your own client, in any language: a shell command with {url} where the replay server's URL goes")
    .option('--jobs <n>', 'with --client: recordings fuzzed at once, each variation on a port of its own', parseJobs, 2)
    .option('--timeout <ms>', 'with --client: how long one run of it may take before it counts as hung', parseWholeMs, 30_000)
    .option('--save-counterexample <dir>', 'write each shrunk counterexample there as a cassette (<harness>.<probe>.yaml)')
    .addHelpText(
      'after',
      [
        '',
        'A variation is legal when every pack of the cassette still accepts it: events moved among those one request',
        'released, optional events (heartbeats, status flaps, activity pings, deltas) added or removed, payload fields',
        'dropped, nulled or added within the schemas, CRLF or CR line endings, and chunk cuts at any byte.',
        'Each run replays offline in about 30 ms; a failure is shrunk and printed with its seed and path.',
        '',
        'With --client, your own client (any language) is the one fuzzed: each variation of each recording is served by',
        'the replay engine on a port of its own, the command runs with {url} replaced, and it passes when it exits 0,',
        'sends every recorded request and no other, within --timeout. Recordings of bench proxy need a pack that fits',
        'their traffic (built in, or --pack; bench infer learns one).',
        '',
        'Exit codes: 0 every probe kept its verdict, 1 a legal variation changed one, 2 bad input.',
        '',
        'Examples:',
        '  $ bench fuzz --runs 1000',
        '  $ bench fuzz --cassettes cassettes/kiro-native --seed 42 --save-counterexample regressions',
        '  $ bench fuzz --shard 1/4 --junit fuzz-1.xml',
        "  $ bench fuzz --cassettes recordings --pack team-pack.yaml --client 'python my_client.py {url}' --runs 50",
      ].join('\n'),
    );
  addReportOptions(cmd, { shard: true }).action((flags: FuzzFlags) =>
    runCommand(async () => {
      await checkReportFlags(flags);
      const runs = parseRuns(flags.runs);
      const seed = flags.seed === undefined ? newSeed() : parseSeed(flags.seed);
      const packs = flags.pack ? (await Promise.all(flags.pack.map(loadPacks))).flat() : undefined;
      if (flags.client !== undefined) return runClientFuzz(flags, { runs, seed, packs });
      return runProbeFuzz(flags, runs, seed, packs);
    }),
  );
}

/** The probes' own client against each recorded probe. */
async function runProbeFuzz(flags: FuzzFlags, runs: number, seed: number, packs: Pack[] | undefined): Promise<number> {
  const human = reportFormat(flags) === 'text';
  const started = Date.now();
  const progress = progressReporter('bench fuzz');
  const shard = flags.shard ? `, shard ${flags.shard.index}/${flags.shard.count}` : '';
  if (human) process.stdout.write(`fuzzing ${flags.cassettes}: ${runs} variations per probe, seed ${seed}${shard}\n`);
  const rows = await fuzzProbes(flags.cassettes, {
    runs,
    seed,
    ...(packs ? { packs } : {}),
    ...(flags.saveCounterexample ? { saveDir: flags.saveCounterexample } : {}),
    ...(flags.varyObserved ? { varyObserved: true } : {}),
    ...(flags.shard ? { shard: flags.shard } : {}),
    onRow: (r, done, total) => {
      if (human) process.stdout.write(describeRow(r));
      // Long work says how far it is, on stderr so a piped report stays clean.
      progress(done, total);
    },
  });
  const broke = rows.filter((r) => r.report.failure);
  const checks = rows.map(
    (r): CheckRow => ({
      group: r.harness,
      name: r.probe,
      ok: !r.report.failure,
      summary: r.report.failure
        ? `verdict ${r.replayed ?? '?'} instead of ${r.expected} on variation ${r.report.failure.runs} (seed ${seed})`
        : `${r.report.runs} legal variations, verdict ${r.expected} held`,
      ...(r.report.failure ? { detail: formatCounterexample(r.report) } : {}),
    }),
  );
  const tried = rows.reduce((n, r) => n + r.report.runs, 0);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  await emitReport(flags, {
    text: () =>
      `${rows.length} probes, ${tried} variations in ${seconds} s: ${broke.length === 0 ? 'every verdict held' : `${broke.length} broke`} (seed ${seed})`,
    json: () => ({ seed, runs, rows }),
    junit: () => checkRowsJunit('tapedeck fuzz', checks),
    markdown: () => checkRowsMarkdown(`tapedeck fuzz (seed ${seed})`, checks, `probes, ${tried} legal variations`),
  });
  return broke.length === 0 ? 0 : 1;
}
