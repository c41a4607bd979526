import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { DEFAULT_FAMILY, families, familyById, familyIds } from '../../families/index.js';
import { startFamilyMockModel } from '../../probing/index.js';
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
  const all = families();
  const mutable = all.filter((f) => f.simulator?.mutations);
  const examples = all.filter((f) => f.simulator).map((f, i) => `  $ bench sim --target ${f.id} --port ${6767 + i}`);
  program
    .command('sim')
    .description("run a family's simulator standalone, with deterministic ids, or the mock model real vendor servers run against")
    .option('--target <id>', `${familyIds().join(', ')} or model (the mock model real vendor servers run against)`, DEFAULT_FAMILY)
    .option('--api-key <key>', "the key clients must send, for simulators that check one (default: the simulator's own)")
    .option('--port <n>', 'port to listen on; 0 picks a free one', parsePort, 0)
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'seed for ids', parseSeed, 1)
    .option('--latency <ms>', 'pause between stream events of a turn', parseWholeMs, 2)
    .option(
      '--mutate <change>',
      `emulate a server change (repeatable), for ${mutable.map((f) => `--target ${f.id}: ${f.simulator?.mutations}`).join('; ')}`,
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .addHelpText(
      'after',
      `\nThe first line on stdout is "listening on URL". Stop with Ctrl-C.\n\nExamples:\n${examples.join('\n')}\n  $ bench sim --target model --port 8000   # base URL http://127.0.0.1:8000/v1 for a provider config`,
    )
    .action((flags: SimFlags) =>
      runCommand(async () => {
        // A signal, or the wrapper that started us (npx, a shell) gone.
        const stopped = whenStopped(() => {});
        if (flags.target !== 'model' && !familyIds().includes(flags.target))
          throw new UsageError(`--target ${JSON.stringify(flags.target)}: use ${familyIds().join(', ')} or model`);
        const family = flags.target === 'model' ? undefined : familyById(flags.target);
        if (family && !family.simulator)
          throw new UsageError(`the ${family.id} target has no embedded simulator; run its real server instead`);
        if (flags.mutate && !family?.simulator?.mutations)
          throw new UsageError(`--mutate applies to ${mutable.map((f) => `--target ${f.id}`).join(', ')} only`);
        const options = { port: flags.port, host: flags.host, seed: flags.seed, latencyMs: flags.latency, apiKey: flags.apiKey };
        const sim = family?.simulator
          ? await family.simulator.start({ ...options, ...(flags.mutate ? { mutate: flags.mutate } : {}) })
          : await startFamilyMockModel({ port: flags.port, host: flags.host });
        process.stdout.write(`listening on ${sim.url}\n`);
        await stopped;
        await sim.close();
        return 0;
      }),
    );
}
