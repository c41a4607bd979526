import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parse } from 'yaml';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_FAMILY, type Family, families, familyById } from '../../families/index.js';
import { type Manifest, VERDICT_SYMBOL } from '../../manifest/index.js';
import { peerSpecFor, type RecordProgress, recordTarget } from '../../probing/index.js';
import { parseSeed, parseWholeMs } from '../options.js';
import { runCommand } from '../run-command.js';
import { whenStopped } from '../stop-signal.js';

interface RecordFlags {
  harness?: string;
  target: string;
  apiKey?: string;
  server?: string;
  serverName?: string;
  peer?: string;
  folder?: string;
  probes?: string;
  input?: string;
  out: string;
  seed: number;
  latency: number;
  json?: boolean;
  config?: string;
}

/** The verdict table printed at the end of `bench record`. */
export function verdictTable(manifest: Manifest): string {
  const rows = manifest.probes.map((p) => [p.probe, p.priority, p.declared ?? '-', `${VERDICT_SYMBOL[p.verdict]} ${p.verdict}`, p.reason]);
  const head = ['probe', 'prio', 'declared', 'verdict', 'reason'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

/** `--input`'s document: YAML (or JSON, which YAML reads), checked by the family that takes it. */
async function readInputFile(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(
      `--input ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}; give a YAML or JSON file of probe inputs`,
    );
  });
  try {
    return parse(text);
  } catch (err) {
    throw new UsageError(`--input ${file}: not YAML or JSON (${(err as Error).message.split('\n')[0]}); fix the file`);
  }
}

/** The text after `bench record`'s options: each family's own paragraph and examples, from the registry. */
function recordHelp(all: readonly Family[]): string {
  const details = all.flatMap((f) => (f.help?.details ? [`--target ${f.id}\n${f.help.details.replace(/^/gm, '  ')}`] : []));
  const examples = all.flatMap((f) => f.help?.examples ?? []);
  return `
Without --server, tapedeck starts the target's embedded simulator on
127.0.0.1, so this works offline on a fresh clone. With --server, the probes
run against that server. With --peer, tapedeck runs the real vendor server
itself with a throwaway HOME against its own mock model, so a real server's
turns run offline; everything it started is stopped at the end. Its
cassettes go to <out>/<folder>-real/ unless --folder says otherwise.

${details.join('\n\n')}

Exit codes: 0 no drift, 1 a probe's observed capability differs from the
declared one (DRIFT), 2 usage error or unreachable server.

Examples:
${examples.map((e) => `  $ ${e}`).join('\n')}`;
}

/** The options of `bench record`, each naming the families it is for. */
function withRecordOptions(cmd: Command, all: readonly Family[]): Command {
  const harnesses = all.flatMap((f) => (f.variants ? [`${f.variants.ids.join(', ')} (${f.id})`] : []));
  const withPeer = all.filter((s) => s.peer).map((s) => s.id);
  const withoutVariants = all.filter((s) => !s.variants).map((s) => s.id);
  return cmd
    .option('--harness <id>', `the variant to record, for targets that have them: ${harnesses.join('; ')}`)
    .option('--target <id>', all.map((s) => `${s.id}: ${s.summary}`).join('; '), DEFAULT_FAMILY)
    .option('--server <url>', 'a live server to record; without it the embedded simulator of the target runs')
    .option(
      '--server-name <text>',
      'with --server: what the manifest and cassettes call the server (default its URL, whose throwaway port would change every file of a re-recording)',
    )
    .option(
      '--peer <binary>',
      `${withPeer.join(', ')}: start this real vendor binary against tapedeck's mock model (isolated HOME, 127.0.0.1) and record it`,
    )
    .option(
      '--folder <name>',
      `${withoutVariants.join(', ')}: the folder under --out (default: the family's own; with --peer, <folder>-real)`,
    )
    .option(
      '--api-key <key>',
      `the live server's key for --server (default ${all
        .filter((s) => s.apiKeyEnv)
        .map((s) => `$${s.apiKeyEnv} for ${s.id}`)
        .join(', ')})`,
    )
    .option(
      '--probes <list>',
      `comma-separated subset of: ${all.map((s) => `${s.probes.map((p) => p.name).join(', ')} (${s.id})`).join('; ')}`,
    )
    .option(
      '--input <file>',
      `a YAML or JSON file of what the probes send, for targets whose probes take inputs: ${all
        .filter((f) => f.help?.inputs)
        .map((f) => `${f.help?.inputs} (${f.id})`)
        .join('; ')}`,
    )
    .option('--out <dir>', 'folder for <harness>/<probe>.yaml and <harness>/manifest.yaml', 'cassettes')
    .option('--seed <n>', 'simulator seed: the same seed gives the same ids', parseSeed, 1)
    .option('--latency <ms>', 'simulator pause between stream events, like a vendor', parseWholeMs, 2)
    .option('--json', 'print the manifest as JSON instead of the table')
    .option('--config <file>', 'JSON config whose "redact" section adds redaction rules (default tapedeck.config.json if present)');
}

/** `bench record` once its flags are read: records, prints the table (or the JSON manifest), and gives the exit code. */
async function record(flags: RecordFlags, signal: AbortSignal): Promise<number> {
  const human = !flags.json;
  const probes = flags.probes
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let saved = '';
  const progress = (e: RecordProgress) => {
    if (e.kind === 'saved') saved = e.unchanged.length === 0 ? '' : ` (${e.unchanged.length} unchanged but for timings, left as they were)`;
    if (e.kind === 'kept')
      process.stderr.write(
        `bench record: what was recorded before the stop is kept in ${e.folder}/ (${e.files.join(', ')}; not moved in: move cassettes by hand, bench recover a .journal, or delete the folder)\n`,
      );
    if (!human) return;
    if (e.kind === 'start') process.stderr.write(`  ${e.probe} ... `);
    else if (e.kind === 'done')
      process.stderr.write(`${VERDICT_SYMBOL[e.result.verdict]} ${e.result.verdict} (${e.seconds.toFixed(1)} s)\n`);
  };
  const suite = familyById(flags.target);
  if (flags.serverName !== undefined && !flags.server)
    throw new UsageError('--server-name names the server --server records; give --server too');
  if (flags.folder !== undefined && suite.variants)
    throw new UsageError(`--folder is for targets without variants; --target ${suite.id} records into its --${suite.variants.flag} folder`);
  const manifest = await recordTarget(suite, {
    server: flags.server,
    described: flags.serverName,
    peer: flags.peer,
    apiKey: flags.apiKey ?? (suite.apiKeyEnv ? process.env[suite.apiKeyEnv] : undefined),
    variant: flags.harness,
    folder: flags.folder,
    probes,
    inputs: flags.input === undefined ? undefined : await readInputFile(flags.input),
    outDir: flags.out,
    simulator: { seed: flags.seed, latencyMs: flags.latency },
    redact: await loadRedactionConfig(flags.config),
    onProgress: progress,
    signal,
    onPeerStarted: (peer) => human && process.stderr.write(`${flags.target} ${peer.version} listening on ${peer.url}\n`),
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${manifest.harness} against ${manifest.target}: cassettes in ${flags.out}/${flags.folder ?? (flags.peer ? peerSpecFor(suite, flags.harness)?.folder : undefined) ?? manifest.harness}/${saved}\n\n${verdictTable(manifest)}\n`,
    );
  }
  return manifest.probes.some((p) => p.verdict === 'DRIFT') ? 1 : 0;
}

export function registerRecord(program: Command): void {
  const all = families();
  withRecordOptions(program.command('record'), all)
    .description('run a probe suite through the recording proxy; one cassette per probe plus a manifest of verdicts')
    .addHelpText('after', recordHelp(all))
    .action((flags: RecordFlags) => {
      // A signal, or the wrapper that started us (npx, a shell) gone: the probe under way is abandoned, servers stopped.
      const controller = new AbortController();
      whenStopped(() => {}).then((cause) => {
        if (!flags.json)
          process.stderr.write(`\nbench record: ${cause}: stopping (servers started are stopped, the folder is left as it was)\n`);
        controller.abort(cause);
      });
      return runCommand(() => record(flags, controller.signal)).then(() => {
        // The abandoned probe may still hold timers; everything it used is stopped, so nothing is lost by leaving now.
        if (controller.signal.aborted) process.exit();
      });
    });
}
