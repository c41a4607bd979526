import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { startCodexSimulator } from '../../simulator/codex/index.js';
import { SIMULATOR_API_KEY, startHermesSimulator } from '../../simulator/hermes/index.js';
import { startMockModel } from '../../simulator/model/index.js';
import { startOmnigentSimulator } from '../../simulator/omnigent/index.js';
import { startOpenCodeSimulator } from '../../simulator/opencode/index.js';
import { parsePort, parseSeed, parseWholeMs } from '../options.js';
import { runCommand } from '../run-command.js';
import { whenStopped } from '../stop-signal.js';

interface SimFlags {
  target: string;
  apiKey?: string;
  port: number;
  host: string;
  seed: number;
  latency: number;
  mutate?: string[];
}

export function registerSim(program: Command): void {
  program
    .command('sim')
    .description('run a simulator standalone: the omnigent session API (default) or the Hermes gateway, with deterministic ids')
    .option(
      '--target <kind>',
      'omnigent, hermes, codex (codex app-server over WebSocket), opencode (opencode serve) or model (the mock model real vendor servers run against)',
      'omnigent',
    )
    .option('--api-key <key>', `hermes: the key clients must send as Bearer (default ${SIMULATOR_API_KEY})`)
    .option('--port <n>', 'port to listen on; 0 picks a free one', parsePort, 0)
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'seed for ids', parseSeed, 1)
    .option('--latency <ms>', 'pause between stream events of a turn', parseWholeMs, 2)
    .option(
      '--mutate <change>',
      'emulate a server change (repeatable): rename-event:FROM=TO, drop-field:TYPE.FIELD, retype-field:TYPE.FIELD, swap-events:A,B, add-event:TYPE, status:METHOD /route/{id}=CODE, no-sentinel',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .addHelpText(
      'after',
      '\nThe first line on stdout is "listening on URL". Stop with Ctrl-C.\n--latency and --mutate apply to the omnigent simulator.\n\nExamples:\n  $ bench sim --port 6767 --latency 50\n  $ bench sim --target hermes --port 8642\n  $ bench sim --target codex --port 4500\n  $ bench sim --target model --port 8000   # base URL http://127.0.0.1:8000/v1 for a provider config',
    )
    .action((flags: SimFlags) =>
      runCommand(async () => {
        // A signal, or the wrapper that started us (npx, a shell) gone.
        const stopped = whenStopped(() => {});
        if (!['omnigent', 'hermes', 'codex', 'opencode', 'model'].includes(flags.target))
          throw new UsageError(`--target ${JSON.stringify(flags.target)}: use omnigent, hermes, codex, opencode or model`);
        if (flags.target !== 'omnigent' && flags.mutate) throw new UsageError('--mutate applies to the omnigent simulator only');
        if (flags.apiKey !== undefined && flags.apiKey.length < 16)
          throw new UsageError('--api-key must be at least 16 characters, as the real gateway requires');
        const sim =
          flags.target === 'model'
            ? await startMockModel({ port: flags.port, host: flags.host })
            : flags.target === 'opencode'
              ? await startOpenCodeSimulator({ port: flags.port, host: flags.host, seed: flags.seed })
              : flags.target === 'codex'
                ? await startCodexSimulator({ port: flags.port, host: flags.host, seed: flags.seed })
                : flags.target === 'hermes'
                  ? await startHermesSimulator({
                      port: flags.port,
                      host: flags.host,
                      seed: flags.seed,
                      ...(flags.apiKey ? { apiKey: flags.apiKey } : {}),
                    })
                  : await startOmnigentSimulator({
                      port: flags.port,
                      host: flags.host,
                      seed: flags.seed,
                      latencyMs: flags.latency,
                      ...(flags.mutate ? { mutate: flags.mutate } : {}),
                    });
        process.stdout.write(`listening on ${sim.url}\n`);
        await stopped;
        await sim.close();
        return 0;
      }),
    );
}
