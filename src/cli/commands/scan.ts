import type { Command } from 'commander';
import { loadRedactionConfig } from '../../config.js';
import { scanForSecrets } from '../../scan/scan-secrets.js';
import { runCommand } from '../run-command.js';

export function registerScan(program: Command): void {
  program
    .command('scan')
    .description(
      'look for secrets in cassettes (or any text files): credential shapes, unredacted secret headers, query parameters and JSON fields',
    )
    .argument('[paths...]', 'files or folders', ['cassettes'])
    .option('--config <file>', 'JSON config whose "redact" section adds rules (default tapedeck.config.json if present)')
    .addHelpText(
      'after',
      '\nExit codes: 0 clean, 1 a secret found, 2 bad input. Fit for a pre-commit hook.\n\nExample:\n  $ bench scan cassettes',
    )
    .action((paths: string[], flags: { config?: string }) =>
      runCommand(async () => {
        const findings = await scanForSecrets(paths, await loadRedactionConfig(flags.config));
        for (const f of findings)
          process.stdout.write(
            `${f.file}:${f.line}: ${f.kind} (${f.preview}); re-record, or redact it by hand and check with bench scan\n`,
          );
        process.stdout.write(findings.length ? `${findings.length} possible secrets found\n` : 'no secrets found\n');
        return findings.length ? 1 : 0;
      }),
    );
}
