import { createHook } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal, startRecordingProxy } from '../../src/recorder/index.js';
import { wakeAfter } from '../../src/recorder/wake-up.js';
import { startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const run = promisify(execFile);
const WAKE_UP = fileURLToPath(new URL('../../dist/recorder/wake-up.js', import.meta.url));

/** Runs a module script in a fresh node process; resolves to what it printed once it exited by itself. */
async function script(source: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', source], { timeout: 20_000 });
  return stdout;
}

describe('wake-ups timed on a helper thread', () => {
  it('runs a job once its time has passed, in order of time, and never one that was cancelled', async () => {
    const ran: string[] = [];
    const done = new Promise<void>((resolve) => {
      wakeAfter(150, () => {
        ran.push('late');
        resolve();
      });
    });
    const cancel = wakeAfter(30, () => ran.push('cancelled'));
    wakeAfter(50, () => ran.push('early'));
    cancel();
    await done;
    expect(ran).toEqual(['early', 'late']);
  });

  it('holds the process open while a wake-up is pending, and not a moment once none is', async () => {
    // A job pending on the helper thread is the only thing left: the process waits for it, then exits by itself.
    const pending = await script(`
      const { wakeAfter } = await import(${JSON.stringify(WAKE_UP)});
      const t = performance.now();
      wakeAfter(300, () => console.log('ran after', performance.now() - t >= 250));
    `);
    expect(pending.trim()).toBe('ran after true');
    // The thread started and a wake-up cancelled: nothing holds the process (a recorder with no traffic must exit).
    const idle = await script(`
      const { prepareWakeUps, wakeAfter } = await import(${JSON.stringify(WAKE_UP)});
      await prepareWakeUps();
      wakeAfter(60_000, () => console.log('must not run'))();
      console.log('idle');
    `);
    expect(idle.trim()).toBe('idle');
  }, 45_000);

  it('streams through the journaled recording proxy with no timer armed on the main thread, and records every event', async () => {
    const EVENTS = 120;
    const upstream = await startServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      for (let k = 0; k < EVENTS; k++) {
        res.write(`event: delta\ndata: {"k":${k}}\n\n`);
        // Paced by the helper thread too, so every timer armed on this thread is the recorder's.
        await new Promise<void>((resolve) => wakeAfter(5, resolve));
      }
      res.end();
    });
    cleanups.push(() => upstream.close());
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-wake-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const journal = join(dir, 'c.yaml.journal');
    const proxy = await startRecordingProxy({ target: upstream.url, journal: { file: journal } });
    cleanups.push(() => proxy.stop());

    let timers = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'Timeout') timers++;
      },
    });
    const body = await new Promise<string>((resolve, reject) => {
      get(`${proxy.url}/stream`, (res) => {
        let text = '';
        res.setEncoding('utf8');
        // Counted from the response head on: the stream is flowing, the journal and the parse at work.
        hook.enable();
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve(text));
        res.on('error', reject);
      }).on('error', reject);
    });
    hook.disable();

    expect(body.match(/^event: delta$/gm)).toHaveLength(EVENTS);
    // With a main-thread timer for each 20 ms batch, the recorder armed about 30 over this ~0.7 s stream; a few are the libraries'.
    expect(timers).toBeLessThan(10);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream?.events.map((e) => e.data)).toEqual(
      Array.from({ length: EVENTS }, (_, k) => `{"k":${k}}`),
    );
    const recovered = await readJournal(journal);
    expect(recovered.cassette.interactions[0]?.response?.stream?.events).toHaveLength(EVENTS);
  }, 30_000);
});
