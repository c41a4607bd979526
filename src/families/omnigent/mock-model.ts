import type { MockRule } from '../../mock-model/index.js';

const NUMBERS =
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(
    ' ',
  );
/** The long reply: 200 words, 25 ms apart (5 s), enough for an interrupt to land mid-stream. */
const ESSAY = Array.from({ length: 200 }, (_, i) => `${i === 0 ? 'Computing' : 'history'} `);
const ESSAY_PACE_MS = 25;

/** How the mock model answers the bench's prompts, as a model that follows them would. */
export const OMNIGENT_MOCK_RULES: readonly MockRule[] = [
  // The full-server bench's tool probe: its server-dispatched builtin, when offered.
  ({ userText, tools }) =>
    /\blist_files\b/.test(userText) && tools.includes('list_files') ? { kind: 'tool', name: 'list_files', args: {} } : undefined,
  // The native-tui bench's tool prompt, to a vendor CLI (the codex TUI offers exec_command, or shell).
  ({ userText, tools }) => {
    const exact = /run this exact command: (.+)$/m.exec(userText);
    if (!exact) return undefined;
    const command = (exact[1] as string).trim();
    if (tools.includes('exec_command')) return { kind: 'tool', name: 'exec_command', args: { cmd: command } };
    if (tools.includes('shell')) return { kind: 'tool', name: 'shell', args: { command } };
    return undefined;
  },
  // Basic turn and cost, streaming, interrupt.
  ({ userText }) => {
    const literal = /Reply with exactly the literal string (\S+) and nothing else/.exec(userText);
    return literal ? { kind: 'text', words: [literal[1] as string] } : undefined;
  },
  ({ userText }) =>
    /Count from 1 to 20 in words/.test(userText) ? { kind: 'text', words: NUMBERS.map((w, i) => (i < 19 ? `${w}\n` : w)) } : undefined,
  ({ userText }) => (/\bessay\b/.test(userText) ? { kind: 'text', words: ESSAY, paceMs: ESSAY_PACE_MS } : undefined),
];
