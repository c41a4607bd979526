import type { SeededIds } from '../../../net/seeded-ids.js';

/** What the scripted agent does, as transport-neutral steps; each route frames them its own way. */
export type AgentStep =
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool.started'; tool: string; callId: string; preview: string; args: Record<string, unknown> }
  | {
      kind: 'tool.completed' | 'tool.failed';
      tool: string;
      callId: string;
      preview: string;
      args: Record<string, unknown>;
      exitCode: number;
      output: string;
    }
  | { kind: 'clarify.request'; promptId: string; question: string; choices: string[] }
  | { kind: 'clarify.retired'; promptId: string; answer: string }
  | { kind: 'approval.request'; promptId: string; command: string; choices: string[] }
  | { kind: 'approval.responded'; promptId: string; choice: string }
  | { kind: 'delta'; text: string };

export type AgentEnd =
  | { outcome: 'completed'; text: string }
  | { outcome: 'cancelled'; text: string }
  | { outcome: 'failed'; error: string };

/** A prompt waiting for an answer: the run's `pending_controls` entry. */
export interface PendingControl {
  prompt_id: string;
  kind: 'clarify' | 'approval';
  question?: string;
  command?: string;
  choices: string[];
}

/** What a running agent needs from its run: a place to publish, answers to prompts, and cancellation. */
export interface AgentContext {
  ids: SeededIds;
  emit(step: AgentStep): void;
  /** Resolves with the answer, or undefined when the run is stopped first. */
  ask(control: PendingControl): Promise<string | undefined>;
  /** Resolves when the run is stopped (never, if it is not). */
  stopped: Promise<void>;
  isStopped(): boolean;
}

/** Previews are capped as the gateway caps them (120 characters). */
export const preview = (text: string) => (text.length > 120 ? `${text.slice(0, 117)}...` : text);
const words = (text: string) => text.split(/(?<= )/);

/**
 * The deterministic scripted agent. The prompt picks the script: `clarify`,
 * `approv` (a command that needs approval), `crash` (the run fails), `fail` (a
 * tool that exits 1 with no output), `tool`/`run` (a tool that succeeds), `long` (a reply that waits,
 * mid-message, until the run is stopped), anything else a plain echo.
 */
export async function runAgent(prompt: string, ctx: AgentContext): Promise<AgentEnd> {
  const p = prompt.toLowerCase();
  ctx.emit({ kind: 'reasoning', text: `Planning a reply to a ${prompt.length}-character request.` });
  if (p.includes('long')) {
    const [first] = words('Here is a long essay about the history of computing, which goes on and on.');
    ctx.emit({ kind: 'delta', text: first ?? '' });
    await ctx.stopped;
    return { outcome: 'cancelled', text: first ?? '' };
  }
  if (p.includes('clarify')) {
    const promptId = `prm_${ctx.ids.hex(16)}`;
    const choices = ['notes.txt', 'todo.txt'];
    ctx.emit({ kind: 'clarify.request', promptId, question: 'Which file should I summarise?', choices });
    const answer = await ctx.ask({ prompt_id: promptId, kind: 'clarify', question: 'Which file should I summarise?', choices });
    if (answer === undefined) return { outcome: 'cancelled', text: '' };
    ctx.emit({ kind: 'clarify.retired', promptId, answer });
    return reply(ctx, `Summarised ${answer}.`);
  }
  if (p.includes('approv')) {
    const promptId = `prm_${ctx.ids.hex(16)}`;
    const command = 'rm -rf build';
    const choices = ['once', 'session', 'always', 'deny'];
    ctx.emit({ kind: 'approval.request', promptId, command, choices });
    const choice = await ctx.ask({ prompt_id: promptId, kind: 'approval', command, choices });
    if (choice === undefined) return { outcome: 'cancelled', text: '' };
    ctx.emit({ kind: 'approval.responded', promptId, choice });
    if (choice === 'deny') return reply(ctx, 'The command was denied, so nothing was removed.');
    tool(ctx, 'terminal', { command }, 0, '');
    return reply(ctx, 'Removed the build folder.');
  }
  if (p.includes('crash')) {
    ctx.emit({ kind: 'delta', text: 'Starting. ' });
    return { outcome: 'failed', error: 'The model provider answered 500 (simulated crash)' };
  }
  if (p.includes('fail')) {
    // The real gateway reads a file with read_file; the newer build reports its error as tool.failed.
    tool(ctx, 'read_file', { path: 'missing.txt' }, 1, '{"error": "File not found: missing.txt"}');
    return reply(ctx, 'missing.txt does not exist.');
  }
  if (p.includes('tool') || p.includes('run')) {
    tool(ctx, 'terminal', { command: 'echo 4' }, 0, '4');
    return reply(ctx, 'The command printed 4.');
  }
  return reply(ctx, `You said: ${prompt}`);
}

function tool(ctx: AgentContext, name: string, args: { command: string } | { path: string }, exitCode: number, output: string): void {
  const callId = `call_${ctx.ids.hex(12)}`;
  ctx.emit({ kind: 'tool.started', tool: name, callId, preview: preview('command' in args ? args.command : args.path), args });
  ctx.emit({
    kind: exitCode === 0 ? 'tool.completed' : 'tool.failed',
    tool: name,
    callId,
    preview: preview(output || `exit ${exitCode}`),
    args,
    exitCode,
    output,
  });
}

function reply(ctx: AgentContext, text: string): AgentEnd {
  for (const w of words(text)) ctx.emit({ kind: 'delta', text: w });
  return { outcome: 'completed', text };
}
