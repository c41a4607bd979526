import { mkdir, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { isCassetteFile, listFiles } from '../../fs/list-files.js';
import { describeRerun, rerunCassette } from '../../rerun/index.js';
import { parseHeader, parseWholeMs } from '../options.js';
import { runCommand } from '../run-command.js';

interface RerunFlags {
  server: string;
  out: string;
  header?: Record<string, string>;
  pollBound: number;
  timeout: number;
  config?: string;
}

const HELP = `
Each recording's requests go to --server in their recorded order and with
their recorded overlap: a request waits for what had ended before it was sent
in the recording, and for each open stream to come as far as it had then. A
stream is read as far as the recorded client read it. Values the server hands
out (ids in JSON bodies and SSE events, Location, a session header or token)
are learned from the new answers and put in place of the
recorded ones in every later request: path, query, headers and body. A poll
(the same request repeated until an answer changed) is sent again until the
recorded change shows, at most --poll-bound times.

Recorded secrets are placeholders and are not sent: give a key with
--header 'Authorization: Bearer $KEY' ($KEY is read from the environment).
The new recordings are redacted as any other, one per input, under --out with
the same names. Compare them with bench drift --candidate, or run
bench drift --baseline DIR --server URL, which re-runs and compares in one go.

Exit codes: 0 every request answered, 1 some failed (refused, reset, timed out), 2 bad input.

Example:
  $ bench rerun recordings/ --server http://127.0.0.1:8080 --out /tmp/rerun
  rerun recordings/chat.yaml: 9 requests, 11 sent, 3 issued values learned; poll GET /v1/items sent 4 times (3 recorded, the change showed)
  wrote /tmp/rerun/chat.yaml`;

export function registerRerun(program: Command): void {
  program
    .command('rerun')
    .description('send the requests of any recording (a bench proxy one too) to a server again, as its client did, and record the answers')
    .argument('<recordings>', 'a cassette, or a folder of them')
    .requiredOption('--server <url>', 'base URL of the server to send them to')
    .requiredOption('--out <dir>', 'folder for the new recordings (same names as the inputs)')
    .option('--header <header>', "a header for every request, e.g. 'Authorization: Bearer $KEY' (repeatable)", parseHeader)
    .option('--poll-bound <n>', 'at most this many sends of a poll whose recorded change does not show', parsePollBound, 50)
    .option('--timeout <ms>', 'how long an answer, or a wait on a stream, may take', parseWholeMs, 60_000)
    .option('--config <file>', 'JSON config whose "redact" section adds redaction rules (default tapedeck.config.json if present)')
    .addHelpText('after', HELP)
    .action((recordings: string, flags: RerunFlags) => runCommand(() => runRerun(recordings, flags)));
}

function parsePollBound(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 10_000)
    throw new UsageError(`--poll-bound ${JSON.stringify(value)}: give a whole number from 1 to 10000`);
  return n;
}

async function runRerun(recordings: string, flags: RerunFlags): Promise<number> {
  const kind = await stat(recordings).catch(() => undefined);
  if (!kind) throw new UsageError(`${recordings}: no such file or folder; give a cassette or a folder of them`);
  const files = kind.isDirectory() ? await listFiles(recordings, isCassetteFile) : [recordings];
  if (files.length === 0) throw new UsageError(`${recordings} holds no cassette (*.yaml)`);
  const root = kind.isDirectory() ? recordings : dirname(recordings);
  if (resolve(flags.out) === resolve(root)) throw new UsageError(`--out ${flags.out} is where the recordings are; give another folder`);
  const redact = await loadRedactionConfig(flags.config);
  let failed = false;
  for (const file of files) {
    const out = join(flags.out, relative(root, file));
    await mkdir(dirname(out), { recursive: true });
    const report = await rerunCassette({
      cassette: file,
      server: flags.server,
      out,
      headers: flags.header,
      pollBound: flags.pollBound,
      timeoutMs: flags.timeout,
      redact,
    });
    process.stderr.write(`bench ${describeRerun(report)}\n`);
    for (const f of report.failures) process.stderr.write(`bench rerun:   failed: ${f}\n`);
    failed ||= report.failures.length > 0;
    process.stdout.write(`wrote ${out}\n`);
  }
  return failed ? 1 : 0;
}
