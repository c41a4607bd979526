import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { benchProxyUnderWrapper, runBench } from '../helpers/cli.js';
import { type SessionServer, startSessionServer } from './session-server.js';

/**
 * `bench fuzz --client`: clients no family knows, in Python (the standard library) and in shell (curl), recorded
 * through `npx bench proxy` against the session API, then run against legal variations of their own recordings
 * under the team's pack. The correct ones pass; one with a planted bug is caught, and its counterexample shrunk.
 */
const run = promisify(execFile);
const HERE = import.meta.dirname;
const PYTHON_CLIENT = join(HERE, 'clients', 'session_client_stdlib.py');
const CURL_CLIENT = join(HERE, 'clients', 'session-flow.sh');
const PACK = join(HERE, 'session-pack.yaml');

let server: SessionServer;
const recordings: Record<'python' | 'curl', string> = { python: '', curl: '' };
let saved: string;
const cleanups: (() => Promise<unknown>)[] = [];

async function record(command: string, args: string[]): Promise<string> {
  const proxy = await benchProxyUnderWrapper(server.url, 'flow.yaml', cleanups);
  await run(command, [...args, proxy.url]);
  process.kill(proxy.bench.wrapperPid, 'SIGTERM');
  await proxy.bench.ended;
  cleanups.push(() => rm(dirname(proxy.file), { recursive: true, force: true }));
  return dirname(proxy.file);
}

beforeAll(async () => {
  server = await startSessionServer();
  recordings.python = await record('python3', [PYTHON_CLIENT]);
  recordings.curl = await record('sh', [CURL_CLIENT]);
  saved = await mkdtemp(join(tmpdir(), 'tapedeck-fuzz-client-'));
  cleanups.push(() => rm(saved, { recursive: true, force: true }));
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await server?.stop();
});

const fuzz = (dir: string, client: string, runs: number, extra: string[] = []) =>
  runBench(['fuzz', '--cassettes', dir, '--pack', PACK, '--client', client, '--runs', String(runs), ...extra]);

describe('bench fuzz --client', () => {
  it('passes a correct Python client on 50 legal variations of its recording', async () => {
    const result = await fuzz(recordings.python, `python3 ${PYTHON_CLIENT} {url}`, 50);
    expect(result.stdout, result.stderr).toMatch(
      /^ok {3}.*flow\.yaml: 50 legal variations, the client passed each \(slowest run \d+\.\d s\)$/m,
    );
    expect(result.stdout).toMatch(/^1 recordings, 50 variations in [\d.]+ s: the client passed every one \(seed \d+\)$/m);
    expect(result.code).toBe(0);
  }, 180_000);

  it('passes a curl script on legal variations of its recording', async () => {
    const result = await fuzz(recordings.curl, `sh ${CURL_CLIENT} {url}`, 15, ['--jobs', '1']);
    expect(result.stdout, result.stderr).toMatch(/flow\.yaml: 15 legal variations, the client passed each/);
    expect(result.code).toBe(0);
  }, 180_000);

  it('catches a client that takes the first line for its ready event, shrunk to one variation and saved', async () => {
    const result = await fuzz(recordings.python, `python3 ${PYTHON_CLIENT} {url} --assume-first-is-ready`, 50, [
      '--save-counterexample',
      saved,
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^FAIL .*flow\.yaml: a legal variation broke the client$/m);
    // The bug shows one of two ways, by the variation the seed finds first: a first line that is not the event (a
    // comment, CRLF), or a first line that never ends for a reader that waits for LF (bare CR line endings).
    expect(result.stdout).toMatch(
      /error: the client exited with 1; it printed: .*(expected the ready event first, got|the stream never said ready)/,
    );
    // Shrunk to what it takes: one edit (a comment line first) or none (a line ending other than LF, or a cut line).
    const variation = result.stdout.slice(result.stdout.indexOf('variation:'));
    expect(variation.split('\n').filter((l) => /^\s+- (inserted|moved|dropped|removed|added|nulled)/.test(l)).length).toBeLessThanOrEqual(
      1,
    );
    const [file] = await readdir(saved);
    expect(file).toBe('flow.counterexample.yaml');
    expect((await loadCassette(join(saved, file as string))).meta.labels?.['fuzz-of']).toBe('flow');
  }, 180_000);

  it('refuses a command without {url} in one line', async () => {
    const result = await fuzz(recordings.python, 'python3 client.py', 5);
    expect(result.stderr).toBe(`bench: --client "python3 client.py" has no {url}: put {url} where the client takes the server's address\n`);
    expect(result.code).toBe(2);
  });
});
