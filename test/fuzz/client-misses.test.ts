import { describe, expect, it } from 'vitest';
import type { Cassette, SseItem } from '../../src/cassette/index.js';
import { firstEvent, type Pack, terminal } from '../../src/contracts/index.js';
import { exploreCassette, type FuzzCase } from '../../src/fuzz/index.js';
import { parseSseText } from '../../src/sse/index.js';

const ev = (type: string, data: Record<string, unknown>, at: number): SseItem => ({
  at,
  after: 1,
  data: JSON.stringify({ type, ...data }),
});

/** A run streamed back, then the client's next run sending the first one's text as its history. */
function conversation(): Cassette {
  const events = [
    ev('RUN_STARTED', { runId: 'r1' }, 0),
    ev('PING', {}, 1),
    ev('TEXT_MESSAGE_CONTENT', { messageId: 'm1', delta: 'Hel' }, 2),
    ev('TEXT_MESSAGE_CONTENT', { messageId: 'm1', delta: 'lo' }, 3),
    ev('RUN_FINISHED', { runId: 'r1' }, 4),
  ];
  const json = { 'content-type': 'application/json' };
  return {
    version: 1,
    meta: { recorder: 't', target: 'http://agent.test', recordedAt: 'now' },
    interactions: [
      {
        seq: 1,
        request: { method: 'POST', path: '/runs', headers: json, body: { json: { prompt: 'Say hello' } } },
        response: { status: 200, headers: { 'content-type': 'text/event-stream' }, stream: { end: 'server-closed', events } },
        timing: { start: 0 },
      },
      {
        seq: 2,
        request: { method: 'POST', path: '/runs', headers: json, body: { json: { history: 'Hello', seen: 5 } } },
        response: { status: 200, headers: json, body: { json: { ok: true } } },
        timing: { start: 10 },
      },
    ],
  };
}

const pack: Pack = {
  name: 'runs',
  description: 'a run starts and finishes; pings anywhere',
  turnStarts: [],
  payloads: {},
  optional: ['PING'],
  rules: [
    firstEvent('RUN_STARTED', { name: 'starts', description: 'd', source: 's', scope: 'stream' }),
    terminal(['RUN_FINISHED'], { trailers: [] }, { name: 'ends', description: 'd', source: 's', scope: 'stream' }),
  ],
};

/** A client that reads the run and sends its text back; `countsEvents` also reports how many events it saw. */
const client =
  (countsEvents: boolean) =>
  async (c: FuzzCase): Promise<void> => {
    const post = (body: unknown) =>
      c.fetch('http://agent.test/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const frames = parseSseText(await (await post({ prompt: 'Say hello' })).text()).filter((f) => f.kind === 'event');
    const data = frames.map((f) => JSON.parse((f as { data: string }).data) as { type: string; delta?: unknown });
    const history = data.map((d) => (d.type === 'TEXT_MESSAGE_CONTENT' && typeof d.delta === 'string' ? d.delta : '')).join('');
    const res = await post({ history, seen: countsEvents ? data.length : 5 });
    if (res.status !== 200) throw new Error(`fetch failed: status ${res.status}`);
  };

describe('a fuzz run in which the client sends a request the recording lacks', () => {
  it('names the request, the nearest recorded one and the field that differs, not the probe error', async () => {
    const report = await exploreCassette(conversation(), { packs: [pack], runs: 200 }, client(true));
    const error = report.failure?.error ?? '';
    expect(error).toMatch(
      /^the client sent POST \/runs, which the recording lacks; the nearest recorded request, #2 POST \/runs, differs at body\.seen: recorded 5, sent [46]$/,
    );
    expect(error).not.toMatch(/fetch failed/);
    // Shrunk to the one edit that changes what the client counts.
    expect(report.failure?.applied).toHaveLength(1);
    expect(report.failure?.applied[0]).toMatch(/^(inserted|deleted) PING/);
  });

  it('counts a variation whose only miss is the varied text echoed back as unreplayable, not as a broken client', async () => {
    const report = await exploreCassette(conversation(), { packs: [pack], runs: 200 }, client(false));
    expect(report.failure).toBeUndefined();
    expect(report.runs).toBe(200);
    // Payload changes that drop or null a delta change the history the client rightly sends back.
    expect(report.unreplayable).toBeGreaterThan(0);
  });
});
