import type { Command } from 'commander';
import { loadRedactionConfig } from '../../config.js';
import { scanForSecrets } from '../../scan/scan-secrets.js';
import { runCommand } from '../run-command.js';

export function registerScan(program: Command): void {
  program
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
      '\nEvery file is read, hidden folders and any name included (.bak, .journal, .json, .har), as text, as YAML or JSON would read it (escapes and quoting undone) and with base64 bodies decoded; a file that looks like a cassette but is not a valid one is reported on stderr and scanned all the same.\n\nExit codes: 0 clean, 1 a secret or a name of this machine found, 2 bad input. Fit for a pre-commit hook.\n\nExample:\n  $ bench scan cassettes',
    )
    .action((paths: string[], flags: { config?: string; honourExempt?: boolean }) =>
      runCommand(async () => {
        const { findings, warnings, files } = await scanForSecrets(paths, await loadRedactionConfig(flags.config), {
          honourExempt: flags.honourExempt ?? false,
        });
        for (const w of warnings) process.stderr.write(`bench scan: ${w}\n`);
        for (const f of findings)
          process.stdout.write(
            `${f.file}:${f.line}: ${f.kind} (${f.preview}); re-record, or redact it by hand and check with bench scan\n`,
          );
        process.stdout.write(
          findings.length
            ? `${findings.length} possible secrets or machine names found in ${files} files\n`
            : `no secrets found in ${files} files\n`,
        );
        return findings.length ? 1 : 0;
      }),
    );
}
