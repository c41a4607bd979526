import { Command, CommanderError } from 'commander';
import { TapedeckError } from '../errors.js';
import { TAPEDECK_VERSION } from '../version.js';
import { registerDrift } from './commands/drift.js';
import { registerFuzz } from './commands/fuzz.js';
import { registerHar } from './commands/har.js';
import { registerInspect } from './commands/inspect.js';
import { registerProxy } from './commands/proxy.js';
import { registerRecord } from './commands/record.js';
import { registerRecover } from './commands/recover.js';
import { registerReplay } from './commands/replay.js';
import { registerScan } from './commands/scan.js';
import { registerSim } from './commands/sim.js';
import { registerTimeline } from './commands/timeline.js';
import { registerVerify } from './commands/verify.js';
import { EXIT, printError, setVerbose } from './run-command.js';

/** Builds the `bench` program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('bench')
    .description('tapedeck: record, replay and check the HTTP and SSE traffic of agent servers')
    .version(TAPEDECK_VERSION, '-V, --version', 'print the tapedeck version')
    .option('--verbose', 'print stack traces for unexpected errors')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      // One line per mistake: commander's suggestion joins the message instead of a second line.
      writeErr: (s) =>
        process.stderr.write(
          (s.startsWith('error: ') ? `bench: ${s.slice(7)}` : s).replace(/\n\(Did you mean (.+)\?\)/, '; did you mean $1?'),
        ),
    })
    .hook('preAction', (cmd) => setVerbose(Boolean(cmd.opts().verbose)));
  registerRecord(program);
  registerReplay(program);
  registerVerify(program);
  registerDrift(program);
  registerFuzz(program);
  registerProxy(program);
  registerRecover(program);
  registerInspect(program);
  registerTimeline(program);
  registerHar(program);
  registerScan(program);
  registerSim(program);
  for (const cmd of program.commands) cmd.exitOverride().showSuggestionAfterError(true);
  program.addHelpText('after', '\nRun `bench <command> --help` for the options and an example of each command.');
  return program;
}

/** Entry point of the `bench` binary. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      const benign = ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code);
      if (!benign && err.code === 'commander.executeSubCommandAsync') printError(err.message);
      process.exitCode = benign ? EXIT.ok : EXIT.usage;
      return;
    }
    if (err instanceof TapedeckError) {
      printError(err.message);
      process.exitCode = err.exitCode;
      return;
    }
    throw err;
  }
}
