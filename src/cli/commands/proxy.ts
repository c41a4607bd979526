import type { Command } from 'commander';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { checkCassetteTarget, journalPath, type RecordingProxy, startRecordingProxy } from '../../recorder/index.js';
import { parseLabel, parsePort, parseWholeMs } from '../options.js';
import { runCommand } from '../run-command.js';
import { whenStopped } from '../stop-signal.js';

interface ProxyFlags {
  target: string;
  port: number;
  host: string;
  cassette: string;
  label?: Record<string, string>;
  config?: string;
  force?: boolean;
  allowOrigin?: string[];
  uploadGrace: number;
  quiet?: boolean;
}

const HELP = `
The first line on stdout is "listening on http://HOST:PORT". Point your client
at that URL. --cassette is checked first: a folder, a missing folder, an
unwritable place or a file that is not a cassette is refused (exit 2).

As a forward proxy: set HTTP_PROXY=http://HOST:PORT in front of any client,
and its plain-HTTP requests to --target's origin, or to an origin named with
--allow-origin, are forwarded and recorded with their origin. Any other
origin is refused with a 403 (the proxy is no open relay), as is CONNECT:
HTTPS through HTTP_PROXY is tunnelled and cannot be recorded, so point such a
client at the proxy's URL instead.

Everything captured is journaled as it happens in FILE.journal (redacted).
Stop with Ctrl-C, SIGTERM or SIGHUP, or by killing the wrapper that started
it (npx, npm exec, sh): open streams are ended as "proxy-closed", the cassette
is written atomically and the journal removed; a second signal does not
abort the save. After a hard kill (SIGKILL, a crash, a lost machine),
"bench recover FILE" saves what the journal holds. A run that recorded
nothing leaves an existing cassette as it was.

Example:
  $ bench proxy --target http://127.0.0.1:6767 --port 0 --cassette cassettes/session.yaml`;

export function registerProxy(program: Command): void {
  program
    .command('proxy')
    .description('record any client: a reverse proxy that forwards to --target and writes the traffic to a cassette on exit')
    .requiredOption('--target <url>', 'base URL of the server to record, e.g. http://127.0.0.1:6767')
    .requiredOption('--cassette <file>', 'cassette to write when the proxy stops (replaced atomically)')
    .option('--port <n>', 'port to listen on; 0 picks a free one', parsePort, 0)
    .option('--host <address>', 'address to bind; loopback unless you ask for another', '127.0.0.1')
    .option('--label <key=value>', 'label written to the cassette meta (repeatable)', parseLabel)
    .option(
      '--allow-origin <origin>',
      'also record absolute-form requests (clients with HTTP_PROXY set) to this origin, e.g. http://localhost:8080 (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--upload-grace <ms>',
      'at a stop, how long a client part-way through an upload may go on before it is cut and recorded as upload_aborted',
      parseWholeMs,
      5000,
    )
    .option('--quiet', 'no line per exchange on stderr (the method, path, status, time and events of each)')
    .option('--force', 'overwrite --cassette even when the file there is not a cassette')
    .option('--config <file>', 'JSON config whose "redact" section adds redaction rules (default tapedeck.config.json if present)')
    .addHelpText('after', HELP)
    .action((flags: ProxyFlags) => runCommand(() => runProxy(flags)));
}

/** Records until stopped, then saves: the journal holds everything from the first exchange, so no stop loses it. */
async function runProxy(flags: ProxyFlags): Promise<number> {
  const redact = await loadRedactionConfig(flags.config);
  const { existing } = await checkCassetteTarget(flags.cassette, { force: flags.force ?? false });
  const say = (line: string) => process.stderr.write(`bench proxy: ${line}\n`);
  let saving = false;
  let started: RecordingProxy | undefined;
  // Handlers go in before the URL is printed: a script may signal as soon as it reads it.
  const stopped = whenStopped((cause) => {
    // A second signal cuts uploads still coming in at once; the save itself always finishes.
    started?.hurry();
    say(saving ? `${cause}: still saving ${flags.cassette}; it finishes in a moment` : `${cause}: uploads under way are cut now`);
  });
  const journal = journalPath(flags.cassette);
  const proxy = await startRecordingProxy({
    target: flags.target,
    allowOrigins: flags.allowOrigin,
    uploadGraceMs: flags.uploadGrace,
    ...(flags.quiet ? {} : { logExchange: say }),
    port: flags.port,
    host: flags.host,
    ...(flags.label ? { labels: flags.label } : {}),
    journal: { file: journal, redact },
    log: say,
  });
  started = proxy;
  process.stdout.write(`listening on ${proxy.url}\n`);
  const cause = await stopped;
  say(`${cause}: closing open streams`);
  // From here the journal holds everything: a kill during the save loses nothing.
  await proxy.stop();
  saving = true;
  if (proxy.journalError)
    say(`the journal ${journal} could not be written (${proxy.journalError.message}): only this save holds the recording`);
  if (proxy.recorded === 0 && existing) {
    await proxy.discardJournal();
    say(`recorded nothing; ${flags.cassette} is left as it was`);
    return 0;
  }
  say(`saving cassette ${flags.cassette}`);
  let written: number;
  try {
    written = await proxy.save(flags.cassette, redact);
  } catch (err) {
    throw new UsageError(`${(err as Error).message}; the recording is kept in ${journal}: \`bench recover ${flags.cassette}\` saves it`);
  }
  await proxy.discardJournal();
  say(`wrote ${flags.cassette} (${written} interactions)`);
  return 0;
}
