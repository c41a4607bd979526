import type { Command } from 'commander';
import '../../families/index.js';
import { registeredPacks, renderJunit, renderMarkdown, renderText, verifyPaths } from '../../contracts/index.js';
import { addReportOptions, checkReportFlags, emitReport, type ReportFlags, reportFormat } from '../report-output.js';
import { runCommand } from '../run-command.js';

interface VerifyFlags extends ReportFlags {
  pack?: string[];
  allowEmpty?: boolean;
}

export function registerVerify(program: Command): void {
  const cmd = program
    .command('verify')
    .description('check cassettes against contract packs: payload schemas and event-ordering rules')
    .argument('[paths...]', 'cassette files or folders', ['cassettes'])
    .option(
      '--pack <name|file>',
      `pack to apply instead of each cassette's meta.packs (repeatable): a built-in one (${registeredPacks()
        .map((p) => p.name)
        .join(
          ', ',
        )}), a pack file (./team-pack.yaml or .json, rules as data and payloads as JSON Schema) or a module exporting a pack (./pack.js)`,
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--allow-empty', 'exit 0 even when no rule applied to any cassette (by default that is exit 2: a check that cannot fail)')
    .addHelpText(
      'after',
      '\nA cassette with no meta.packs (a plain bench proxy recording) is checked with the built-in packs its traffic fits (route and event types), named in the output; none fitting anywhere is exit 2 ("0 rules checked").\n\nExit codes: 0 clean, 1 violations, 2 bad input or nothing checked.\n\nA pack file is checked on load; a broken one is refused with file:line and the field. Its JSON Schema is cassettes/pack.schema.json (name it in the file\'s $schema for an editor\'s help).\n\nExamples:\n  $ bench verify\n  $ bench verify cassettes/claude-native --format junit > verify.xml\n  $ bench verify recordings --pack ./team-pack.yaml\n  $ bench verify --shard 2/3 --junit verify-2.xml',
    );
  addReportOptions(cmd, { shard: true }).action((paths: string[], flags: VerifyFlags) =>
    runCommand(async () => {
      await checkReportFlags(flags);
      const report = await verifyPaths(paths, {
        ...(flags.pack ? { packs: flags.pack } : {}),
        allowEmpty: flags.allowEmpty ?? false,
        ...(flags.shard ? { shard: flags.shard } : {}),
      });
      const colour = reportFormat(flags) === 'text' && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
      await emitReport(flags, {
        text: () => renderText(report, colour),
        json: () => report,
        junit: () => renderJunit(report),
        markdown: () => renderMarkdown(report),
      });
      return report.violations.length === 0 ? 0 : 1;
    }),
  );
}
