// The echo agent as a tapedeck family: two probes, a contract pack, and the server itself as the simulator.
import { exactlyOne, type Pack, precedes, terminal } from 'tapedeck-bench/contracts';
import { defineFamily, TURN_MS, turnCeiling } from 'tapedeck-bench/families';
import {
  checkHealthRoute,
  findProbe,
  JsonClient,
  observeSafely,
  REPLAY_ORIGIN,
  reconcile,
  type StreamReader,
  type SuiteObservation,
  supported,
  throughDoor,
  unsupported,
} from 'tapedeck-bench/families/kit';
import { z } from 'zod';
import { startEchoAgent } from './server.mjs';

const SOURCE = 'examples/own-server/README.md';
const turn = { method: 'POST', path: /\/v1\/sessions\/[^/]+\/turns$/ };
const meta = (name: string, description: string) => ({ name, description, source: SOURCE, scope: 'turn' as const });

/** What the echo agent's session stream promises, turn by turn. */
export const echoStream: Pack = {
  name: 'echo-agent/stream',
  description: 'The echo agent session stream: a turn starts once, streams its deltas, and ends completed or cancelled.',
  turnStarts: [turn],
  routes: [/\/v1\/sessions\/[^/]+\/events$/],
  payloads: {
    'turn.started': z.object({ turn_id: z.string() }),
    'message.delta': z.object({ turn_id: z.string(), delta: z.string() }),
    'turn.completed': z.object({ turn_id: z.string(), text: z.string() }),
    'turn.cancelled': z.object({ turn_id: z.string() }),
  },
  rules: [
    exactlyOne(['turn.started'], meta('started-once', 'every turn starts exactly once')),
    precedes('turn.started', 'message.delta', meta('started-before-deltas', 'a delta comes after its turn started')),
    terminal(['turn.completed', 'turn.cancelled'], { trailers: [] }, meta('one-end-last', 'a turn ends completed or cancelled, last')),
  ],
};

/** One probe: a conversation with the server that ends in a verdict. */
interface EchoProbe {
  name: 'basic_turn' | 'cancel';
  priority: 'P0' | 'P1';
  run(client: JsonClient, turnMs: number): Promise<SuiteObservation>;
}

/** A session with its event stream open (subscribe first: the stream is live-only), then a turn posted. */
async function startTurn(client: JsonClient, prompt: string): Promise<{ events: StreamReader; path: string; turnId: string }> {
  const created = await client.call('POST', '/v1/sessions');
  const path = `/v1/sessions/${String(created.json.id)}`;
  const events = await client.stream('GET', `${path}/events`);
  const posted = await client.call('POST', `${path}/turns`, { prompt });
  return { events, path, turnId: String(posted.json.turn_id) };
}

const PROMPT = 'Say hello to tapedeck';
const LONG_PROMPT = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

const PROBES: readonly EchoProbe[] = [
  {
    name: 'basic_turn',
    priority: 'P0',
    async run(client, turnMs) {
      const { events } = await startTurn(client, PROMPT);
      const done = await events.waitFor((e) => e.type === 'turn.completed', turnMs);
      events.close();
      if (!done) return unsupported('no turn.completed: the turn never ended');
      return done.data.text === PROMPT ? supported('the prompt came back whole') : unsupported(`the reply was ${JSON.stringify(done.data.text)}`);
    },
  },
  {
    name: 'cancel',
    priority: 'P1',
    async run(client, turnMs) {
      const { events, path, turnId } = await startTurn(client, LONG_PROMPT);
      await events.waitFor((e) => e.type === 'turn.started', turnMs);
      const cancelled = await client.call('POST', `${path}/turns/${turnId}/cancel`);
      const ended = await events.waitFor((e) => e.type === 'turn.cancelled' || e.type === 'turn.completed', turnMs);
      events.close();
      if (cancelled.status !== 200) return unsupported(`cancel answered ${cancelled.status}`);
      return ended?.type === 'turn.cancelled' ? supported('turn.cancelled, and no turn.completed') : unsupported('the turn was not cancelled');
    },
  },
];

/** The echo agent: probes, pack, the server as its own simulator, and how a recorded probe replays. */
export const echoAgent = defineFamily<EchoProbe>({
  id: 'echo-agent',
  suite: 'echo-agent',
  summary: 'the echo agent of examples/own-server (a team server of its own)',
  help: { examples: ['bench record --target echo-agent', 'bench record --target echo-agent --server http://127.0.0.1:4555'] },
  folder: 'echo-agent',
  packs: [echoStream],
  probes: PROBES,
  checkServer: (url) => checkHealthRoute(url, { path: '/health', family: 'the echo agent', example: 'http://127.0.0.1:4555' }),
  simulator: {
    describe: (seed) => `embedded echo agent (seed ${seed})`,
    start: (o) => startEchoAgent({ port: o.port ?? 0, host: o.host ?? '127.0.0.1', latencyMs: o.latencyMs ?? 5 }),
  },
  plan: (context, selected) => ({
    folder: 'echo-agent',
    probes: selected,
    declare: () => ({ declared: 'SUPPORTED' }),
    observe: (probe, url) => observeSafely(() => probe.run(new JsonClient(url, {}), turnCeiling(context))),
  }),
  // Drift compares the order of each turn's events (turns start where the pack says), except what the server leaves
  // to chance: how many deltas a turn streams before the cancel reaches it depends on the server's pace.
  drift: { turnStarts: [turn], noise: () => ({ unordered: [], sometimes: [], unplaced: { cancel: ['message.delta'] } }) },
  replay: (recorded, door, pace = 'replay') =>
    throughDoor(door, async () => {
      const probe = findProbe(PROBES, recorded.probe, 'echo-agent');
      const client = new JsonClient(door.baseUrl ?? REPLAY_ORIGIN, {}, door.fetch);
      const { observed, reason } = await observeSafely(() => probe.run(client, TURN_MS[pace]));
      return { replayed: reconcile(observed, 'SUPPORTED'), reason };
    }),
});
