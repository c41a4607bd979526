import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamEvent, StreamReader } from '../kit/stream-reader.js';
import { agentBundle, benchAgentConfig, bundleUpload } from './agent-bundle.js';
import { ProvisioningError, ServerResponseError } from './errors.js';
import type { HarnessProfile } from './harnesses.js';
import { assistantText, deniedToolOutput, functionCalls, itemRole } from './items.js';
import { type FetchLike, openSessionStream, SessionClient } from './session-client.js';
import { emptyTurnResult, type TurnResult } from './turn-result.js';

export interface DriverTimings {
  /** Ceiling for provisioning waits (health, host, agent, forwarder). */
  provisionMs: number;
  /** Ceiling for one turn. */
  turnMs: number;
  /** How long the stream must stay quiet after the vendor's final idle before a turn counts as over. */
  settleMs: number;
  /** How long a deny turn keeps reading for a late `response.policy_denied`. */
  denyObserveMs: number;
  /** How long a turn may show no progress after an approval before the approval is sent again. */
  approvalRetryMs: number;
  /** How long to wait after `response.in_progress` before interrupting. */
  interruptHoldMs: number;
  pollMs: number;
  /** How long teardown reads a deleted session's stream for its `[DONE]`; the real server (0.19.1) never ends it. */
  teardownMs: number;
}

export const LIVE_TIMINGS: DriverTimings = {
  provisionMs: 45_000,
  turnMs: 60_000,
  settleMs: 500,
  denyObserveMs: 15_000,
  approvalRetryMs: 5000,
  interruptHoldMs: 2000,
  pollMs: 300,
  teardownMs: 5000,
};

const OUTPUT_DONE = 'response.output_item.done';
// The server ends a deleted session's stream right after `[DONE]`; past this, it left the stream open and the client hangs up.
const DONE_GRACE_MS = 1000;
type Items = { data: Record<string, unknown>[] };

/**
 * Drives a harness through the session HTTP surface, as the bench does: a
 * native-tui one on a host, a full-server one (openai-agents) on a runner. It is strictly causal: every request follows the stream event it waits
 * for, and nothing polls while a turn's events flow.
 */
export class SessionDriver {
  readonly client: SessionClient;
  private sessionId: string | undefined;
  /** Set when the native terminal reports its policy hook disabled (fail-open). */
  policyHookDisabledReason: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly harness: HarnessProfile,
    readonly timings: DriverTimings = LIVE_TIMINGS,
    fetch?: FetchLike,
  ) {
    this.client = new SessionClient(baseUrl, fetch);
  }

  get session(): string {
    if (!this.sessionId) throw new ProvisioningError('no session yet: provision() first');
    return this.sessionId;
  }

  /** Brings up a session: bound to an online host with the native terminal ensured, or, for a full-server harness, to a runner. */
  async provision(): Promise<void> {
    await this.waitUntil(
      'the server to answer /health with 200',
      async () => (await this.client.call('GET', '/health').catch(() => ({ status: 0 }))).status === 200,
    );
    if (this.harness.integrationMode === 'sdk') return this.provisionOnRunner();
    const hostId = await this.waitUntil('a host to come online in /v1/hosts', async () => {
      const { hosts } = await this.client.ok<{ hosts: { host_id: string; status: string }[] }>('GET', '/v1/hosts');
      return hosts.find((h) => h.status === 'online')?.host_id;
    });
    const agentName = `${this.harness.id}-ui`;
    const agents = await this.client.ok<{ data: { id: string; name: string }[] }>('GET', '/v1/agents?limit=100');
    const agent = agents.data.find((a) => a.name === agentName);
    if (!agent) throw new ProvisioningError(`the server has no ${agentName} agent; is ${this.harness.id} configured on it?`);
    // A fixed folder name keeps recordings comparable; it becomes <tmp>/... in cassettes.
    const workspace = join(tmpdir(), 'tapedeck-bench', this.harness.id);
    await mkdir(workspace, { recursive: true });
    const created = await this.client.ok<{ id: string }>('POST', '/v1/sessions', { agent_id: agent.id, host_id: hostId, workspace });
    this.sessionId = created.id;
    const terminal = await this.client.ok<{ policy_hook_disabled_reason?: string }>(
      'POST',
      `/v1/sessions/${created.id}/resources/terminals`,
      {
        terminal: this.harness.id.replace(/-native$/, ''),
        session_key: 'main',
        ensure_native_terminal: true,
      },
    );
    this.policyHookDisabledReason = terminal.policy_hook_disabled_reason ?? undefined;
    // Lazy-chat vendors create their chat id on the first message: waiting here would deadlock.
    if (this.harness.lazyChat) return;
    await this.waitUntil('the native forwarder to wire up (external_session_id on the session)', async () => {
      const snap = await this.client.ok<{ external_session_id?: string | null }>('GET', `/v1/sessions/${created.id}`);
      return snap.external_session_id ?? undefined;
    });
  }

  /**
   * The bench's full-server topology: a runner online that runs the harness in
   * process, the bench agent registered as a bundle, a session bound to the runner.
   */
  private async provisionOnRunner(): Promise<void> {
    const harness = this.harness.id;
    const runnerId = await this.waitUntil(`a runner advertising ${harness} in /v1/runners`, async () => {
      const { data } = await this.client.ok<{ data: { runner_id: string; online?: boolean; harnesses?: string[] }[] }>(
        'GET',
        '/v1/runners',
      );
      return data.find((r) => r.online !== false && r.harnesses?.includes(harness))?.runner_id;
    });
    const config = benchAgentConfig(harness);
    const { body, contentType } = bundleUpload(agentBundle(config));
    const registered = await this.client.upload('/v1/sessions', body, contentType);
    // 409: registered by an earlier probe; the agent is found by name.
    if (registered.status !== 409 && (registered.status < 200 || registered.status >= 300))
      throw new ServerResponseError(registered.status, 'POST /v1/sessions (agent bundle)', JSON.stringify(registered.json));
    const listed = await this.client.ok<{ data: { agent_id?: string }[] }>(
      'GET',
      `/v1/sessions?agent_name=${encodeURIComponent(String(config.name))}&limit=1`,
    );
    const agentId = listed.data[0]?.agent_id;
    if (!agentId) throw new ProvisioningError(`the server lists no session of the ${String(config.name)} agent after registering it`);
    const created = await this.client.ok<{ id: string }>('POST', '/v1/sessions', { agent_id: agentId });
    this.sessionId = created.id;
    await this.client.ok('PATCH', `/v1/sessions/${created.id}`, { runner_id: runnerId });
  }

  private async waitUntil<T>(what: string, probe: () => Promise<T | undefined | false>): Promise<T> {
    const deadline = Date.now() + this.timings.provisionMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
      if (Date.now() > deadline) throw new ProvisioningError(`timed out after ${this.timings.provisionMs} ms waiting for ${what}`);
      await sleep(this.timings.pollMs);
    }
  }

  private async items(): Promise<Record<string, unknown>[]> {
    return (await this.client.ok<Items>('GET', `/v1/sessions/${this.session}/items?order=asc&limit=1000`)).data;
  }

  private async postMessage(prompt: string): Promise<void> {
    await this.client.ok('POST', `/v1/sessions/${this.session}/events`, {
      type: 'message',
      data: { role: 'user', content: [{ type: 'input_text', text: prompt }] },
    });
  }

  /**
   * Waits for the turn's end: the vendor's `session.status idle` after an output
   * item, then quiet; idle flaps before any output do not count (mid-turn lulls).
   */
  private async awaitTurnEnd(reader: StreamReader, from: number): Promise<boolean> {
    let cursor = from;
    let sawOutput = false;
    const deadline = Date.now() + this.timings.turnMs;
    for (;;) {
      const event = await reader.waitFor(() => true, Math.max(1, deadline - Date.now()), cursor);
      if (!event) return false;
      cursor = reader.events.indexOf(event, cursor) + 1;
      // After an interrupt the vendor's final idle still ends the turn; reading on keeps recordings deterministic.
      if (event.type === OUTPUT_DONE || event.type === 'session.interrupted') sawOutput = true;
      // The real server reports a turn that could not run as `session.status failed` (with the error), never idle.
      if (event.type === 'response.failed' || (event.type === 'session.status' && event.data.status === 'failed')) return true;
      if (event.type === 'session.status' && event.data.status === 'idle' && sawOutput) {
        await reader.settle(this.timings.settleMs);
        if (reader.events.slice(cursor).some((e) => e.type === OUTPUT_DONE)) continue;
        return true;
      }
    }
  }

  /** One turn: baseline, subscribe, post, read to the end, then read the reply from items. */
  async runTurn(
    prompt: string,
    hooks: {
      onEvent?: (e: StreamEvent, reader: StreamReader) => Promise<void> | void;
      /** An event that may come after the turn's end (a late policy_denied): keep reading for it this long. */
      linger?: { type: string; ms: number };
    } = {},
  ): Promise<TurnResult> {
    const result = emptyTurnResult();
    const baseline = await this.items();
    const reader = await openSessionStream(this.baseUrl, this.session, this.client.fetch, 10_000);
    const from = reader.events.length;
    try {
      await this.postMessage(prompt);
      if (hooks.onEvent) {
        const onEvent = hooks.onEvent;
        let cursor = from;
        const watch = async () => {
          for (;;) {
            const e = await reader.waitFor(() => true, this.timings.turnMs, cursor);
            if (!e) return;
            cursor = reader.events.indexOf(e, cursor) + 1;
            await onEvent(e, reader);
          }
        };
        void watch();
      }
      result.completed = await this.awaitTurnEnd(reader, from);
      result.timedOut = !result.completed;
      const linger = hooks.linger;
      if (linger && !reader.events.slice(from).some((e) => e.type === linger.type)) {
        await reader.waitFor((e) => e.type === linger.type, linger.ms, from);
      }
    } finally {
      reader.close();
    }
    const turnEvents = reader.events.slice(from);
    result.events = turnEvents.map((e) => e.type);
    result.textDeltaCount = turnEvents.filter((e) => e.type === 'response.output_text.delta' && e.data.delta !== '').length;
    result.cancelled = turnEvents.some((e) => e.type === 'session.interrupted');
    result.failed = turnEvents.some((e) => e.type === 'response.failed');
    // Native harnesses report a blocked call as response.policy_denied; the real full server (0.19.1) as the call's output.
    result.toolCallDenied = turnEvents.some((e) => e.type === 'response.policy_denied' || deniedToolOutput(e.data));
    result.elicitationRequested = turnEvents.some((e) => e.type === 'response.elicitation_request');
    if (reader.error) result.error = reader.error;
    const after = await this.items();
    const before = baseline.filter((i) => itemRole(i) === 'assistant').length;
    const assistants = after.filter((i) => itemRole(i) === 'assistant');
    if (assistants.length > before) result.text = assistantText(assistants[before] as Record<string, unknown>);
    result.toolCalls = functionCalls(after).slice(functionCalls(baseline).length);
    await this.fillCost(result);
    return result;
  }

  /**
   * Deletes the session with a stream open, and reads that stream to its end:
   * a clean close ends with `[DONE]`, which drift can then see disappear.
   */
  async teardown(): Promise<void> {
    if (!this.sessionId) return;
    // The real full server (0.19.1) keeps a deleted session's stream open with heartbeats: nothing ends to wait for.
    if (this.harness.integrationMode === 'sdk') {
      await this.client.call('DELETE', `/v1/sessions/${this.session}`);
      return;
    }
    const reader = await openSessionStream(this.baseUrl, this.session, this.client.fetch, 10_000);
    try {
      await this.client.call('DELETE', `/v1/sessions/${this.session}`);
      await reader.untilEnd(this.timings.teardownMs, DONE_GRACE_MS);
    } finally {
      reader.close();
    }
  }

  /** Reads cumulative usage off the session snapshot; absent usage stays null. */
  async fillCost(result: TurnResult): Promise<void> {
    const snap = await this.client.ok<{ last_total_tokens?: number | null; total_cost_usd?: number | null }>(
      'GET',
      `/v1/sessions/${this.session}`,
    );
    result.totalTokens = snap.last_total_tokens ?? null;
    result.totalCostUsd = snap.total_cost_usd ?? null;
  }

  /** Attaches a CEL policy that answers every tool call with `action`; returns its id. */
  async attachToolPolicy(action: 'deny' | 'allow' | 'ask'): Promise<string> {
    const verdict = action.toUpperCase();
    const reason = 'bench-native-tool-policy';
    const policy = await this.client.ok<{ id: string }>('POST', `/v1/sessions/${this.session}/policies`, {
      name: `bench_tool_${action}_${this.session.slice(0, 8)}`,
      type: 'python',
      handler: 'omnigent.policies.builtins.cel.cel_policy',
      factory_params: {
        expression: `event.type == "tool_call" ? {"result": "${verdict}", "reason": "${reason}"} : {"result": "ALLOW"}`,
        reason,
      },
    });
    return policy.id;
  }

  async deletePolicy(id: string): Promise<void> {
    await this.client.call('DELETE', `/v1/sessions/${this.session}/policies/${id}`);
  }

  async interrupt(): Promise<void> {
    await this.client.ok('POST', `/v1/sessions/${this.session}/events`, { type: 'interrupt' });
  }

  async approve(elicitationId: string): Promise<void> {
    await this.client.ok('POST', `/v1/sessions/${this.session}/events`, {
      type: 'approval',
      data: { elicitation_id: elicitationId, action: 'accept' },
    });
  }
}
