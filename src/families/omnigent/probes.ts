import type { Verdict } from '../../manifest/verdict.js';
import type { StreamReader } from '../kit/stream-reader.js';
import type { SessionDriver } from './driver.js';
import type { HarnessProfile } from './harnesses.js';
import type { TurnResult } from './turn-result.js';

export const PROBE_NAMES = [
  'basic_turn',
  'streaming',
  'tool_calling',
  'policy_deny',
  'policy_allow',
  'policy_ask',
  'cost_tracking',
  'interrupt',
] as const;
export type ProbeName = (typeof PROBE_NAMES)[number];

export interface Observation {
  observed: Verdict;
  note: string;
  turn?: TurnResult;
}

export interface Declaration {
  declared: Verdict | undefined;
  /** Why the probe cannot run for this harness at all (SKIPPED before any traffic). */
  skip?: string | undefined;
}

export interface Probe {
  name: ProbeName;
  priority: 'P0' | 'P1';
  declare(h: HarnessProfile): Declaration;
  run(driver: SessionDriver, declared: Verdict | undefined): Promise<Observation>;
}

const STREAM_PROMPT = 'Count from 1 to 20 in words, one per line.';
const LONG_PROMPT = 'Write a detailed 500-word essay about the history of computing.';
const SHORT_REPLY_CHARS = 800;

export function markerFor(harness: string): string {
  return `${harness.replaceAll('-', '_').toUpperCase()}_OK`;
}

function toolPrompt(h: HarnessProfile, token: string): string {
  // On the full server the tool is the bench's server-dispatched builtin, the one its agent bundle offers.
  if (h.integrationMode === 'sdk') return `List the files using the ${h.shellTool} tool, then tell me how many there are.`;
  const command = `echo omnigent-bench-${token}`;
  return h.shellTool === 'Bash'
    ? `Use the Bash tool to run this exact command: ${command}`
    : `Use your shell/terminal tool to run this exact command: ${command}`;
}

/** Tool and policy probes need a tool to provoke, and policy probes an active hook. */
function toolSkip(h: HarnessProfile, needsHook: boolean, driver?: SessionDriver): string | undefined {
  if (!h.shellTool) return `no tool-provocation mapping for ${h.id}`;
  if (needsHook && driver?.policyHookDisabledReason) return `native policy enforcement inactive (${driver.policyHookDisabledReason})`;
  return undefined;
}

const skipped = (note: string): Observation => ({ observed: 'SKIPPED', note });

/** Events that do not show a turn moving on after an approval: the route's echo of it, keep-alives. */
const NO_PROGRESS = new Set(['response.elicitation_resolved', 'session.heartbeat']);
const APPROVAL_ATTEMPTS = 4;

/**
 * Approves, and approves again while the turn shows no progress. The real full
 * server (0.19.1) publishes the elicitation before its runner parks on it, and
 * the runner drops a verdict that comes in between (`pending_approvals.resolve`).
 */
async function approveUntilTaken(driver: SessionDriver, reader: StreamReader, elicitationId: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const from = reader.events.length;
    await driver.approve(elicitationId);
    const moved = await reader.waitFor((e) => !NO_PROGRESS.has(e.type), driver.timings.approvalRetryMs, from);
    if (moved || reader.ended || attempt === APPROVAL_ATTEMPTS) return;
  }
}

async function policyTurn(driver: SessionDriver, action: 'deny' | 'allow' | 'ask'): Promise<TurnResult> {
  const policyId = await driver.attachToolPolicy(action);
  try {
    return await driver.runTurn(toolPrompt(driver.harness, action), {
      onEvent: async (e, reader) => {
        if (action === 'ask' && e.type === 'response.elicitation_request' && typeof e.data.elicitation_id === 'string') {
          await approveUntilTaken(driver, reader, e.data.elicitation_id);
        }
      },
      // I19 and I26: a late policy_denied, or an idle flap before the elicitation, must not end observation early.
      // The full server writes the denial into the call's output, within the turn: nothing trails it.
      ...(action === 'deny' && driver.harness.integrationMode !== 'sdk'
        ? { linger: { type: 'response.policy_denied', ms: driver.timings.denyObserveMs } }
        : {}),
      ...(action === 'ask' ? { linger: { type: 'response.elicitation_request', ms: driver.timings.denyObserveMs } } : {}),
    });
  } finally {
    await driver.deletePolicy(policyId);
  }
}

/** The probe suite, in the bench's order: basic_turn gates the rest, interrupt runs last. */
export const PROBES: readonly Probe[] = [
  {
    name: 'basic_turn',
    priority: 'P0',
    declare: () => ({ declared: 'SUPPORTED' }),
    async run(driver) {
      const marker = markerFor(driver.harness.id);
      const turn = await driver.runTurn(`Reply with exactly the literal string ${marker} and nothing else.`);
      if (turn.text.includes(marker)) return { observed: 'SUPPORTED', note: `reply echoed ${marker}`, turn };
      return {
        observed: 'UNSUPPORTED',
        note: turn.timedOut ? 'no reply: the turn timed out' : `reply lacked ${marker}: ${JSON.stringify(turn.text.slice(0, 80))}`,
        turn,
      };
    },
  },
  {
    name: 'streaming',
    priority: 'P0',
    declare: (h) => ({ declared: h.streaming ? 'SUPPORTED' : 'NOT_APPLICABLE' }),
    async run(driver, declared) {
      let turn = await driver.runTurn(STREAM_PROMPT);
      // One delta may be a short reply sent whole: try once more before judging.
      if (turn.textDeltaCount === 1) turn = await driver.runTurn(STREAM_PROMPT);
      const n = turn.textDeltaCount;
      if (n > 1) return { observed: 'SUPPORTED', note: `${n} text deltas`, turn };
      if (n === 1) return { observed: 'PARTIAL', note: 'one text delta, twice', turn };
      if (declared === 'NOT_APPLICABLE')
        return { observed: 'NOT_APPLICABLE', note: `${driver.harness.id} declares streaming=false; no text deltas, as declared`, turn };
      return { observed: 'UNSUPPORTED', note: 'no text deltas', turn };
    },
  },
  {
    name: 'tool_calling',
    priority: 'P0',
    declare: (h) => ({ declared: h.mirrorsToolCalls ? 'SUPPORTED' : 'NOT_APPLICABLE', skip: toolSkip(h, false) }),
    async run(driver, declared) {
      const turn = await driver.runTurn(toolPrompt(driver.harness, 'ok'));
      const call = turn.toolCalls[0];
      if (call) return { observed: 'SUPPORTED', note: `${call.name} called`, turn };
      if (declared === 'NOT_APPLICABLE')
        return { observed: 'NOT_APPLICABLE', note: `${driver.harness.id}'s forwarder mirrors no tool_use items, as declared`, turn };
      return { observed: 'UNSUPPORTED', note: 'no function_call item after the turn', turn };
    },
  },
  {
    name: 'policy_deny',
    priority: 'P0',
    declare: (h) => ({ declared: 'SUPPORTED', skip: toolSkip(h, true) }),
    async run(driver) {
      const skip = toolSkip(driver.harness, true, driver);
      if (skip) return skipped(skip);
      const turn = await policyTurn(driver, 'deny');
      if (turn.toolCallDenied && !turn.events.includes('response.policy_denied'))
        return { observed: 'SUPPORTED', note: 'the blocked call returned the denial as its output', turn };
      return turn.toolCallDenied
        ? { observed: 'SUPPORTED', note: 'response.policy_denied observed', turn }
        : { observed: 'UNSUPPORTED', note: 'no response.policy_denied within the observation window', turn };
    },
  },
  {
    name: 'policy_allow',
    priority: 'P1',
    declare: (h) => ({ declared: h.mirrorsToolCalls ? 'SUPPORTED' : 'NOT_APPLICABLE', skip: toolSkip(h, true) }),
    async run(driver, declared) {
      const skip = toolSkip(driver.harness, true, driver);
      if (skip) return skipped(skip);
      const turn = await policyTurn(driver, 'allow');
      turn.toolCallAllowed = turn.toolCalls.length > 0 && !turn.toolCallDenied;
      if (turn.toolCallAllowed) return { observed: 'SUPPORTED', note: 'tool ran under an explicit ALLOW policy', turn };
      if (declared === 'NOT_APPLICABLE')
        return { observed: 'NOT_APPLICABLE', note: `${driver.harness.id} mirrors no tool calls to observe, as declared`, turn };
      return { observed: 'UNSUPPORTED', note: 'no tool call under an ALLOW policy', turn };
    },
  },
  {
    name: 'policy_ask',
    priority: 'P1',
    declare: (h) => ({ declared: 'SUPPORTED', skip: toolSkip(h, true) }),
    async run(driver) {
      const skip = toolSkip(driver.harness, true, driver);
      if (skip) return skipped(skip);
      const turn = await policyTurn(driver, 'ask');
      return turn.elicitationRequested
        ? { observed: 'SUPPORTED', note: 'response.elicitation_request observed and approved', turn }
        : { observed: 'UNSUPPORTED', note: 'no elicitation request under an ASK policy', turn };
    },
  },
  {
    name: 'cost_tracking',
    priority: 'P1',
    declare: (h) => ({ declared: h.reportsCost ? 'SUPPORTED' : undefined }),
    async run(driver) {
      const turn = await driver.runTurn(`Reply with exactly the literal string ${markerFor(driver.harness.id)} and nothing else.`);
      if ((turn.totalCostUsd ?? 0) > 0) return { observed: 'SUPPORTED', note: `total_cost_usd ${turn.totalCostUsd}`, turn };
      if ((turn.totalTokens ?? 0) > 0) return { observed: 'PARTIAL', note: `tokens (${turn.totalTokens}) but no cost`, turn };
      return { observed: 'SKIPPED', note: `no usage reported by ${driver.harness.id} (${driver.harness.auth})`, turn };
    },
  },
  {
    name: 'interrupt',
    priority: 'P0',
    declare: (h) => ({ declared: h.interrupt ? 'SUPPORTED' : 'NOT_APPLICABLE' }),
    async run(driver) {
      let interrupted = false;
      const turn = await driver.runTurn(LONG_PROMPT, {
        onEvent: async (e) => {
          // Native deltas come in a burst at the end: interrupt from in_progress, after a hold.
          if (e.type === 'response.in_progress' && !interrupted) {
            interrupted = true;
            await new Promise((r) => setTimeout(r, driver.timings.interruptHoldMs));
            await driver.interrupt();
          }
        },
      });
      if (turn.cancelled) return { observed: 'SUPPORTED', note: 'session.interrupted observed', turn };
      if (turn.timedOut) return { observed: 'UNSUPPORTED', note: 'the turn timed out: it neither ended nor was interrupted', turn };
      return turn.text.length < SHORT_REPLY_CHARS
        ? { observed: 'SUPPORTED', note: 'a short reply ended before the interrupt', turn }
        : { observed: 'PARTIAL', note: 'the long reply finished despite the interrupt', turn };
    },
  },
];
