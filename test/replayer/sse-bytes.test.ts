import { setupServer } from 'msw/node';
import { fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteDispatcher, cassetteHandlers, startReplayServer } from '../../src/replayer/index.js';
import { sleep, startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// As servers really write it: id before event, CRLF, a keep-alive comment, no space after a colon, a comment inside an event, CR alone.
const WIRE = [
  'id: 1\r\nevent: a\r\ndata: x\r\n\r\n',
  ': keep-alive\r\n\r\n',
  'event:b\ndata:{"k":1}\n\n',
  'data: one\n: note\ndata: two\n\n',
  'event: c\rdata: cr\r\r',
  'event: canonical\ndata: {"ok":true}\n\n',
];

describe('SSE byte for byte', () => {
  it('a stream with id before event, CRLF endings and comments replays byte-identical through all three doors', async () => {
    const server = await startServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of WIRE) {
        res.write(chunk);
        await sleep(5);
      }
      res.end();
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const live = await (await fetch(`${proxy.url}/stream`)).text();
    expect(live).toBe(WIRE.join(''));
    const cassette = parseCassette(serializeCassette(await proxy.close()));
    const events = cassette.interactions[0]?.response?.stream?.events ?? [];
    // What is already canonical stays readable: no wire text kept for it.
    expect(events.find((e) => e.event === 'canonical')?.raw).toBeUndefined();
    expect(events.find((e) => e.event === 'a')?.raw).toBe(WIRE[0]);

    const named = [{ name: 'wire.yaml', cassette }];
    const replay = await startReplayServer(named);
    cleanups.push(() => replay.close());
    expect(await (await fetch(`${replay.url}/stream`)).text()).toBe(live);
    expect(await (await undiciFetch('http://api.test/stream', { dispatcher: cassetteDispatcher(named) })).text()).toBe(live);
    const msw = setupServer(...cassetteHandlers(named).handlers);
    msw.listen();
    try {
      expect(await (await fetch('http://api.test/stream')).text()).toBe(live);
    } finally {
      msw.close();
    }
  });

  it('a stream that opens with a byte-order mark replays it, through all three doors', async () => {
    const wire = '\ufeffdata: first\n\ndata: second\n\n';
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(wire);
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const bytes = async (res: Response | Awaited<ReturnType<typeof undiciFetch>>) => Buffer.from(await res.arrayBuffer());
    const live = await bytes(await fetch(`${proxy.url}/stream`));
    expect(live).toEqual(Buffer.from(wire));
    const cassette = parseCassette(serializeCassette(await proxy.close()));
    // Parsed as every client parses it: the mark is no part of the data.
    expect(cassette.interactions[0]?.response?.stream?.events.map((e) => e.data)).toEqual(['first', 'second']);

    const named = [{ name: 'bom.yaml', cassette }];
    const replay = await startReplayServer(named);
    cleanups.push(() => replay.close());
    expect(await bytes(await fetch(`${replay.url}/stream`))).toEqual(live);
    expect(await bytes(await undiciFetch('http://api.test/stream', { dispatcher: cassetteDispatcher(named) }))).toEqual(live);
    const msw = setupServer(...cassetteHandlers(named).handlers);
    msw.listen();
    try {
      expect(await bytes(await fetch('http://api.test/stream'))).toEqual(live);
    } finally {
      msw.close();
    }
  });
});
