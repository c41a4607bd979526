import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadCassette, portablePass, writeCassetteStream, writeFileAtomic } from '../../cassette/index.js';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { cassetteToHar, harToCassette, parseHar } from '../../har/index.js';
import { TAPEDECK_VERSION } from '../../version.js';
import { checkOutputFile } from '../output-file.js';
import { runCommand } from '../run-command.js';

async function readJson(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`${file}: ${err.code === 'ENOENT' ? 'no such file' : `cannot read it (${err.code})`}`);
  });
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: not JSON (${(err as Error).message}); a HAR file is JSON, as browsers and Playwright save it`);
  }
}

export function registerHar(program: Command): void {
  const har = program
    .command('har')
    .description('HAR 1.2 in and out: what browser devtools, Playwright, Polly and @mswjs/source read and write')
    .addHelpText(
      'after',
      `
Examples:
  $ bench har export cassettes/kiro-native/streaming.yaml -o streaming.har
  $ bench har import session.har -o cassettes/web/session.yaml`,
    );
  har
    .command('export')
    .description("write a cassette as HAR 1.2: SSE bodies as their wire text, WebSocket frames as Chrome's _webSocketMessages")
    .argument('<cassette>', 'cassette file')
    .requiredOption('-o, --out <file>', 'the HAR file to write')
    .addHelpText(
      'after',
      "\nWhat HAR has no field for (seqs, each event's time and the request that released it, stream ends, failures) is kept under _tapedeck on each entry, so bench har import gives the cassette back.\n\nExample:\n  $ bench har export cassettes/kiro-native/basic_turn.yaml -o basic_turn.har",
    )
    .action((file: string, flags: { out: string }) =>
      runCommand(async () => {
        await checkOutputFile('-o', flags.out);
        const cassette = await loadCassette(file);
        const doc = cassetteToHar(cassette, { name: 'tapedeck', version: TAPEDECK_VERSION });
        await writeFileAtomic(flags.out, `${JSON.stringify(doc, null, 2)}\n`);
        process.stderr.write(`bench har: ${flags.out}: ${doc.log.entries.length} entries\n`);
        return 0;
      }),
    );
  har
    .command('import')
    .description('turn a HAR into a cassette, redacted like any recording, SSE bodies parsed into events')
    .argument('<har>', 'HAR file (JSON)')
    .requiredOption('-o, --out <file>', 'the cassette to write (.yaml)')
    .option('--origin <url>', "keep the entries of this origin (default: the first entry's); a cassette records one server")
    .option('--config <file>', 'JSON config whose "redact" section adds redaction rules (default tapedeck.config.json if present)')
    .addHelpText(
      'after',
      `
Secrets are redacted and this machine's folders and host name replaced as
when recording. Requests and WebSocket messages sent are numbered in time
order; SSE events, which HAR does not time, are released by their own
request. Entries of other origins, data: URLs and the like are left out and
counted.

Example:
  $ bench har import session.har -o cassettes/web/session.yaml --origin http://127.0.0.1:3000`,
    )
    .action((file: string, flags: { out: string; origin?: string; config?: string }) =>
      runCommand(async () => {
        if (!/\.ya?ml$/.test(flags.out)) throw new UsageError(`-o ${flags.out}: a cassette is a .yaml file; name one`);
        await checkOutputFile('-o', flags.out);
        if (flags.origin !== undefined && !URL.canParse(flags.origin))
          throw new UsageError(`--origin ${JSON.stringify(flags.origin)} is not a URL; give one like http://127.0.0.1:3000`);
        const redact = await loadRedactionConfig(flags.config);
        const doc = parseHar(await readJson(file), file);
        const imported = harToCassette(doc, {
          ...(flags.origin ? { origin: flags.origin } : {}),
          recorder: `tapedeck ${TAPEDECK_VERSION} (har import)`,
        });
        // A tapedeck export is already portable (its `<tmp>` is a placeholder, not text to escape); anything else is made so.
        const portable = imported.fromTapedeck ? undefined : portablePass();
        const count = await writeCassetteStream(flags.out, imported.meta, () => imported.interactions, redact, portable);
        process.stderr.write(
          `bench har: ${flags.out}: ${count} interactions from ${imported.meta.target}${imported.skipped ? `, ${imported.skipped} entries of other origins left out` : ''}\n`,
        );
        return 0;
      }),
    );
}
