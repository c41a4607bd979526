import type { Pack } from '../../contracts/index.js';
import { eventually, exactlyOne, firstEvent, framing, never, precedes, terminal } from '../../contracts/index.js';
import { omnigentPayloads } from './payloads.js';

const REF = 'omnigent-session-api.md §6';
const turnStarts = [{ method: 'POST', path: /\/v1\/sessions\/[^/]+\/events$/, bodyType: 'message' }];

// The real server (0.19.1) resolves one elicitation twice (the route's resolution, then its mirror): resolved, not once.
const elicitationResolved = eventually(
  'response.elicitation_resolved',
  { after: 'response.elicitation_request' },
  { name: 'elicitation-resolved', description: 'every elicitation request is resolved', source: `${REF} I24` },
);

/** Framing and connection rules shared by every transport of the session stream. */
export const omnigentStream: Pack = {
  name: 'omnigent/stream',
  description: 'The session SSE stream on every transport: framing, connect preamble, clean close.',
  turnStarts,
  payloads: omnigentPayloads,
  optional: ['session.heartbeat'],
  rules: [
    framing(['id', 'retry', 'comment'], {
      name: 'event-and-data-only',
      description: 'frames carry event: and data: only; no id:, retry: or comments',
      source: `${REF} I1`,
    }),
    firstEvent('session.heartbeat', {
      name: 'heartbeat-first',
      description: 'each connection opens with session.heartbeat',
      source: `${REF} I2`,
    }),
    never(
      '*',
      { after: '[DONE]' },
      { name: 'done-is-last', description: 'nothing follows the bare [DONE] of a normal close', source: `${REF} I5`, scope: 'stream' },
    ),
    // Both transports end a turn the same way: the native-tui vendor status and the full server's runner status alike.
    eventually(
      'session.status[status=idle]',
      { after: 'response.completed' },
      {
        name: 'idle-after-completed',
        description: 'a completed turn ends with session.status idle after its response.completed',
        source: `${REF} I10, I14`,
      },
    ),
    eventually(
      'session.status[status=idle]',
      { after: 'response.output_item.done' },
      {
        name: 'idle-after-last-output',
        description: 'the idle that ends a turn comes after its last output item, on either transport',
        source: `${REF} I14, I26`,
      },
    ),
  ],
};

/** Native-tui harnesses (claude, codex, kiro, cursor, qwen, ...): executor events first, vendor output after. */
export const omnigentNativeTui: Pack = {
  name: 'omnigent/native-tui',
  description:
    'Native-tui turns: the executor answers in_progress/completed before any vendor output; output ends with output_item.done; policy_denied may trail it.',
  turnStarts,
  payloads: omnigentPayloads,
  // I26: status flaps and activity pings come any time; I15/I16: deltas may be suppressed, a short reply sent whole.
  optional: ['session.status', 'session.terminal.activity', 'response.output_text.delta'],
  rules: [
    exactlyOne(['response.in_progress'], {
      name: 'one-in-progress',
      description: 'each turn has exactly one response.in_progress',
      source: `${REF} I13`,
    }),
    precedes('response.in_progress', 'response.completed', {
      name: 'completed-after-in-progress',
      description: 'response.completed follows response.in_progress',
      source: `${REF} I13`,
    }),
    precedes('response.completed', 'response.output_text.delta', {
      name: 'deltas-after-completed',
      description: 'on native-tui, text deltas come after response.completed',
      source: `${REF} I13`,
    }),
    precedes('response.completed', 'response.output_item.done', {
      name: 'output-after-completed',
      description: 'on native-tui, response.output_item.done comes after response.completed',
      source: `${REF} I13`,
    }),
    never(
      'response.in_progress',
      { after: 'response.completed' },
      { name: 'no-restart', description: 'a turn does not start again after its response.completed', source: `${REF} I13` },
    ),
    eventually(
      'session.status[status=idle]',
      { after: 'response.in_progress' },
      { name: 'ends-idle', description: 'the vendor-side session.status idle ends every turn', source: `${REF} I14` },
    ),
    eventually(
      'session.status[status=idle]',
      { after: 'response.output_item.done' },
      {
        name: 'idle-after-output',
        description: 'the authoritative end is an idle after the last output item, however often status flaps before it',
        source: `${REF} I14, I26`,
      },
    ),
    eventually(
      'session.status[status=idle]',
      { after: 'session.interrupted' },
      {
        name: 'idle-after-interrupt',
        description: 'session.interrupted is published before the harness reacts, so its idle comes after it',
        source: `${REF} I14, I20`,
      },
    ),
    precedes('session.input.consumed', 'response.output_item.done', {
      name: 'input-before-output',
      description: 'the mirrored user input is consumed before any output item',
      source: `${REF} I18`,
    }),
    // The real codex-native turn (0.19.1) sends a tool-call deny before any output item (the blocked call never becomes
    // one), and the bench reads on after output_item.done for one that comes later (I19): what holds is that the turn's
    // input was consumed first.
    precedes('session.input.consumed', 'response.policy_denied', {
      name: 'denied-after-input',
      description: "response.policy_denied comes after the turn's input is consumed, before or after its output items",
      source: `${REF} I18, I19`,
    }),
    // The route's session.interrupted comes before the harness reacts (I20): the real codex-native turn (0.19.1) still
    // relays a delta in flight after it. Quiet begins at the harness's own, which names its response.
    never(
      'response.output_text.delta',
      { after: 'session.interrupted[data.response_id]' },
      {
        name: 'quiet-after-interrupt',
        description: "no text deltas after the harness's session.interrupted (the one naming its response)",
        source: `${REF} I20, I21`,
      },
    ),
    elicitationResolved,
  ],
};

/** Full-server (SDK) turns relayed by the runner. */
export const omnigentFullServer: Pack = {
  name: 'omnigent/full-server',
  profile: true,
  description: 'Full-server turns: live streams start at response.in_progress; usage before completed; one terminal; status after it.',
  turnStarts,
  payloads: omnigentPayloads,
  rules: [
    never(
      'response.created',
      { after: 'response.in_progress' },
      { name: 'no-live-created', description: 'response.created is never relayed live (only in reconnect replay)', source: `${REF} I7` },
    ),
    precedes('response.in_progress', 'response.output_text.delta', {
      name: 'deltas-after-in-progress',
      description: 'text deltas follow response.in_progress',
      source: `${REF} I7`,
    }),
    terminal(
      ['response.completed', 'response.cancelled', 'response.failed'],
      { trailers: ['session.status', 'session.input.consumed', 'response.output_item.done', '[DONE]'] },
      {
        name: 'one-terminal',
        description: 'one terminal response event per turn; afterwards only status, consumed markers and persisted outputs',
        source: `${REF} I10, I22`,
      },
    ),
    never(
      'session.usage',
      { after: 'response.completed' },
      { name: 'usage-before-completed', description: 'session.usage precedes response.completed', source: `${REF} I10` },
    ),
    never(
      'response.incomplete',
      { after: 'session.interrupted' },
      {
        name: 'cancelled-not-incomplete',
        description: 'an interrupt terminates with response.cancelled, never response.incomplete',
        source: `${REF} I22`,
      },
    ),
    elicitationResolved,
  ],
};
