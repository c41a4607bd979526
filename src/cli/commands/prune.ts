import { readFile, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Command } from 'commander';
import { withoutInteractions, writeFileAtomic } from '../../cassette/index.js';
import { UsageError } from '../../errors.js';
import { describeUnused, planPrune, readUsage } from '../../replayer/index.js';
import { runCommand } from '../run-command.js';

interface PruneFlags {
  usage?: string[];
  dryRun?: boolean;
  deleteEmpty?: boolean;
}

const HELP = `
A run writes its usage with bench replay --usage FILE, bench replay-check
--usage FILE, or useCassette's usage option (or $TAPEDECK_USAGE, a folder:
each test file's scope writes its own file there, and prune merges them).
Only cassettes a run loaded are touched. The recordings kept stay byte for
byte as they were; a cassette that changed since its run is refused.

Examples:
  $ TAPEDECK_USAGE=.tapedeck-usage npx vitest run
  $ bench prune --usage .tapedeck-usage --dry-run
  $ bench prune cassettes/api --usage .tapedeck-usage`;

/** `bench prune`: removes the recordings no run used, as its usage files tell. */
export function registerPrune(program: Command): void {
  program
    .command('prune')
    .description('remove the recordings that a replay run, a vitest run or bench replay-check never used')
    .argument('[cassettes...]', 'prune only these cassette files or folders (default: every cassette the usage names)')
    .option(
      '--usage <file|folder>',
      'a usage file, or a folder of them (repeatable): merged as one run',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--dry-run', 'list what would be removed, by cassette, index, method and path; change nothing')
    .option('--delete-empty', 'delete a cassette none of whose recordings were used (otherwise it is listed and kept)')
    .addHelpText('after', HELP)
    .action((positional: string[], flags: PruneFlags) => runCommand(() => runPrune(positional, flags)));
}

async function runPrune(positional: string[], flags: PruneFlags): Promise<number> {
  if (!flags.usage?.length) throw new UsageError('name what the runs used: --usage FILE|FOLDER (see bench prune --help)');
  const plans = await planPrune(await readUsage(flags.usage), positional.length ? positional : undefined);
  if (plans.length === 0) throw new UsageError(`the usage names none of ${positional.join(', ')}: no run loaded them`);
  const verb = flags.dryRun ? 'would remove' : 'removed';
  let removed = 0;
  for (const plan of plans) {
    const shown = relative(process.cwd(), plan.file) || plan.file;
    if (plan.remove.length === 0) {
      process.stdout.write(`${shown}: every recording was used\n`);
      continue;
    }
    if (plan.kept === 0 && !flags.deleteEmpty) {
      process.stdout.write(`${shown}: no recording was used; kept (--delete-empty deletes it)\n`);
      continue;
    }
    process.stdout.write(`${shown}: ${verb} ${plan.remove.length}, kept ${plan.kept}: ${describeUnused(plan.remove)}\n`);
    removed += plan.remove.length;
    if (flags.dryRun) continue;
    if (plan.kept === 0) await rm(plan.file);
    else {
      const text = await readFile(plan.file, 'utf8');
      await writeFileAtomic(plan.file, await withoutInteractions(text, new Set(plan.remove.map((r) => r.seq)), shown));
    }
  }
  process.stdout.write(`bench prune: ${verb} ${removed} recordings from ${plans.length} cassettes\n`);
  return 0;
}
