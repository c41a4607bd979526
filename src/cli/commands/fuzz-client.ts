import { stat } from 'node:fs/promises';
import type { Pack } from '../../contracts/index.js';
import { UsageError } from '../../errors.js';
import { isCassetteFile, listFiles } from '../../fs/list-files.js';
import { type ClientFuzzRow, formatCounterexample, fuzzClient } from '../../fuzz/index.js';
import { type CheckRow, checkRowsJunit, checkRowsMarkdown } from '../../report/index.js';
import { emitReport, reportFormat } from '../report-output.js';
import type { FuzzFlags } from './fuzz.js';

function describeClientRow(r: ClientFuzzRow): string {
  const slowest = `slowest run ${(r.slowestMs / 1000).toFixed(1)} s`;
  if (!r.report.failure) return `ok   ${r.file}: ${r.report.runs} legal variations, the client passed each (${slowest})\n`;
  const lines = formatCounterexample(r.report).split('\n');
  return `FAIL ${r.file}: a legal variation broke the client\n${lines.map((l) => `     ${l}`).join('\n')}\n`;
}

/** `bench fuzz --client CMD`: the user's own client against legal variations of each recording. */
export async function runClientFuzz(flags: FuzzFlags, o: { runs: number; seed: number; packs: Pack[] | undefined }): Promise<number> {
  const command = flags.client as string;
  if (!command.includes('{url}'))
    throw new UsageError(`--client ${JSON.stringify(command)} has no {url}: put {url} where the client takes the server's address`);
  const kind = await stat(flags.cassettes).catch(() => undefined);
  if (!kind) throw new UsageError(`--cassettes ${flags.cassettes}: no such file or folder`);
  const files = kind.isDirectory() ? await listFiles(flags.cassettes, isCassetteFile) : [flags.cassettes];
  if (files.length === 0) throw new UsageError(`--cassettes ${flags.cassettes} holds no cassette (*.yaml)`);
  const human = reportFormat(flags) === 'text';
  const started = Date.now();
  if (human) process.stdout.write(`fuzzing ${command} against ${files.length} recordings: ${o.runs} variations each, seed ${o.seed}\n`);
  const rows = await fuzzClient(files, {
    command,
    runs: o.runs,
    seed: o.seed,
    jobs: flags.jobs,
    timeoutMs: flags.timeout,
    ...(o.packs ? { packs: o.packs } : {}),
    ...(flags.saveCounterexample ? { saveCounterexamples: flags.saveCounterexample } : {}),
    onDone: (r) => {
      if (human) process.stdout.write(describeClientRow(r));
    },
  });
  const broke = rows.filter((r) => r.report.failure);
  const checks = rows.map(
    (r): CheckRow => ({
      group: 'client',
      name: r.file,
      ok: !r.report.failure,
      summary: r.report.failure
        ? `broke on variation ${r.report.failure.runs} (seed ${o.seed})`
        : `${r.report.runs} legal variations passed`,
      ...(r.report.failure ? { detail: formatCounterexample(r.report) } : {}),
    }),
  );
  const tried = rows.reduce((n, r) => n + r.report.runs, 0);
  await emitReport(flags, {
    text: () =>
      `${rows.length} recordings, ${tried} variations in ${((Date.now() - started) / 1000).toFixed(1)} s: ${broke.length === 0 ? 'the client passed every one' : `${broke.length} broke it`} (seed ${o.seed})`,
    json: () => ({ seed: o.seed, runs: o.runs, rows }),
    junit: () => checkRowsJunit('tapedeck fuzz --client', checks),
    markdown: () => checkRowsMarkdown(`tapedeck fuzz --client (seed ${o.seed})`, checks, `recordings, ${tried} legal variations`),
  });
  return broke.length === 0 ? 0 : 1;
}
