import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { SIMULATOR_API_KEY, startMockModel } from '../../simulators.js';
import { SUITES, suiteForTarget, TARGETS } from '../../suites/index.js';
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
      `${SUITES.map((s) => s.target).join(', ')} or model (the mock model real vendor servers run against)`,
      'omnigent',
    )
    .option('--api-key <key>', `hermes: the key clients must send as Bearer (default ${SIMULATOR_API_KEY})`)
    .option('--port <n>', 'port to listen on; 0 picks a free one', parsePort, 0)
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'seed for ids', parseSeed, 1)
    .option('--latency <ms>', 'pause between stream events of a turn', parseWholeMs, 2)
    .option(
      '--mutate <change>',
      'emulate a server change (repeatable): rename-event:FROM=TO, drop-field:TYPE.FIELD, retype-field:TYPE.FIELD, swap-events:A,B, add-event:TYPE, status:METHOD /route/{id}=CODE, no-sentinel, duplicate-event:TYPE, enum-value:TYPE:FIELD=FROM>TO, drop-field-when:TYPE:FIELD@KEY=VALUE, drop-event-in:TYPE@KIND, null-field:METHOD /route:FIELD, empty-body:METHOD /route, open-after-done, stall-turns',
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
        if (flags.target !== 'model' && !TARGETS.includes(flags.target))
          throw new UsageError(`--target ${JSON.stringify(flags.target)}: use ${TARGETS.join(', ')} or model`);
        const suite = flags.target === 'model' ? undefined : suiteForTarget(flags.target);
        if (flags.target !== 'omnigent' && flags.mutate) throw new UsageError('--mutate applies to the omnigent simulator only');
        if (flags.apiKey !== undefined && flags.apiKey.length < 16)
          throw new UsageError('--api-key must be at least 16 characters, as the real gateway requires');
        const options = { port: flags.port, host: flags.host, seed: flags.seed, latencyMs: flags.latency, apiKey: flags.apiKey };
        const sim = suite
          ? await suite.simulator.start({ ...options, ...(flags.mutate ? { mutate: flags.mutate } : {}) })
          : await startMockModel({ port: flags.port, host: flags.host });
        process.stdout.write(`listening on ${sim.url}\n`);
        await stopped;
        await sim.close();
        return 0;
      }),
    );
}
