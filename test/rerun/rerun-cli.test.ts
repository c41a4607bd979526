import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cassette, loadCassette } from '../../src/cassette/index.js';
import { benchProxyUnderWrapper, runBench } from '../helpers/cli.js';
import { type SessionServer, startSessionServer } from './session-server.js';

/**
 * `bench rerun` and `bench drift --server` on a recording no family made: curl's session flow (a session, its SSE
 * stream open while a message is posted and polled, the stream closed, the session deleted), recorded through
 * `npx bench proxy` and sent again to the session API, as it is and as its next release.
 */
const run = promisify(execFile);
const FLOW = join(import.meta.dirname, 'clients', 'session-flow.sh');
const ROUNDS = 3;

let server: SessionServer;
let changed: SessionServer;
let baseline: string;
let work: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  [server, changed] = await Promise.all([startSessionServer(), startSessionServer(true)]);
  const proxy = await benchProxyUnderWrapper(server.url, 'flow.yaml', cleanups);
  await run('sh', [FLOW, proxy.url]);
  process.kill(proxy.bench.wrapperPid, 'SIGTERM');
  await proxy.bench.ended;
  baseline = dirname(proxy.file);
  work = await mkdtemp(join(tmpdir(), 'tapedeck-rerun-'));
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await Promise.all([server?.stop(), changed?.stop()]);
  for (const dir of [baseline, work]) if (dir) await rm(dir, { recursive: true, force: true });
});

const sessionIdOf = (c: Cassette) => {
  const body = c.interactions[0]?.response?.body;
  if (!body || !('json' in body)) throw new Error('the first answer has no JSON body');
  return (body.json as { id: string }).id;
};
const summary = (c: Cassette, id: string) =>
  c.interactions.map((i) => [
    i.request.method,
    i.request.path.replace(id, '{session}').replace(/msg_[0-9a-f]+/, '{message}'),
    i.response?.status,
    i.response?.stream?.events.length,
  ]);

describe('bench rerun', () => {
  it('sends the recorded requests again with the ids the server hands out now, and records the answers', async () => {
    const out = join(work, 'same');
    const result = await runBench(['rerun', baseline, '--server', server.url, '--out', out]);
    expect(result.stderr).toMatch(
      /^bench rerun .*flow\.yaml: 9 requests, 9 sent, \d+ issued values learned; poll GET \/sessions\/ses_[0-9a-f]+\/messages\/msg_[0-9a-f]+ sent \d+ times \(\d+ recorded, the change showed\)\n$/,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`wrote ${join(out, 'flow.yaml')}\n`);
    const [before, after] = [await loadCassette(join(baseline, 'flow.yaml')), await loadCassette(join(out, 'flow.yaml'))];
    // A new session: every later request names it, and the token it came with was sent (401 otherwise).
    expect(sessionIdOf(after)).not.toBe(sessionIdOf(before));
    // The same exchanges, statuses and stream lengths; the polls as many as the server took to complete the message.
    const isPoll = (row: unknown[]) => row[0] === 'GET' && row[3] === undefined;
    const [was, is] = [summary(before, sessionIdOf(before)), summary(after, sessionIdOf(after))];
    expect(is.filter((row) => !isPoll(row))).toEqual(was.filter((row) => !isPoll(row)));
    expect(is.filter(isPoll).length).toBeGreaterThan(1);
    expect(new Set(is.filter(isPoll).map((row) => row[2]))).toEqual(new Set([200]));
    // The stream overlaps the message and its polls again, as it did when curl read it.
    const [stream, post] = [after.interactions[1], after.interactions[2]];
    expect(stream?.timing.start).toBeLessThan(post?.timing.start ?? 0);
    expect(stream?.timing.end).toBeGreaterThan(after.interactions.at(-2)?.timing.start ?? Infinity);
  });

  it(`bench drift --server against the same release finds nothing, in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
    for (let n = 1; n <= ROUNDS; n++) {
      const result = await runBench(['drift', '--baseline', baseline, '--server', server.url]);
      expect(result.stdout, `round ${n}: ${result.stderr}`).toMatch(/: 0 breaking, 0 notable, 0 info \(1 probes compared in /);
      expect(result.code, `round ${n}`).toBe(0);
    }
  }, 60_000);

  it('bench drift --server against the next release names what changed', async () => {
    const result = await runBench(['drift', '--baseline', baseline, '--server', changed.url]);
    expect(result.stderr).toMatch(/^bench drift: re-running 1 recordings of /m);
    expect(result.stdout).toContain('[breaking] message.completed: event type message.completed disappeared');
    expect(result.stdout).toContain('[notable] message.finished: event type message.finished appeared');
    expect(result.stdout).toContain('[info] GET /sessions/{id}/messages/{id}: field usage added');
    expect(result.code).toBe(1);
  }, 60_000);

  it('refuses bad input in one line, writing nothing', async () => {
    const out = join(work, 'bad');
    const cases: [string[], RegExp][] = [
      [
        ['rerun', join(work, 'nothing-here'), '--server', server.url, '--out', out],
        /^bench: .*nothing-here: no such file or folder; give a cassette or a folder of them\n$/,
      ],
      [
        ['rerun', baseline, '--server', server.url, '--out', baseline],
        /^bench: --out .* is where the recordings are; give another folder\n$/,
      ],
      [
        ['rerun', baseline, '--server', server.url, '--out', out, '--header', 'Authorization: Bearer $TAPEDECK_UNSET_KEY'],
        /^bench: --header Authorization: \$TAPEDECK_UNSET_KEY is not set in the environment; export it, or give the value itself\n$/,
      ],
      [
        ['rerun', baseline, '--server', server.url, '--out', out, '--header', 'no colon'],
        /^bench: --header "no colon" needs the form 'Name: value'/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runBench(args);
      expect(result.stderr).toMatch(message);
      expect(result.code).toBe(2);
    }
    await expect(loadCassette(join(out, 'flow.yaml'))).rejects.toThrow();
  });
});
