import type { Command } from 'commander';
import { BUILT_IN_PACKS, renderJunit, renderText, verifyPaths } from '../../contracts/index.js';
import { UsageError } from '../../errors.js';
import { runCommand } from '../run-command.js';

const FORMATS = ['text', 'json', 'junit'] as const;

interface VerifyFlags {
  pack?: string[];
  format: string;
}

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description('check cassettes against contract packs: payload schemas and event-ordering rules')
    .argument('[paths...]', 'cassette files or folders', ['cassettes'])
    .option(
      '--pack <name>',
      `pack to apply instead of each cassette's meta.packs (repeatable): ${BUILT_IN_PACKS.map((p) => p.name).join(', ')}`,
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--format <format>', `output: ${FORMATS.join(', ')}`, 'text')
    .addHelpText(
      'after',
      '\nExit codes: 0 clean, 1 violations, 2 bad input.\n\nExamples:\n  $ bench verify\n  $ bench verify cassettes/claude-native --pack omnigent/native-tui --format junit > verify.xml',
    )
    .action((paths: string[], flags: VerifyFlags) =>
      runCommand(async () => {
        if (!(FORMATS as readonly string[]).includes(flags.format))
          throw new UsageError(`--format ${JSON.stringify(flags.format)}: use one of ${FORMATS.join(', ')}`);
        const report = await verifyPaths(paths, flags.pack ? { packs: flags.pack } : {});
        if (flags.format === 'json') process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else if (flags.format === 'junit') process.stdout.write(renderJunit(report));
        else process.stdout.write(`${renderText(report, Boolean(process.stdout.isTTY) && !process.env.NO_COLOR)}\n`);
        return report.violations.length === 0 ? 0 : 1;
      }),
    );
}
