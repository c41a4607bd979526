import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { serializeCassette } from '../../src/cassette/index.js';
import { jsonGet } from '../helpers/cassettes.js';
import { BENCH_BIN } from '../helpers/cli.js';
import { sleep } from '../helpers/servers.js';

const run = promisify(execFile);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const cassette = jsonGet('/hello', { hello: 'world' });

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let waited = 0; !ok(); waited += 50) {
    if (waited > 30_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('bench replay in the background', () => {
  it('outlives the shell that started it, serves 100 requests from another process, and stops by its --pid-file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-background-'));
    const file = join(dir, 'c.yaml');
    await writeFile(file, serializeCassette(cassette));
    const [pidFile, readyFile] = [join(dir, 'replay.pid'), join(dir, 'replay.url')];
    // The commonest CI pattern: start the mock in the background, and the script that did it goes on (here: ends).
    const script = `"${process.execPath}" "${BENCH_BIN}" replay --cassette c.yaml --port 0 --pid-file replay.pid --ready-file replay.url >out 2>err &`;
    const shell = spawn('sh', ['-c', script], { cwd: dir, stdio: 'ignore' });
    await new Promise((done) => shell.on('exit', done));
    await until('the ready file', () => existsSync(readyFile));
    const pid = Number(await readFile(pidFile, 'utf8'));
    cleanups.push(() => {
      if (existsSync(`/proc/${pid}`)) process.kill(pid, 'SIGKILL');
    });
    const url = (await readFile(readyFile, 'utf8')).trim();
    // Well past the moment a parent's exit would have stopped it.
    await sleep(500);
    const health = await run('curl', ['-sS', `${url}/__tapedeck/health`]);
    expect(JSON.parse(health.stdout)).toMatchObject({ status: 'ok' });
    const many = await run(process.execPath, [
      '--input-type=module',
      '-e',
      `let ok = 0; for (let i = 0; i < 100; i++) { const r = await fetch(process.argv[1] + '/hello'); if ((await r.json()).hello === 'world') ok++; } console.log(ok);`,
      url,
    ]);
    expect(many.stdout.trim()).toBe('100');
    process.kill(pid, 'SIGTERM');
    // Its parent was the shell, long gone: init reaps it, and its /proc entry goes.
    await until('bench replay to exit', () => !existsSync(`/proc/${pid}`));
    expect(existsSync(pidFile)).toBe(false);
    expect(existsSync(readyFile)).toBe(false);
    await expect(fetch(`${url}/hello`)).rejects.toThrow();
  }, 60_000);
});
