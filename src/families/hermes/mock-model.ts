import type { MockRule } from '../../mock-model/index.js';

/** The gateway probes' tools: a read that fails (no such file), and a recursive delete its approval gate stops. */
export const HERMES_MOCK_RULES: readonly MockRule[] = [
  ({ userText, tools }) =>
    /\bmissing\.txt\b/.test(userText) && tools.includes('read_file')
      ? { kind: 'tool', name: 'read_file', args: { path: 'missing.txt' } }
      : undefined,
  ({ userText, tools }) =>
    /\bClean the build folder\b/.test(userText) && tools.includes('terminal')
      ? { kind: 'tool', name: 'terminal', args: { command: 'rm -rf ./build' } }
      : undefined,
];
