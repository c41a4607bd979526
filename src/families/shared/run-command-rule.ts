import type { MockRule } from '../../mock-model/index.js';

/** The command the mock model runs for a `run:` prompt. */
export const MOCK_COMMAND = 'echo hello-from-tool';

/**
 * A prompt that asks to `run:` something, with the CLI's shell tool on offer:
 * one call of it (`bash {command, description}` or `exec_command {cmd}`).
 */
export const runCommandRule: MockRule = ({ userText, tools }) => {
  if (!/\brun:/i.test(userText)) return undefined;
  if (tools.includes('bash')) return { kind: 'tool', name: 'bash', args: { command: MOCK_COMMAND, description: 'Print a greeting' } };
  if (tools.includes('exec_command')) return { kind: 'tool', name: 'exec_command', args: { cmd: MOCK_COMMAND } };
  return undefined;
};
