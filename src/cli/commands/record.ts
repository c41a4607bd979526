import type { Command } from 'commander';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { type Manifest, VERDICT_SYMBOL } from '../../manifest/index.js';
import type { SuiteProgress } from '../../suite/index.js';
import { peerSpecFor, recordTarget, SUITES, suiteForTarget } from '../../suites/index.js';
import { parseSeed, parseWholeMs } from '../options.js';
import { runCommand } from '../run-command.js';
import { whenStopped } from '../stop-signal.js';

interface RecordFlags {
  harness?: string;
  target: string;
  apiKey?: string;
  server?: string;
  peer?: string;
  folder?: string;
  probes?: string;
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

export function registerRecord(program: Command): void {
  const harnesses = suiteForTarget('omnigent').variants?.ids ?? [];
  const withPeer = SUITES.filter((s) => s.peer).map((s) => s.target);
  const withoutVariants = SUITES.filter((s) => !s.variants).map((s) => s.target);
  program
    .command('record')
    .description('run a probe suite through the recording proxy; one cassette per probe plus a manifest of verdicts')
    .option('--harness <id>', `native-tui harness (omnigent target): ${harnesses.join(', ')}`)
    .option('--target <kind>', SUITES.map((s) => `${s.target}: ${s.summary}`).join('; '), 'omnigent')
    .option('--server <url>', 'a live server to record; without it the embedded simulator of the target runs')
    .option(
      '--peer <binary>',
      `${withPeer.join(', ')}: start this real vendor binary against tapedeck's mock model (isolated HOME, 127.0.0.1) and record it`,
    )
    .option(
      '--folder <name>',
      `${withoutVariants.join(', ')}: the folder under --out (default: the suite's own; with --peer, <suite>-real)`,
    )
    .option(
      '--api-key <key>',
      `the live server's key for --server (default ${SUITES.filter((s) => s.apiKeyEnv)
        .map((s) => `$${s.apiKeyEnv} for ${s.target}`)
        .join(', ')})`,
    )
    .option(
      '--probes <list>',
      `comma-separated subset of: ${SUITES.map((s) => `${s.probes.map((p) => p.name).join(', ')} (${s.target})`).join('; ')}`,
    )
    .option('--out <dir>', 'folder for <harness>/<probe>.yaml and <harness>/manifest.yaml', 'cassettes')
    .option('--seed <n>', 'simulator seed: the same seed gives the same ids', parseSeed, 1)
    .option('--latency <ms>', 'simulator pause between stream events, like a vendor', parseWholeMs, 2)
    .option('--json', 'print the manifest as JSON instead of the table')
    .option('--config <file>', 'JSON config whose "redact" section adds redaction rules (default tapedeck.config.json if present)')
    .addHelpText(
      'after',
      `
Without --server, tapedeck starts its omnigent session API simulator on
127.0.0.1, so this works offline on a fresh clone. With --server, the probes
run against that server (it needs a host daemon and the vendor CLI logged in).

With --target hermes the gateway probes (chat stream with reasoning,
Responses stream, idempotent retry, clarify, approval, a failing tool, a run
cancelled from another transport, a revoked room grant) are recorded into
<out>/hermes/ from the embedded Hermes gateway simulator, or from --server
with --api-key. With --target codex the codex app-server probes (a text turn,
a command approved, one rejected, an interrupt with the approval pending) run
over WebSocket into <out>/codex-app-server/, from the embedded simulator or
from --server ws://HOST:PORT (codex app-server --listen ws://...). With
--target opencode the opencode probes (a text turn, a bash call allowed once,
one rejected, an abort with the permission pending) run against \`opencode
serve\` over HTTP and its /event stream into <out>/opencode-serve/ (Basic auth
from $OPENCODE_SERVER_PASSWORD for --server).

With --peer, tapedeck runs the real vendor server itself (codex app-server,
opencode serve, the omnigent full server with a runner for --harness
openai-agents, the omnigent server with its host daemon and the codex TUI in
tmux for --harness codex-native (codex from $OMNIGENT_CODEX_PATH or PATH), or
the hermes-agent gateway; for the Python servers give the entry point of
their environment, e.g. test/peers/python/omnigent/.venv/bin/omnigent) with a
throwaway HOME against its own mock model, so a real server's turns run
offline; everything it started is stopped at the end. Its cassettes go to
<out>/<suite>-real/ (openai-agents-real, codex-native-real, hermes-real)
unless --folder says otherwise.

Exit codes: 0 no drift, 1 a probe's observed capability differs from the
declared one (DRIFT), 2 usage error or unreachable server.

Examples:
  $ bench record --harness kiro-native
  $ bench record --harness claude-native --server http://127.0.0.1:6767 --probes basic_turn,streaming
  $ bench record --target hermes
  $ bench record --target codex --server ws://127.0.0.1:4500
  $ bench record --target opencode --peer test/peers/node_modules/opencode-linux-x64/bin/opencode
  $ bench record --harness openai-agents --peer test/peers/python/omnigent/.venv/bin/omnigent
  $ bench record --harness codex-native --peer test/peers/python/omnigent/.venv/bin/omnigent`,
    )
    .action((flags: RecordFlags) => {
      // A signal, or the wrapper that started us (npx, a shell) gone: the probe under way is abandoned, servers stopped.
      const controller = new AbortController();
      whenStopped(() => {}).then((cause) => {
        if (!flags.json)
          process.stderr.write(`\nbench record: ${cause}: stopping (servers started are stopped, the folder is left as it was)\n`);
        controller.abort(cause);
      });
      return runCommand(async () => {
        const human = !flags.json;
        const probes = flags.probes
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        let saved = '';
        const progress = (e: SuiteProgress) => {
          if (e.kind === 'saved')
            saved = e.unchanged.length === 0 ? '' : ` (${e.unchanged.length} unchanged but for timings, left as they were)`;
          if (e.kind === 'kept')
            process.stderr.write(
              `bench record: what was recorded before the stop is kept in ${e.folder}/ (${e.files.join(', ')}; not moved in: move cassettes by hand, bench recover a .journal, or delete the folder)\n`,
            );
          if (!human) return;
          if (e.kind === 'start') process.stderr.write(`  ${e.probe} ... `);
          else if (e.kind === 'done')
            process.stderr.write(`${VERDICT_SYMBOL[e.result.verdict]} ${e.result.verdict} (${e.seconds.toFixed(1)} s)\n`);
        };
        const suite = suiteForTarget(flags.target);
        if (flags.folder !== undefined && suite.variants)
          throw new UsageError(
            `--folder is for suites without variants; a ${suite.target} recording goes in its --${suite.variants.flag} folder`,
          );
        const manifest = await recordTarget(suite, {
          server: flags.server,
          peer: flags.peer,
          apiKey: flags.apiKey ?? (suite.apiKeyEnv ? process.env[suite.apiKeyEnv] : undefined),
          variant: flags.harness,
          folder: flags.folder,
          probes,
          outDir: flags.out,
          simulator: { seed: flags.seed, latencyMs: flags.latency },
          redact: await loadRedactionConfig(flags.config),
          onProgress: progress,
          signal: controller.signal,
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
      }).then(() => {
        // The abandoned probe may still hold timers; everything it used is stopped, so nothing is lost by leaving now.
        if (controller.signal.aborted) process.exit();
      });
    });
}
