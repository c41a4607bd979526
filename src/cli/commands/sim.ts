import type { Command } from 'commander';
import { startOmnigentSimulator } from '../../simulator/omnigent/index.js';
import { parsePort, parseSeed, parseWholeMs } from '../options.js';
import { runCommand } from '../run-command.js';

interface SimFlags {
  port: number;
  host: string;
  seed: number;
  latency: number;
  mutate?: string[];
}

export function registerSim(program: Command): void {
  program
    .command('sim')
    .description('run the omnigent session API simulator standalone (every native harness, deterministic ids)')
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
      '\nThe first line on stdout is "listening on URL". Stop with Ctrl-C.\n\nExample:\n  $ bench sim --port 6767 --latency 50',
    )
    .action((flags: SimFlags) =>
      runCommand(async () => {
        const stopped = new Promise<void>((resolve) => {
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        const sim = await startOmnigentSimulator({
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
