import { createServer } from 'node:http';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';
import { findHarness, HARNESS_PROFILES, type HarnessProfile } from '../harnesses.js';
import { parseMutation, StreamMutator } from './mutations.js';
import { route, type SimulatorContext } from './routes.js';

export interface OmnigentSimulatorOptions {
  port?: number;
  host?: string;
  /** Seed for ids; the same seed and requests give the same ids. */
  seed?: number;
  /** Milliseconds between consecutive stream events of a turn (default 2). */
  latencyMs?: number;
  /** Behaviour overrides per harness id, e.g. a harness that does not stream after all. */
  behaviour?: Record<string, Partial<HarnessProfile>>;
  /** Harnesses whose terminal reports its policy hook disabled, with the reason. */
  policyHookDisabled?: Record<string, string>;
  /** Server changes to emulate, as `--mutate` specs (see `parseMutation`). */
  mutate?: readonly string[];
  /**
   * Milliseconds between publishing an elicitation and parking on it (default 0: parked first). An approval in
   * between is acknowledged and echoed but lost, as the real full server (0.19.1) loses one its runner has not parked on.
   */
  parkAfterAskMs?: number;
}

export interface OmnigentSimulator {
  readonly url: string;
  readonly port: number;
  /** Ends every open stream with `[DONE]`, waits for running turns, and stops. */
  close(): Promise<void>;
}

/** Starts the omnigent session API simulator on loopback. */
export async function startOmnigentSimulator(options: OmnigentSimulatorOptions = {}): Promise<OmnigentSimulator> {
  const ids = new SeededIds(options.seed ?? 1);
  const behaviour = new Map(HARNESS_PROFILES.map((h) => [h.id, { ...h, ...(options.behaviour?.[h.id] ?? {}) }]));
  for (const id of Object.keys(options.behaviour ?? {})) {
    if (!findHarness(id)) throw new TypeError(`unknown harness ${id} in simulator behaviour`);
  }
  const ctx: SimulatorContext = {
    ids,
    stepMs: options.latencyMs ?? 2,
    hostId: ids.hex(),
    behaviour,
    policyHookDisabled: new Map(Object.entries(options.policyHookDisabled ?? {})),
    sessions: new Map(),
    turns: new Set(),
    mutator: new StreamMutator((options.mutate ?? []).map(parseMutation)),
    parkAfterAskMs: options.parkAfterAskMs ?? 0,
  };
  const server = createServer((req, res) => {
    // No Date header: recordings of the same seed stay byte-identical but for timing.
    res.sendDate = false;
    route(ctx, req, res).catch(() => res.destroy());
  });
  const { port, url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url,
    port,
    async close() {
      for (const session of ctx.sessions.values()) {
        if (session.turn) {
          session.turn.interrupted = true;
          session.turn.wake();
        }
      }
      await Promise.allSettled([...ctx.turns]);
      for (const session of ctx.sessions.values()) session.stream.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
