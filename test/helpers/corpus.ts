import { copyFile, mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { expect } from 'vitest';
import { benchReplayOf } from './cli.js';

/**
 * Recordings of other clients' traffic against real servers (omnigent's own transports, the MCP SDK client, the
 * openai SDK), made by `bench proxy` in `npm run test:peers` and kept as product: the fast tier verifies them, the
 * peers tier replays them to their clients. `TAPEDECK_WRITE_CORPUS=1 npm run test:peers` records them again.
 */
export const CORPUS = new URL('../../cassettes/clients/', import.meta.url).pathname;

/** Keeps a fresh recording in the corpus when asked to (`TAPEDECK_WRITE_CORPUS=1`); otherwise leaves the corpus alone. */
export async function keepInCorpus(file: string, name: string): Promise<void> {
  if (process.env.TAPEDECK_WRITE_CORPUS !== '1') return;
  await mkdir(CORPUS, { recursive: true });
  await copyFile(file, join(CORPUS, name));
}

/** A busy loop on every core but one, as a loaded CI machine has: stopped by the returned function. */
export function busyCores(): () => Promise<void> {
  const spin =
    'const { parentPort } = require("node:worker_threads"); let stop = false; parentPort.on("message", () => { stop = true; }); (function loop() { const end = Date.now() + 50; while (Date.now() < end); if (!stop) setImmediate(loop); })();';
  const workers = Array.from({ length: Math.max(1, availableParallelism()) }, () => new Worker(spin, { eval: true }));
  return async () => {
    for (const w of workers) w.postMessage('stop');
    await Promise.all(workers.map((w) => w.terminate()));
  };
}

/**
 * The committed corpus recording `name`, replayed by `bench replay` instant and realtime (and realtime again with
 * every core busy), gives its client what the client saw live.
 */
export async function replaysAsLive(
  name: string,
  flow: (url: string) => Promise<unknown>,
  live: unknown,
  cleanups: (() => Promise<unknown>)[],
): Promise<void> {
  const file = join(CORPUS, name);
  for (const [timing, loaded] of [
    ['instant', false],
    ['realtime', false],
    ['realtime', true],
  ] as const) {
    const replay = await benchReplayOf(file, cleanups, ['--timing', timing]);
    const release = loaded ? busyCores() : undefined;
    try {
      expect(await flow(replay.url), `${name} from bench replay --timing ${timing}${loaded ? ', every core busy' : ''}`).toEqual(live);
    } finally {
      await release?.();
      replay.child.kill('SIGTERM');
      await replay.exit();
    }
  }
}
