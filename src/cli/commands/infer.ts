import type { Command } from 'commander';
import { writeFileAtomic } from '../../cassette/index.js';
import { UsageError } from '../../errors.js';
import {
  DEFAULT_MIN_SUPPORT,
  type HoldoutReport,
  type LearnedPack,
  learnPack,
  learnWithHoldout,
  loadRecordings,
} from '../../infer/index.js';
import { checkOutputFile } from '../output-file.js';
import { runCommand } from '../run-command.js';

interface InferFlags {
  out: string;
  name?: string;
  minSupport: string;
  holdout?: string;
  route?: string[];
}

function count(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${flag} ${JSON.stringify(value)}: give a whole number from ${min}`);
  return Number(value);
}

function routesOf(values: readonly string[] | undefined): string[] | undefined {
  for (const r of values ?? [])
    try {
      new RegExp(r);
    } catch (err) {
      throw new UsageError(`--route ${JSON.stringify(r)}: not a regular expression (${(err as Error).message})`);
    }
  return values && values.length > 0 ? [...values] : undefined;
}

/** What was written, in a few lines: packs, rules and schemas, and with --holdout what the held-out recordings broke. */
function summary(out: string, learned: LearnedPack, holdout: HoldoutReport | undefined): string {
  const rules = learned.packs.reduce((n, p) => n + p.rules.length, 0);
  const payloads = learned.packs.reduce((n, p) => n + p.payloads.length, 0);
  const lines = [
    `bench infer: ${out}: ${learned.packs.length} pack(s) (${learned.packs.map((p) => p.name).join(', ')}), ${rules} rules, ${payloads} payload schemas, from ${learned.streams} streams and ${learned.events} events`,
  ];
  if (holdout) {
    lines.push(`bench infer: held out ${holdout.heldOut.length}: ${holdout.heldOut.join(', ')}`);
    if (holdout.broken.length === 0) lines.push('bench infer: the held-out recordings broke no rule learned from the others');
    for (const b of holdout.broken)
      lines.push(
        `  broke ${b.pack} ${b.rule} in ${b.recording}: ${b.message}${b.rule.startsWith('payload') || b.rule.startsWith('known') ? ' (schema learned from every recording)' : ' (dropped)'}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

export function registerInfer(program: Command): void {
  program
    .command('infer')
    .description('learn a contract pack from recordings: payload schemas per event type and the ordering rules every stream kept')
    .argument('<recordings...>', 'folders or cassettes made by bench record or bench proxy')
    .requiredOption('-o, --out <file>', 'the pack file to write (.yaml), for bench verify --pack')
    .option('--name <name>', 'the pack name (several kinds of stream: <name>/<route>)', 'inferred')
    .option(
      '--min-support <n>',
      'propose a rule only when the recordings tested it this often (streams, turns or keys)',
      String(DEFAULT_MIN_SUPPORT),
    )
    .option('--holdout <n>', 'learn from all but the last N recordings, verify those N, and drop the rules they break')
    .option(
      '--route <regex>',
      'only streams whose request path matches (repeatable); one pack for them all',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .addHelpText(
      'after',
      `
Each rule is kept only if it holds in every recorded stream (checked by the same code as bench verify) and was
tested at least --min-support times; a comment above it says how often, and the recording that first shows it.
A server streaming on several routes gets one pack per route, under "packs:" in the one file.

Exit codes: 0 written, 2 bad input (no recording, no stream, nothing tested often enough).

Examples:
  $ bench infer recordings/ -o team-pack.yaml
  $ bench infer recordings/ --holdout 2 -o team-pack.yaml
  $ bench verify recordings/ --pack ./team-pack.yaml`,
    )
    .action((paths: string[], flags: InferFlags) =>
      runCommand(async () => {
        const minSupport = count('--min-support', flags.minSupport, 1);
        const holdout = flags.holdout === undefined ? undefined : count('--holdout', flags.holdout, 1);
        const routes = routesOf(flags.route);
        await checkOutputFile('-o', flags.out);
        const recordings = await loadRecordings(paths);
        const options = { minSupport, ...(flags.name ? { name: flags.name } : {}), ...(routes ? { routes } : {}) };
        const held = holdout === undefined ? undefined : learnWithHoldout(recordings, options, holdout);
        const learned = held ?? learnPack(recordings, options);
        await writeFileAtomic(flags.out, learned.text);
        process.stderr.write(summary(flags.out, learned, held?.holdout));
        return 0;
      }),
    );
}
