import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, makeRedactor, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteHandlers, startReplayServer } from '../../src/replayer/index.js';
import { SseParser } from '../../src/sse/index.js';
import { benchReplayOf } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const run = promisify(execFile);

/**
 * A value the client picks and the server gives back (an idempotency token, MCP's progress token): where the
 * recording redacted it, a replay answers with the live request's value, as the server would have (decision 0016).
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A job API: the job's answer and each progress event carry the client's token back; `progressToken` is MCP's. */
async function echoingServer() {
  const server = await startServer(async (req, res) => {
    const asked = JSON.parse((await readBody(req)).toString() || '{}') as Record<string, unknown>;
    if (req.url === '/v1/jobs') {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'job_1', client_token: asked.client_token, status: 'queued' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const token = (asked.params as { _meta?: { progressToken?: unknown } })?._meta?.progressToken;
    for (const progress of [1, 2])
      res.write(`data: ${JSON.stringify({ method: 'notifications/progress', params: { progress, progressToken: token } })}\n\n`);
    res.end(`data: ${JSON.stringify({ id: 3, result: { done: true, client_token: asked.client_token } })}\n\n`);
  });
  cleanups.push(() => server.close());
  return server;
}

async function record(target: string, token: string, progressToken: unknown): Promise<Cassette> {
  const proxy = await startRecordingProxy({ target });
  const post = (path: string, body: unknown) =>
    fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
      (r) => r.text(),
    );
  await post('/v1/jobs', { client_token: token, input: 'x' });
  await post('/mcp', { id: 3, method: 'tools/call', params: { _meta: { progressToken } }, client_token: token });
  return parseCassette(serializeCassette(await proxy.close()));
}

/** The data of each SSE event in a body. */
const dataOf = (body: string) =>
  new SseParser().push(Buffer.from(body)).flatMap((f) => (f.kind === 'event' ? [JSON.parse(f.data ?? 'null') as unknown] : []));

describe('values a client sends and the server gives back', () => {
  it('are redacted in the recording, and each door gives the live request its own back: curl, bench replay, MSW', async () => {
    const server = await echoingServer();
    const recordedToken = randomUUID();
    const cassette = await record(server.url, recordedToken, 'progress-c1a2b3c4d5e6');
    const text = serializeCassette(cassette);
    expect(text).not.toContain(recordedToken);
    expect(text).toContain('"client_token": "<redacted:client_token>"');
    // A string progress token is an identifier by its name (decision 0016): kept as it was.
    expect(text).toContain('progress-c1a2b3c4d5e6');

    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-echo-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'echo.yaml');
    await writeFile(file, text);
    const replay = await benchReplayOf(file, cleanups);
    const live = randomUUID();
    const job = await run('curl', [
      '-sS',
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify({ client_token: live, input: 'x' }),
      `${replay.url}/v1/jobs`,
    ]);
    expect(JSON.parse(job.stdout)).toEqual({ id: 'job_1', client_token: live, status: 'queued' });

    const call = { id: 3, method: 'tools/call', params: { _meta: { progressToken: 'progress-c1a2b3c4d5e6' } }, client_token: live };
    const stream = await run('curl', [
      '-sS',
      '-N',
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify(call),
      `${replay.url}/mcp`,
    ]);
    expect(dataOf(stream.stdout).at(-1)).toEqual({ id: 3, result: { done: true, client_token: live } });

    // In process, through MSW, a third client's value.
    const { handlers } = cassetteHandlers([{ name: 'echo.yaml', cassette }]);
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: 'error' });
    cleanups.push(async () => msw.close());
    const third = randomUUID();
    const res = await fetch('http://jobs.test/v1/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_token: third, input: 'x' }),
    });
    expect(await res.json()).toEqual({ id: 'job_1', client_token: third, status: 'queued' });
  });

  it('a recording made before decision 0016, with the progress token redacted, still matches and gives the number back', async () => {
    const server = await echoingServer();
    const recorded = await record(server.url, randomUUID(), 4);
    // As the earlier rule wrote it: every value under a name ending in `token` became a placeholder, 4 included.
    const earlier = parseCassette(serializeCassette(makeRedactor(undefined, { judgeValues: false }).cassette(recorded)));
    expect(JSON.stringify(earlier)).toContain('\\"progressToken\\":\\"<redacted:progresstoken>\\"');
    const replay = await startReplayServer([{ name: 'earlier.yaml', cassette: earlier }]);
    cleanups.push(() => replay.close());
    const res = await fetch(`${replay.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 3, method: 'tools/call', params: { _meta: { progressToken: 4 } }, client_token: randomUUID() }),
    });
    expect(res.status).toBe(200);
    const progress = dataOf(await res.text()).slice(0, 2);
    expect(progress).toEqual([1, 2].map((n) => ({ method: 'notifications/progress', params: { progress: n, progressToken: 4 } })));
  });
});
