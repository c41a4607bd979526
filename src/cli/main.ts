import { Command, CommanderError } from 'commander';
import { TapedeckError } from '../errors.js';
import { loadUserFamilies } from '../families/index.js';
import { TAPEDECK_VERSION } from '../version.js';
import { EXIT, printError, setVerbose } from './run-command.js';

type Register = (program: Command) => void;

/**
 * Every command, in `--help` order, loaded only when needed: a command's
 * module brings its whole stage (msw, undici, zod schemas), and `bench
 * verify` should not pay for the recorder's start-up.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  record: async () => (await import('./commands/record.js')).registerRecord,
  replay: async () => (await import('./commands/replay.js')).registerReplay,
  verify: async () => (await import('./commands/verify.js')).registerVerify,
  infer: async () => (await import('./commands/infer.js')).registerInfer,
  drift: async () => (await import('./commands/drift.js')).registerDrift,
  fuzz: async () => (await import('./commands/fuzz.js')).registerFuzz,
  rerun: async () => (await import('./commands/rerun.js')).registerRerun,
  proxy: async () => (await import('./commands/proxy.js')).registerProxy,
  recover: async () => (await import('./commands/recover.js')).registerRecover,
  inspect: async () => (await import('./commands/inspect.js')).registerInspect,
  timeline: async () => (await import('./commands/timeline.js')).registerTimeline,
  har: async () => (await import('./commands/har.js')).registerHar,
  scan: async () => (await import('./commands/scan.js')).registerScan,
  prune: async () => (await import('./commands/prune.js')).registerPrune,
  sim: async () => (await import('./commands/sim.js')).registerSim,
};

/**
 * The commands an argument list needs: the one its first word that is no
 * option names (the only global options take no value), none for a bare
 * `--version`, all for anything else (help, a typo's suggestion).
 */
function commandsFor(args: readonly string[]): string[] {
  const word = args.find((a) => !a.startsWith('-'));
  if (word !== undefined) return Object.hasOwn(COMMANDS, word) ? [word] : Object.keys(COMMANDS);
  return args.includes('-V') || args.includes('--version') ? [] : Object.keys(COMMANDS);
}

/** Builds the `bench` program with the named commands (default: every one). */
export async function buildProgram(names: readonly string[] = Object.keys(COMMANDS)): Promise<Command> {
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
  const registers = await Promise.all(names.map((name) => (COMMANDS[name] as () => Promise<Register>)()));
  for (const register of registers) register(program);
  for (const cmd of program.commands) cmd.exitOverride().showSuggestionAfterError(true);
  program.addHelpText('after', '\nRun `bench <command> --help` for the options and an example of each command.');
  return program;
}

/** Entry point of the `bench` binary. */
export async function main(argv: string[]): Promise<void> {
  // A reader that has seen enough (`bench record --help | head`) closes the pipe: stop quietly, as a Unix tool
  // does on SIGPIPE, instead of Node's unhandled EPIPE trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? EXIT.ok);
  });
  const names = commandsFor(argv.slice(2));
  try {
    // A project's own families (tapedeck.config.*) are in the registry before any help or command reads it.
    if (names.length > 0) await loadUserFamilies();
    const program = await buildProgram(names);
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
