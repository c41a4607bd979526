import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { loadRedactionConfig } from '../../config.js';
import { type CheckRow, checkRowsJunit, checkRowsMarkdown } from '../../report/index.js';
import { scanForSecrets } from '../../scan/scan-secrets.js';
import { addReportOptions, checkReportFlags, emitReport, type ReportFlags } from '../report-output.js';
import { runCommand } from '../run-command.js';

interface ScanFlags extends ReportFlags {
  config?: string;
  honourExempt?: boolean;
}

export function registerScan(program: Command): void {
  const cmd = program
    .command('scan')
    .description(
      "look for secrets in cassettes (or any text files): credential shapes, unredacted secret headers, query parameters and JSON fields, and this machine's host name or folders left in a cassette",
    )
    .argument('[paths...]', 'files or folders', ['cassettes'])
    .option('--config <file>', 'JSON config whose "redact" section adds rules (default tapedeck.config.json if present)')
    .option(
      '--honour-exempt',
      'let the config\'s "exempt" list silence findings (by default a scan ignores it: CI must not be silenced by the config it checks)',
    )
    .addHelpText(
      'after',
      '\nEvery file is read, hidden folders and any name included (.bak, .journal, .json, .har), as text, as YAML or JSON would read it (escapes and quoting undone) and with base64 bodies decoded; a file that looks like a cassette but is not a valid one is reported on stderr and scanned all the same.\n\nExit codes: 0 clean, 1 a secret or a name of this machine found, 2 bad input. Fit for a pre-commit hook.\n\nExamples:\n  $ bench scan cassettes\n  $ bench scan cassettes --format json\n  $ bench scan cassettes --junit scan.xml',
    );
  addReportOptions(cmd).action((paths: string[], flags: ScanFlags) =>
    runCommand(async () => {
      await checkReportFlags(flags);
      const report = await scanForSecrets(paths, await loadRedactionConfig(flags.config), {
        honourExempt: flags.honourExempt ?? false,
      });
      const { findings, warnings, files } = report;
      for (const w of warnings) process.stderr.write(`bench scan: ${w}\n`);
      const describe = (f: (typeof findings)[number]) =>
        `${f.file}:${f.line}: ${f.kind} (${f.preview}); re-record, or redact it by hand and check with bench scan`;
      const checks = report.scanned.map((file): CheckRow => {
        const mine = findings.filter((f) => f.file === file);
        return {
          group: dirname(file),
          name: basename(file),
          ok: mine.length === 0,
          summary: mine.length === 0 ? 'clean' : mine.map((f) => `line ${f.line}: ${f.kind}`).join('; '),
          ...(mine.length ? { detail: mine.map(describe).join('\n') } : {}),
        };
      });
      await emitReport(flags, {
        text: () =>
          [
            ...findings.map(describe),
            findings.length
              ? `${findings.length} possible secrets or machine names found in ${files} files`
              : `no secrets found in ${files} files`,
          ].join('\n'),
        json: () => ({ files, findings, warnings }),
        junit: () => checkRowsJunit('tapedeck scan', checks),
        markdown: () => checkRowsMarkdown('tapedeck scan', checks, 'files scanned'),
      });
      return findings.length ? 1 : 0;
    }),
  );
}
