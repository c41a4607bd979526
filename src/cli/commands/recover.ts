import { access, rm } from 'node:fs/promises';
import type { Command } from 'commander';
import { writeCassetteAtomic } from '../../cassette/index.js';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { journalPath, readJournal } from '../../recorder/index.js';
import { runCommand } from '../run-command.js';

export function registerRecover(program: Command): void {
  program
    .command('recover')
    .description('save the recording a killed recorder left in CASSETTE.journal as the cassette CASSETTE')
    .argument('<cassette>', 'the cassette the recorder was writing (its journal is CASSETTE.journal)')
    .option('--config <file>', 'JSON config whose "redact" section adds redaction rules (default tapedeck.config.json if present)')
    .addHelpText(
      'after',
      `
bench proxy and bench record journal what they capture as it happens, next to
the cassette. A clean stop writes the cassette and removes the journal; after
a SIGKILL, a crash or a lost machine the journal is still there, and this
command writes every exchange it holds (exchanges still under way when the
recorder died are kept as far as they got: streams "broken", the rest as a
"recording_interrupted" failure), then removes the journal.

Example:
  $ bench recover cassettes/session.yaml`,
    )
    .action((cassette: string, flags: { config?: string }) =>
      runCommand(async () => {
        const redact = await loadRedactionConfig(flags.config);
        const journal = journalPath(cassette);
        await access(journal).catch(() => {
          throw new UsageError(`${journal} does not exist: there is nothing to recover for ${cassette}`);
        });
        const { cassette: recovered, interrupted, dropped } = await readJournal(journal);
        for (const d of dropped) process.stderr.write(`bench recover: ${journal}:${d.line}: dropped: ${d.reason}\n`);
        await writeCassetteAtomic(cassette, recovered, redact);
        await rm(journal, { force: true });
        process.stderr.write(
          `bench recover: wrote ${cassette} (${recovered.interactions.length} interactions, ${interrupted} cut short by the stop${dropped.length > 0 ? `, ${dropped.length} journal lines dropped` : ''}) and removed ${journal}\n`,
        );
        return 0;
      }),
    );
}
