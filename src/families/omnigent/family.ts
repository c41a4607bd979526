import { UsageError } from '../../errors.js';
import { reconcile, type Verdict } from '../../manifest/index.js';
import { type DriftNoise, defineFamily, type Pace, simulatorBasics, turnCeiling } from '../family.js';
import { checkHealthRoute, findProbe, observeSafely, REPLAY_ORIGIN, throughDoor } from '../kit/index.js';
import type { DriverTimings, SessionDriver } from './driver.js';
import { FULL_SERVER_HARNESSES, findHarness, type HarnessProfile, recordableHarnessIds } from './harnesses.js';
import { OMNIGENT_MOCK_RULES } from './mock-model.js';
import { omnigentFullServer, omnigentNativeTui, omnigentStream } from './packs.js';
import { omnigentNativePeer, omnigentPeer } from './peer.js';
import { PROBES, type Probe } from './probes.js';
import type { OmnigentSimulatorOptions } from './simulator/index.js';

/** Driver timings against the embedded simulator: it never needs the live ceilings. */
export const SIMULATOR_TIMINGS: DriverTimings = {
  provisionMs: 5000,
  turnMs: 30_000,
  settleMs: 40,
  denyObserveMs: 1000,
  approvalRetryMs: 2000,
  interruptHoldMs: 150,
  pollMs: 20,
  teardownMs: 5000,
};
/** Driver timings against a replay: events are released as soon as they are due, so nothing needs long waits. */
export const REPLAY_TIMINGS: DriverTimings = {
  provisionMs: 2000,
  turnMs: 10_000,
  settleMs: 1,
  // A late policy_denied is released with the events of its cause: a replay has nothing to wait for (fuzzing reads 100 ms too).
  denyObserveMs: 100,
  // An approval's effects are released with it; a replayed retry follows the recorded one's quiet.
  approvalRetryMs: 1000,
  interruptHoldMs: 1,
  pollMs: 5,
  // A replayed `[DONE]` is due the moment the DELETE is answered; a real recording has none to wait for.
  teardownMs: 50,
};
/** Driver timings for fuzzing: a turn that takes longer than this is stuck on the variation, and shrinking replays it many times. */
export const FUZZ_TIMINGS: DriverTimings = { ...REPLAY_TIMINGS, turnMs: 2000 };
/** The driver and its timings at a pace, loaded when a probe runs: reading the registry (every command's start) costs none of it. */
async function driverAt(pace: Pace) {
  const { LIVE_TIMINGS, SessionDriver } = await import('./driver.js');
  const timings: Record<Pace, DriverTimings> = {
    simulated: SIMULATOR_TIMINGS,
    live: LIVE_TIMINGS,
    replay: REPLAY_TIMINGS,
    fuzz: FUZZ_TIMINGS,
  };
  return { SessionDriver, timings: timings[pace] };
}

/** What a session stream sends as a client connects, before or inside a turn as the race goes. */
const CONNECT_PREAMBLE = ['session.changed_files.invalidated', 'session.presence'];
/** What the codex TUI reports as it comes up under omnigent's host daemon. */
const TUI_STARTUP = ['session.model', 'session.model_options', 'session.mcp_startup', 'session.codex_approval_mode'];

/** Packs that apply to native-tui recordings (checked by `bench verify`). */
export const NATIVE_TUI_PACKS = [omnigentStream, omnigentNativeTui];
/** A full-server harness streams in the server's own order (output items before `response.completed`): the native-tui pack does not apply. */
export const FULL_SERVER_PACKS = [omnigentStream];

/** Validates a harness id for recording: known, native-tui, and safe as a folder name. */
export function recordableHarness(id: string): HarnessProfile {
  const harness = findHarness(id);
  if (!harness || !/^[a-z0-9][a-z0-9-]*$/.test(id)) {
    throw new UsageError(
      `unknown harness ${JSON.stringify(id)}; bench record drives the native-tui harnesses and, on omnigent's full server, ${FULL_SERVER_HARNESSES.join(', ')}: ${recordableHarnessIds().join(', ')}`,
    );
  }
  if (harness.integrationMode !== 'native-tui' && !FULL_SERVER_HARNESSES.includes(id)) {
    throw new UsageError(
      `${id} is a ${harness.integrationMode} harness; bench record drives the native-tui harnesses and, on omnigent's full server, ${FULL_SERVER_HARNESSES.join(', ')}: ${recordableHarnessIds().join(', ')}`,
    );
  }
  return harness;
}

/**
 * Provisions a session and runs one probe. Infrastructure trouble (HTTP errors,
 * provisioning timeouts) is SKIPPED with the reason, never a capability verdict.
 */
export function observeProbe(probe: Probe, driver: SessionDriver): Promise<{ observed: Verdict; reason: string }> {
  return observeSafely(async () => {
    await driver.provision();
    const observation = await probe.run(driver, probe.declare(driver.harness).declared);
    // Cleaning up is not part of the verdict: a server that refuses deletion still gets its verdict.
    await driver.teardown().catch(() => {});
    // What a timed-out turn left behind may still look right; a turn that never ended is not support.
    if (observation.turn?.timedOut && observation.observed === 'SUPPORTED')
      return {
        observed: 'PARTIAL',
        note: `${observation.note}, but the turn timed out: no session.status idle within ${driver.timings.turnMs / 1000} s`,
      };
    return observation;
  });
}

/** The omnigent session API bench: native-tui harnesses, one folder each, the bench's eight probes. */
export const omnigentFamily = defineFamily<Probe>({
  id: 'omnigent',
  suite: 'native-tui',
  summary: 'the omnigent session API bench (native-tui harnesses; needs --harness)',
  help: {
    details: `The bench's eight probes (basic turn, streaming, tool calling, policy
deny/allow/ask, cost, interrupt), one --harness at a time, into
<out>/<harness>/. A live --server needs its host daemon and the vendor CLI
logged in. --peer runs the omnigent full server with a runner for --harness
openai-agents, or with its host daemon and the codex TUI in tmux for --harness
codex-native (codex from $OMNIGENT_CODEX_PATH or PATH); give the entry point of
its environment. Its cassettes go to <out>/<harness>-real/.`,
    examples: [
      'bench record --harness kiro-native',
      'bench record --harness claude-native --server http://127.0.0.1:6767 --probes basic_turn,streaming',
      'bench record --harness openai-agents --peer test/peers/python/omnigent/.venv/bin/omnigent',
      'bench record --harness codex-native --peer test/peers/python/omnigent/.venv/bin/omnigent',
    ],
  },
  folder: 'omnigent',
  packs: [omnigentStream, omnigentNativeTui, omnigentFullServer],
  mockModel: OMNIGENT_MOCK_RULES,
  probes: PROBES,
  variants: { flag: 'harness', ids: recordableHarnessIds(), check: (id) => void recordableHarness(id) },
  checkServer: (url) =>
    checkHealthRoute(url, { path: '/health', family: 'an omnigent server (the session API)', example: 'http://127.0.0.1:6767' }),
  simulator: {
    describe: (seed) => `embedded omnigent simulator (seed ${seed})`,
    mutations:
      'rename-event:FROM=TO, drop-field:TYPE.FIELD, retype-field:TYPE.FIELD, swap-events:A,B, add-event:TYPE, status:METHOD /route/{id}=CODE, no-sentinel, duplicate-event:TYPE, enum-value:TYPE:FIELD=FROM>TO, drop-field-when:TYPE:FIELD@KEY=VALUE, drop-event-in:TYPE@KIND, null-field:METHOD /route:FIELD, empty-body:METHOD /route, open-after-done, stall-turns',
    start: async (o) =>
      (await import('./simulator/index.js')).startOmnigentSimulator({
        ...(o.extra as OmnigentSimulatorOptions | undefined),
        ...simulatorBasics(o),
        ...(o.mutate ? { mutate: o.mutate } : {}),
      }),
  },
  plan: (context, selected) => {
    const harness = recordableHarness(context.variant as string);
    if (harness.integrationMode !== 'native-tui' && context.pace === 'simulated')
      throw new UsageError(
        `${harness.id} runs in a runner of omnigent's full server, which the embedded simulator does not model; record it with --peer <venv>/bin/omnigent or --server URL`,
      );
    return {
      folder: harness.id,
      probes: selected,
      packs: harness.integrationMode === 'native-tui' ? NATIVE_TUI_PACKS : FULL_SERVER_PACKS,
      gate: 'basic_turn',
      declare: (probe) => probe.declare(harness),
      observe: async (probe, url) => {
        const { SessionDriver, timings } = await driverAt(context.pace);
        return observeProbe(probe, new SessionDriver(url, harness, { ...timings, turnMs: turnCeiling(context, timings.turnMs) }));
      },
    };
  },
  replay: async (recorded, door, pace = 'replay') => {
    const harness = recordableHarness(recorded.harness);
    const probe = findProbe(PROBES, recorded.probe, 'omnigent');
    return throughDoor(door, async () => {
      const { SessionDriver, timings } = await driverAt(pace);
      const driver = new SessionDriver(door.baseUrl ?? REPLAY_ORIGIN, harness, timings, door.fetch);
      const { observed, reason } = await observeProbe(probe, driver);
      return { replayed: reconcile(observed, probe.declare(harness).declared), reason };
    });
  },
  peer: omnigentPeer,
  // The only native-tui vendor CLI the machines have is codex; any other native harness has no real host to run on here.
  peerOf: (harness) => (harness === 'codex-native' ? omnigentNativePeer : undefined),
  drift: { turnStarts: omnigentNativeTui.turnStarts, noise: driftNoise },
});

/** What the real server leaves to chance, per harness; a simulator's recordings have none. */
function driftNoise(harness: string, { fromSimulator }: { fromSimulator: boolean }): DriftNoise | undefined {
  const mode = findHarness(harness)?.integrationMode;
  if (mode === 'sdk')
    return {
      // The full server's runner reports `running` and the server reports the consumed input on their own clocks (seen both ways in 0.19.1).
      unordered: [['session.status', 'session.input.consumed']],
      // After an interrupt it finishes the cancelled response (output item, response.cancelled) in some runs only.
      sometimes: ['response.cancelled'],
      // The route echoes every approval: one the runner dropped (see approveUntilTaken) and its retry add an echo in the row.
      runs: ['response.elicitation_resolved'],
      // The stream's connect preamble (and a reconnect's) lands before the turn's request or inside it, as the race goes;
      // the cancelled response's output item comes in some runs only; and the interrupt goes a fixed hold after
      // response.in_progress, so how many deltas the server streams before it is a race with the server's pace
      // (none at all on a slower machine: seen with the same pinned server and model).
      unplaced: Object.fromEntries(
        PROBES.map((p) => [
          p.name,
          [...CONNECT_PREAMBLE, ...(p.name === 'interrupt' ? ['response.output_item.done', 'response.output_text.delta'] : [])],
        ]),
      ),
    };
  if (mode === 'native-tui' && !fromSimulator)
    return {
      unordered: [],
      // What the TUI reports as it comes up may go out before the stream is connected, and is then not seen at all.
      sometimes: TUI_STARTUP,
      // An approval sent again after a quiet spell is echoed again, in the same row.
      runs: ['response.elicitation_resolved'],
      // The real server (0.19.1) on the native path: the connect preamble as above, and what the TUI reports as it comes
      // up (its model, model options, MCP start-up, approval mode), whenever the TUI gets there; seen in and out of the turn.
      unplaced: Object.fromEntries(PROBES.map((p) => [p.name, [...CONNECT_PREAMBLE, 'session.resource.created', ...TUI_STARTUP]])),
      // The MCP server's start-up is reported as it goes: a stream that connects early catches `starting`, a later one
      // `ready`; and the entry is only there when codex's own status reached the forwarder before the round settled
      // (codex sends it to the thread's owning connection alone; the settle drops what is still starting). 0.19.1
      // gave `servers: {}` in 2 and 3 of 8 probes of two recordings, 0.18.0 in 8 of 8 twice, with that code unchanged.
      racedFields: { 'session.mcp_startup': ['servers.omnigent'] },
    };
  return undefined;
}
