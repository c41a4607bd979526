import type { Command } from 'commander';
import { writeFileAtomic } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { parseShard, type Shard } from '../fs/shard.js';
import { appendStepSummary } from '../report/index.js';
import { checkOutputFile } from './output-file.js';

export const REPORT_FORMATS = ['text', 'json', 'junit', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportFlags {
  format: ReportFormat;
  /** `--json`, kept as the short form of `--format json`. */
  json?: boolean;
  junit?: string;
  shard?: Shard;
}

/** What a checking command can say, each form rendered only when asked for. */
export interface ReportForms {
  text(): string;
  json(): unknown;
  junit(): string;
  markdown(): string;
}

function parseFormat(value: string): ReportFormat {
  if ((REPORT_FORMATS as readonly string[]).includes(value)) return value as ReportFormat;
  throw new UsageError(`--format ${JSON.stringify(value)}: use one of ${REPORT_FORMATS.join(', ')}`);
}

/** The output options every checking command shares: `--format`, `--json`, `--junit FILE`, and `--shard` when it can split. */
export function addReportOptions(cmd: Command, options: { shard?: boolean } = {}): Command {
  cmd
    .option('--format <format>', `output on stdout: ${REPORT_FORMATS.join(', ')}`, parseFormat, 'text')
    .option('--json', 'the same as --format json')
    .option('--junit <file>', 'also write a JUnit XML report there, whatever --format prints');
  if (options.shard)
    cmd.option(
      '--shard <i/n>',
      'check only the i-th of n slices of the cassettes (sorted by path and dealt out in turn): n CI jobs with 1/n..n/n check everything exactly once',
      parseShard,
    );
  return cmd;
}

/** The format stdout is in: `--json` wins, as it always did. */
export function reportFormat(flags: ReportFlags): ReportFormat {
  return flags.json ? 'json' : flags.format;
}

/** Refuses a `--junit` file that could not be written, before any work is done. */
export async function checkReportFlags(flags: ReportFlags): Promise<void> {
  if (flags.junit) await checkOutputFile('--junit', flags.junit);
}

/**
 * Prints the report in the chosen format, writes `--junit` whole (atomically,
 * so CI never reads half a report), and appends the Markdown
 * form to `$GITHUB_STEP_SUMMARY` when it is set.
 */
export async function emitReport(flags: ReportFlags, forms: ReportForms): Promise<void> {
  const format = reportFormat(flags);
  const out =
    format === 'json'
      ? `${JSON.stringify(forms.json(), null, 2)}\n`
      : format === 'junit'
        ? forms.junit()
        : format === 'markdown'
          ? forms.markdown()
          : `${forms.text()}\n`;
  process.stdout.write(out);
  if (flags.junit) await writeFileAtomic(flags.junit, forms.junit());
  await appendStepSummary(forms.markdown());
}
