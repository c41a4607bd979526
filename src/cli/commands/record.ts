import type { Command } from 'commander';
import { CODEX_PROBE_NAMES, recordCodex } from '../../codex/index.js';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { GATEWAY_PROBE_NAMES, recordGateway } from '../../gateway/index.js';
import { recordableHarnessIds } from '../../harnesses/index.js';
import { OPENCODE_PROBE_NAMES, recordOpenCode } from '../../opencode/index.js';
import { type PeerKind, recordPeer } from '../../peers/index.js';
import { type Manifest, PROBE_NAMES, recordHarness, VERDICT_SYMBOL, type Verdict } from '../../probes/index.js';
import { parseSeed, parseWholeMs } from '../options.js';
import { runCommand } from '../run-command.js';

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
  program
    .command('record')
    .description('run a probe suite through the recording proxy; one cassette per probe plus a manifest of verdicts')
    .option('--harness <id>', `native-tui harness (omnigent target): ${recordableHarnessIds().join(', ')}`)
    .option(
      '--target <kind>',
      'omnigent (the session API bench, needs --harness), hermes (the gateway probes), codex (codex app-server over WebSocket) or opencode (opencode serve)',
      'omnigent',
    )
    .option('--server <url>', 'a live server to record; without it the embedded simulator of the target runs')
    .option(
      '--peer <binary>',
      "codex, opencode: start this real vendor binary against tapedeck's mock model (isolated HOME, 127.0.0.1) and record it",
    )
    .option('--folder <name>', "hermes, codex, opencode: the folder under --out (default: the suite's own; with --peer, <suite>-real)")
    .option('--api-key <key>', 'hermes: the gateway API key for --server (default $HERMES_API_KEY)')
    .option(
      '--probes <list>',
      `comma-separated subset of: ${PROBE_NAMES.join(', ')} (omnigent); ${GATEWAY_PROBE_NAMES.join(', ')} (hermes); ${CODEX_PROBE_NAMES.join(', ')} (codex); ${OPENCODE_PROBE_NAMES.join(', ')} (opencode)`,
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

With --peer, tapedeck runs the real vendor server itself (codex app-server or
opencode serve, from the binary given) with a throwaway HOME against its own
mock model, so a real server's turns run offline; everything it started is
stopped at the end. Its cassettes go to <out>/<suite>-real/ unless --folder
says otherwise.

Exit codes: 0 no drift, 1 a probe's observed capability differs from the
declared one (DRIFT), 2 usage error or unreachable server.

Examples:
  $ bench record --harness kiro-native
  $ bench record --harness claude-native --server http://127.0.0.1:6767 --probes basic_turn,streaming
  $ bench record --target hermes
  $ bench record --target codex --server ws://127.0.0.1:4500
  $ bench record --target opencode --peer test/peers/node_modules/opencode-linux-x64/bin/opencode`,
    )
    .action((flags: RecordFlags) =>
      runCommand(async () => {
        const human = !flags.json;
        const probes = flags.probes
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const progress = (e: { kind: 'start'; probe: string } | { kind: 'done'; result: { verdict: Verdict }; seconds: number }) => {
          if (!human) return;
          if (e.kind === 'start') process.stderr.write(`  ${e.probe} ... `);
          else process.stderr.write(`${VERDICT_SYMBOL[e.result.verdict]} ${e.result.verdict} (${e.seconds.toFixed(1)} s)\n`);
        };
        if (!['omnigent', 'hermes', 'codex', 'opencode'].includes(flags.target))
          throw new UsageError(`--target ${JSON.stringify(flags.target)}: use omnigent (with --harness), hermes, codex or opencode`);
        if (flags.target === 'omnigent' && !flags.harness)
          throw new UsageError(
            `--harness is required for the omnigent target: ${recordableHarnessIds().join(', ')}; or use --target hermes`,
          );
        if (flags.target !== 'omnigent' && flags.harness)
          throw new UsageError(`--harness names an omnigent harness; the ${flags.target} target records its own probes without one`);
        if (flags.peer && flags.target !== 'codex' && flags.target !== 'opencode')
          throw new UsageError(`--peer runs a real codex or opencode server; use it with --target codex or --target opencode`);
        if (flags.peer && flags.server) throw new UsageError('--peer starts the server itself; give --peer or --server, not both');
        if (flags.folder !== undefined && flags.target === 'omnigent')
          throw new UsageError('--folder is for the hermes, codex and opencode suites; an omnigent recording goes in its harness folder');
        const common = {
          server: flags.server,
          folder: flags.folder,
          probes,
          outDir: flags.out,
          seed: flags.seed,
          redact: await loadRedactionConfig(flags.config),
          onProgress: progress,
        };
        const manifest = flags.peer
          ? await recordPeer(flags.target as PeerKind, {
              ...common,
              binary: flags.peer,
              onStarted: (peer) => human && process.stderr.write(`${flags.target} ${peer.version} listening on ${peer.url}\n`),
            })
          : flags.target === 'opencode'
            ? await recordOpenCode({ ...common, password: process.env.OPENCODE_SERVER_PASSWORD })
            : flags.target === 'codex'
              ? await recordCodex(common)
              : flags.target === 'hermes'
                ? await recordGateway({ ...common, apiKey: flags.apiKey ?? process.env.HERMES_API_KEY })
                : await recordHarness({
                    ...common,
                    harness: flags.harness as string,
                    simulator: { seed: flags.seed, latencyMs: flags.latency },
                  });
        if (flags.json) {
          process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
        } else {
          process.stdout.write(
            `${manifest.harness} against ${manifest.target}: cassettes in ${flags.out}/${manifest.harness}/\n\n${verdictTable(manifest)}\n`,
          );
        }
        return manifest.probes.some((p) => p.verdict === 'DRIFT') ? 1 : 0;
      }),
    );
}
