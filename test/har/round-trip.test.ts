import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette, writeCassetteStream } from '../../src/cassette/index.js';
import { isCassetteFile, listFiles } from '../../src/fs/list-files.js';
import { cassetteToHar, harToCassette, parseHar } from '../../src/har/index.js';
import { runBench } from '../helpers/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-har-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const creator = { name: 'tapedeck', version: 'test' };

describe('HAR 1.2 export and import', () => {
  it('every committed cassette (SSE, WebSocket, failures, raw wire text) comes back byte for byte from its HAR', async () => {
    const files = await listFiles('cassettes', isCassetteFile);
    expect(files.length).toBeGreaterThan(80);
    let streams = 0;
    let sessions = 0;
    for (const file of files) {
      const cassette = await loadCassette(file);
      // Through JSON text, as a HAR file is read by anyone.
      const har = parseHar(JSON.parse(JSON.stringify(cassetteToHar(cassette, creator))), file);
      const back = harToCassette(har, { recorder: 'unused' });
      const out = join(dir, 'back.yaml');
      await writeCassetteStream(out, back.meta, () => back.interactions);
      // Byte for byte, the digest line too: a committed cassette whose digest is stale would be read on the slow path.
      expect(await readFile(out, 'utf8'), file).toBe(await readFile(file, 'utf8'));
      streams += har.log.entries.filter((e) => e._resourceType === 'eventsource').length;
      sessions += har.log.entries.filter((e) => e._webSocketMessages).length;
    }
    expect(streams).toBeGreaterThan(50);
    expect(sessions).toBeGreaterThan(5);
  });

  it('the standard fields say what the cassette says, for a tool that ignores _tapedeck', async () => {
    const cassette = await loadCassette('cassettes/codex-app-server/tool_approved.yaml');
    const entry = cassetteToHar(cassette, creator).log.entries[0];
    const frames = cassette.interactions[0]?.response?.websocket?.frames ?? [];
    expect(entry?.request.url).toMatch(/^ws:\/\//);
    expect(entry?._webSocketMessages?.map((m) => m.type)).toEqual(
      frames.filter((f) => !f.close).map((f) => (f.from === 'client' ? 'send' : 'receive')),
    );
    const sse = await loadCassette('cassettes/kiro-native/streaming.yaml');
    const stream = cassetteToHar(sse, creator).log.entries.find((e) => e.response.content.mimeType?.startsWith('text/event-stream'));
    expect(stream?.response.content.text).toMatch(/^event: session\.heartbeat\ndata: /);
  });

  it('a HAR from another tool: one origin kept, events parsed from the body, messages numbered in time order, secrets redacted', async () => {
    const t = Date.parse('2026-12-01T10:00:00.000Z');
    const at = (ms: number) => new Date(t + ms).toISOString();
    const entry = (ms: number, method: string, url: string, response: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      startedDateTime: at(ms),
      time: 20,
      request: {
        method,
        url,
        httpVersion: 'HTTP/1.1',
        headers: [{ name: 'Authorization', value: 'Bearer sk-live-0123456789abcdef0123' }],
        cookies: [],
        queryString: [],
        headersSize: -1,
        bodySize: 0,
      },
      response: {
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        headers: [],
        cookies: [],
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
        ...response,
      },
      cache: {},
      timings: { send: 0, wait: 5, receive: 15 },
      ...extra,
    });
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'Playwright', version: '1.65.1' },
        entries: [
          entry(0, 'GET', 'http://127.0.0.1:4000/api/hello', { content: { size: 11, mimeType: 'application/json', text: '{"hello":1}' } }),
          entry(5, 'GET', 'https://cdn.example.com/lib.js', { content: { size: 2, mimeType: 'text/javascript', text: '1;' } }),
          entry(10, 'GET', 'http://127.0.0.1:4000/events', {
            headers: [{ name: 'Content-Type', value: 'text/event-stream' }],
            content: {
              size: 40,
              mimeType: 'text/event-stream',
              text: 'event: tick\ndata: {"n":1}\n\nevent: tick\r\ndata: {"n":2}\r\n\r\n',
            },
          }),
          entry(
            30,
            'GET',
            'ws://127.0.0.1:4000/ws',
            { status: 101, content: { size: 0 } },
            {
              _resourceType: 'websocket',
              _webSocketMessages: [
                { type: 'send', time: (t + 40) / 1000, opcode: 1, data: '{"op":"ping"}' },
                { type: 'receive', time: (t + 41) / 1000, opcode: 1, data: '{"op":"pong"}' },
                { type: 'send', time: (t + 60) / 1000, opcode: 2, data: Buffer.from([1, 2, 3]).toString('base64') },
              ],
            },
          ),
          entry(50, 'POST', 'http://127.0.0.1:4000/api/post', { content: { size: 0 } }, {}),
        ],
      },
    };
    const file = join(dir, 'foreign.har');
    await writeFile(file, JSON.stringify(har));
    const out = join(dir, 'foreign.yaml');
    const r = await runBench(['har', 'import', file, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('1 entries of other origins left out');
    const cassette = await loadCassette(out);
    expect(cassette.meta.target).toBe('http://127.0.0.1:4000');
    expect(cassette.interactions.map((i) => [i.seq, i.request.method, i.request.path])).toEqual([
      [1, 'GET', '/api/hello'],
      [2, 'GET', '/events'],
      [3, 'GET', '/ws'],
      [5, 'POST', '/api/post'],
    ]);
    const stream = cassette.interactions[1]?.response?.stream;
    expect(stream?.events.map((e) => [e.event, e.data, e.after])).toEqual([
      ['tick', '{"n":1}', 2],
      ['tick', '{"n":2}', 2],
    ]);
    // The CRLF event keeps its wire text, so replay sends it as it came.
    expect(stream?.events[1]?.raw).toBe('event: tick\r\ndata: {"n":2}\r\n\r\n');
    const frames = cassette.interactions[2]?.response?.websocket?.frames ?? [];
    expect(frames.map((f) => [f.from, f.seq, f.after])).toEqual([
      ['client', 4, 4],
      ['server', undefined, 4],
      ['client', 6, 6],
    ]);
    expect(frames[2]?.base64).toBe('AQID');
    expect(JSON.stringify(cassette)).not.toContain('sk-live-0123456789abcdef0123');
    expect(cassette.interactions[0]?.request.headers.authorization).toMatch(/redacted/);
  });

  it('a file that is not a HAR is refused in one line, and nothing is written', async () => {
    const notJson = join(dir, 'x.har');
    await writeFile(notJson, '{ nope');
    const out = join(dir, 'never.yaml');
    const a = await runBench(['har', 'import', notJson, '-o', out]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/^bench: .*x\.har: not JSON \(.*\); a HAR file is JSON/);
    await writeFile(notJson, JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' } } }));
    const b = await runBench(['har', 'import', notJson, '-o', out]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^bench: .*x\.har: not a HAR 1\.2 file: log\.entries: /);
    expect(b.stderr.trim().split('\n')).toHaveLength(1);
    const c = await runBench(['har', 'import', notJson, '-o', join(dir, 'cassette.json')]);
    expect(c.stderr).toMatch(/a cassette is a \.yaml file/);
    await expect(readFile(out)).rejects.toThrow();
  });
});
