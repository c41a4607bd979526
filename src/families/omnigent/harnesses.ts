import { z } from 'zod';

export const integrationModeSchema = z.enum(['native-tui', 'native-server', 'sdk']);
export const authModelSchema = z.enum(['omnigent-credential', 'session-scoped-config', 'own-auth']);

/**
 * What a harness declares about itself, after the omnigent capability table
 * (`_BUILTIN_CAPABILITIES`). The probes derive their declared verdicts from it;
 * the simulator behaves as it says unless told otherwise.
 */
export const harnessProfileSchema = z.strictObject({
  id: z.string(),
  integrationMode: integrationModeSchema,
  auth: authModelSchema,
  /** Whether the vendor's forwarder posts text deltas. */
  streaming: z.boolean(),
  /** The vendor creates its chat id on the first message, not at launch. */
  lazyChat: z.boolean(),
  interrupt: z.boolean(),
  /** The vendor's own shell tool; empty when no prompt reliably provokes one. */
  shellTool: z.string(),
  /** Whether the forwarder mirrors tool use into function_call items. */
  mirrorsToolCalls: z.boolean(),
  /** Whether the vendor reports usage (tokens, and cost when priced). */
  reportsCost: z.boolean(),
  /**
   * The turn the simulator plays: the reference's trace, or the one recorded
   * from the real server with this vendor behind it (`codex-real`: omnigent
   * 0.19.1 driving the codex TUI), where the two differ.
   */
  trace: z.enum(['reference', 'codex-real']),
});
export type HarnessProfile = z.infer<typeof harnessProfileSchema>;

function native(
  id: string,
  auth: HarnessProfile['auth'],
  shellTool: string,
  opts: Partial<Pick<HarnessProfile, 'streaming' | 'lazyChat' | 'mirrorsToolCalls' | 'trace'>> = {},
): HarnessProfile {
  return {
    id,
    integrationMode: 'native-tui',
    auth,
    streaming: opts.streaming ?? true,
    lazyChat: opts.lazyChat ?? false,
    interrupt: true,
    shellTool,
    mirrorsToolCalls: opts.mirrorsToolCalls ?? shellTool !== '',
    // Only vendors that run on omnigent's own credential are priced by the server.
    reportsCost: auth === 'omnigent-credential',
    trace: opts.trace ?? 'reference',
  };
}

function sdk(id: string): HarnessProfile {
  return {
    id,
    integrationMode: 'sdk',
    auth: 'omnigent-credential',
    streaming: true,
    lazyChat: false,
    interrupt: true,
    // The full-server bench provokes the server's read-only builtin, which its agent bundle offers.
    shellTool: id === 'openai-agents' ? 'list_files' : '',
    mirrorsToolCalls: true,
    // Checked on the real full server (0.19.1): openai-agents reports usage as tokens, with a cost only for a model it prices.
    reportsCost: id !== 'openai-agents',
    trace: 'reference',
  };
}

/**
 * Every harness of the reference's table. Native-tui streaming follows which
 * forwarders post deltas (claude, codex, pi, antigravity); kiro and qwen mirror
 * no tool_use items (omnigent #2096); cursor has no shell probe and chats lazily.
 * codex-native plays what the real server showed with the codex TUI behind it.
 */
export const HARNESS_PROFILES: readonly HarnessProfile[] = [
  native('claude-native', 'omnigent-credential', 'Bash'),
  native('codex-native', 'omnigent-credential', 'shell', { trace: 'codex-real' }),
  native('pi-native', 'session-scoped-config', 'Bash'),
  native('cursor-native', 'own-auth', '', { streaming: false, lazyChat: true }),
  native('kiro-native', 'own-auth', 'shell', { streaming: false, mirrorsToolCalls: false }),
  native('antigravity-native', 'own-auth', 'run_command'),
  native('goose-native', 'own-auth', 'developer__shell', { streaming: false }),
  native('qwen-native', 'own-auth', 'run_shell_command', { streaming: false, mirrorsToolCalls: false }),
  native('kimi-native', 'own-auth', 'Bash', { streaming: false }),
  native('hermes-native', 'own-auth', 'terminal', { streaming: false }),
  { ...native('opencode-native', 'own-auth', 'bash'), integrationMode: 'native-server' },
  ...[
    'claude-sdk',
    'codex',
    'pi',
    'openai-agents',
    'cursor',
    'antigravity',
    'acp',
    'goose',
    'qwen',
    'kimi',
    'hermes',
    'copilot',
    'open-responses',
  ].map(sdk),
];

/** The profile of a harness id, or undefined. */
export function findHarness(id: string): HarnessProfile | undefined {
  return HARNESS_PROFILES.find((h) => h.id === id);
}

/** Full-server harnesses the bench runs in a runner's process (no host daemon, no vendor CLI): those the mock model can serve. */
export const FULL_SERVER_HARNESSES: readonly string[] = ['openai-agents'];

/** Harness ids that `bench record` can drive: native-tui, and the full-server ones. */
export function recordableHarnessIds(): string[] {
  return HARNESS_PROFILES.filter((h) => h.integrationMode === 'native-tui' || FULL_SERVER_HARNESSES.includes(h.id)).map((h) => h.id);
}
