import type { Command } from 'commander';
import { writeCassetteAtomic } from '../../cassette/index.js';
import { loadRedactionConfig } from '../../config.js';
import { startRecordingProxy } from '../../recorder/index.js';
import { parseLabel, parsePort } from '../options.js';
import { runCommand } from '../run-command.js';

interface ProxyFlags {
  target: string;
  port: number;
  host: string;
  cassette: string;
  label?: Record<string, string>;
  config?: string;
}

export function registerProxy(program: Command): void {
  program
    .command('proxy')
    .description('record any client: a reverse proxy that forwards to --target and writes the traffic to a cassette on exit')
    .requiredOption('--target <url>', 'base URL of the server to record, e.g. http://127.0.0.1:6767')
    .requiredOption('--cassette <file>', 'cassette to write when the proxy stops (replaced atomically)')
    .option('--port <n>', 'port to listen on; 0 picks a free one', parsePort, 0)
    .option('--host <address>', 'address to bind; loopback unless you ask for another', '127.0.0.1')
    .option('--label <key=value>', 'label written to the cassette meta (repeatable)', parseLabel)
    .option('--config <file>', 'JSON config whose "redact" section adds redaction rules (default tapedeck.config.json if present)')
    .addHelpText(
      'after',
      `
The first line on stdout is "listening on http://HOST:PORT". Point your client
at that URL. Stop with Ctrl-C (SIGINT) or SIGTERM: open streams are ended as
"proxy-closed" and the cassette is written atomically.

Example:
  $ bench proxy --target http://127.0.0.1:6767 --port 0 --cassette cassettes/session.yaml`,
    )
    .action((flags: ProxyFlags) =>
      runCommand(async () => {
        const redact = await loadRedactionConfig(flags.config);
        // Handlers go in before the URL is printed: a script may signal as soon as it reads it.
        const stopped = new Promise<NodeJS.Signals>((resolve) => {
          process.once('SIGINT', () => resolve('SIGINT'));
          process.once('SIGTERM', () => resolve('SIGTERM'));
        });
        const proxy = await startRecordingProxy({
          target: flags.target,
          port: flags.port,
          host: flags.host,
          ...(flags.label ? { labels: flags.label } : {}),
          log: (line) => process.stderr.write(`bench proxy: ${line}\n`),
        });
        process.stdout.write(`listening on ${proxy.url}\n`);
        const signal = await stopped;
        process.stderr.write(`bench proxy: ${signal}: closing open streams\n`);
        const cassette = await proxy.close();
        process.stderr.write(`bench proxy: saving cassette ${flags.cassette}\n`);
        await writeCassetteAtomic(flags.cassette, cassette, redact);
        process.stderr.write(`bench proxy: wrote ${flags.cassette} (${cassette.interactions.length} interactions)\n`);
        return 0;
      }),
    );
}
