import { cp, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette, writeCassetteAtomic } from '../../src/cassette/index.js';
import { runBench } from '../helpers/cli.js';
import { curlThroughProxy } from '../helpers/curl-through-proxy.js';
import { readBody, startServer, type TestServer } from '../helpers/servers.js';

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A weather agent: its tool's result is a JSON document sent as a string; the next release adds `humidity` to it. */
async function weatherAgent(changed: boolean): Promise<TestServer> {
  const server = await startServer(async (req, res) => {
    await readBody(req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (type: string, data: Record<string, unknown>) => res.write(`data: ${JSON.stringify({ type, ...data })}\n\n`);
    send('RUN_STARTED', { threadId: 't1', runId: 'r1' });
    send('TOOL_CALL_START', { toolCallId: 'c1', toolCallName: 'get_weather' });
    send('TOOL_CALL_ARGS', { toolCallId: 'c1', delta: '{"city":"Paris"}' });
    send('TOOL_CALL_END', { toolCallId: 'c1' });
    const result = { city: 'Paris', temp: 21, unit: 'C', ...(changed ? { humidity: 40 } : {}) };
    send('TOOL_CALL_RESULT', { messageId: 'm0', toolCallId: 'c1', content: JSON.stringify(result) });
    send('TEXT_MESSAGE_START', { messageId: 'm1', role: 'assistant' });
    send('TEXT_MESSAGE_CONTENT', { messageId: 'm1', delta: 'It is 21 C.' });
    send('TEXT_MESSAGE_END', { messageId: 'm1' });
    send('RUN_FINISHED', { threadId: 't1', runId: 'r1' });
    res.end();
  });
  cleanups.push(() => server.close());
  return server;
}

/** Records one run of curl against the agent through `bench proxy`. */
async function recordWithCurl(server: TestServer, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const body = { threadId: 't1', runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'Weather in Paris?' }] };
  await curlThroughProxy(server.url, join(dir, 'run.yaml'), '/agent', [body]);
}

describe('drift inside JSON sent as a string', () => {
  it("names a field a release added inside a tool result's JSON text, recorded from curl through bench proxy", async () => {
    const root = await mkdtemp(join(tmpdir(), 'tapedeck-json-text-'));
    await recordWithCurl(await weatherAgent(false), join(root, 'before'));
    await recordWithCurl(await weatherAgent(false), join(root, 'again'));
    await recordWithCurl(await weatherAgent(true), join(root, 'after'));
    const same = await runBench(['drift', '--baseline', join(root, 'before'), '--candidate', join(root, 'again'), '--fail-on', 'info']);
    expect(same.stdout).toContain('0 breaking, 0 notable, 0 info');
    expect(same.code).toBe(0);
    const changed = await runBench(['drift', '--baseline', join(root, 'before'), '--candidate', join(root, 'after'), '--fail-on', 'info']);
    expect(changed.stdout).toContain('[info] TOOL_CALL_RESULT: field content{}.humidity added');
    expect(changed.stdout).toContain('0 breaking, 0 notable, 1 info');
    expect(changed.code).toBe(1);
  });

  it("names a field added inside a real hermes-agent tool message's JSON text, and a field it lost", async () => {
    const root = await mkdtemp(join(tmpdir(), 'tapedeck-json-text-'));
    const base = join(root, 'base');
    const cand = join(root, 'cand');
    await cp(join(CASSETTES, 'hermes-real'), base, { recursive: true });
    await cp(join(CASSETTES, 'hermes-real'), cand, { recursive: true });
    // The candidate: the read_file tool's result, a JSON document inside the tool message's `content`, gains a field and loses one.
    const file = join(cand, 'tool_failed.yaml');
    const cassette = await loadCassette(file);
    let edited = 0;
    const editText = (text: string) =>
      text.replace(/\{\\"content\\": \\"\\", \\"total_lines\\": 0, /g, () => {
        edited++;
        return '{\\"content\\": \\"\\", \\"encoding\\": \\"utf-8\\", ';
      });
    for (const i of cassette.interactions)
      for (const e of i.response?.stream?.events ?? []) if (e.data !== undefined) e.data = editText(e.data);
    expect(edited).toBeGreaterThan(0);
    await writeCassetteAtomic(file, cassette);
    const r = await runBench(['drift', '--baseline', base, '--candidate', cand]);
    expect(r.stdout).toContain('field messages[].content{}.encoding added');
    expect(r.stdout).toContain('field messages[].content{}.total_lines removed');
    expect(r.code).toBe(1);
  });
});
