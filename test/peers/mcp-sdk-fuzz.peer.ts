import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, loadCassette, type SseItem } from '../../src/cassette/index.js';
import { fuzzCassette, newSeed, transportReframing } from '../../src/fuzz/index.js';
import { cassetteFetch } from '../../src/probing/index.js';
import type { ReplayOptions } from '../../src/replayer/index.js';
import { benchProxyUnderWrapper } from '../helpers/cli.js';
import { mcpProbeFlows, type ProbeFlowsView } from './clients/mcp-probe-flows.mjs';
import { EVERYTHING, FASTMCP, startMcpServer } from './mcp-servers.js';

/**
 * `bench fuzz`'s variations, thrown at the official MCP SDK client instead of tapedeck's probes: the SDK client's
 * session of the probes' flows on server-everything and on the FastMCP server, recorded through `bench proxy`, then
 * replayed varied through the undici door. Legal variations come from the generator (moves, optional events,
 * chunk cuts, line endings); four are made by hand because they are what an MCP client meets on real networks:
 * progress out of order, a result split over many chunks, a notification it does not know, a response sent twice.
 * The SDK's own verdicts (each call's result, the progress it counted, the cancellation, the session's end) hold.
 */

const ORIGIN = 'http://mcp.tapedeck.test';
const RUNS = 100;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

/** What the SDK concluded: every result, the progress it counted and its highest value, the cancellation, the end. */
function verdicts(view: ProbeFlowsView) {
  const { errors: _errors, progress, ...rest } = view;
  const values = (progress?.progress ?? []).map((p) => p.progress);
  return { ...rest, progress: { count: values.length, last: Math.max(...values), content: progress?.content } };
}

const message = (item: SseItem) => JSON.parse(item.data as string) as Record<string, unknown>;
const events = (i: Interaction) => i.response?.stream?.events ?? [];
/** The long call that completed: the stream with progress and a result. */
const progressed = (c: Cassette) =>
  c.interactions.find(
    (i) => events(i).some((e) => e.data?.includes('notifications/progress')) && events(i).some((e) => e.data?.includes('"result"')),
  ) as Interaction;

async function replayed(cassette: Cassette, replay: ReplayOptions = {}, connectTimeoutMs?: number): Promise<ProbeFlowsView> {
  const doorFetch = cassetteFetch([{ name: 'flows.yaml', cassette }], replay) as typeof fetch;
  return mcpProbeFlows(`${ORIGIN}/mcp`, { fetch: doorFetch, ...(connectTimeoutMs ? { connectTimeoutMs } : {}) });
}

describe.each([EVERYTHING, FASTMCP])('the MCP SDK client under fuzzed replays of $name', (server) => {
  let recorded: Cassette;
  let live: ProbeFlowsView;

  beforeAll(async () => {
    const { url } = await startMcpServer(server, cleanups);
    const proxy = await benchProxyUnderWrapper(url, 'flows.yaml', cleanups);
    live = await mcpProbeFlows(`${proxy.url}/mcp`);
    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;
    recorded = await loadCassette(proxy.file);
    expect(live.failed).toBeUndefined();
    expect(await replayed(recorded)).toEqual(live);
  }, 120_000);

  it(`keeps its verdicts under ${RUNS} legal variations (a fresh seed each run, printed on failure)`, async () => {
    const seed = newSeed();
    // LF and CRLF: the SDK's parser loses a stream's last event after a bare CR (the test below). No payload edits:
    // the property compares what each call gave, which a dropped field changes by design.
    const options = { name: 'flows.yaml', runs: RUNS, seed, lineEnds: ['lf', 'crlf'] as const, payloads: false };
    const report = await fuzzCassette(recorded, options, async (c) => {
      const view = await mcpProbeFlows(`${ORIGIN}/mcp`, { fetch: c.fetch as typeof fetch });
      expect(verdicts(view), `seed ${seed}: ${c.applied.join('; ')}`).toEqual(verdicts(live));
      // A legal variation keeps progress increasing: the SDK hands it on in the order it came.
      expect(view.progress?.progress).toEqual(live.progress?.progress);
    });
    expect(report.runs).toBe(RUNS);
  }, 300_000);

  it('keeps them when progress comes out of order: each notification is still handed to onprogress', async () => {
    const c = structuredClone(recorded);
    const stream = events(progressed(c));
    const slots = stream.flatMap((e, n) => (e.data?.includes('notifications/progress') ? [n] : []));
    const reversed = slots.map((n) => stream[n] as SseItem).reverse();
    for (const [k, n] of slots.entries()) stream[n] = { ...(reversed[k] as SseItem), at: (stream[n] as SseItem).at };
    const view = await replayed(c);
    expect(verdicts(view)).toEqual(verdicts(live));
    expect(view.progress?.progress).toEqual([...(live.progress?.progress ?? [])].reverse());
  });

  it('keeps them when every result is split over chunks of a few bytes, with CRLF line ends', async () => {
    const streams = recorded.interactions.flatMap((i, n) => (i.response?.stream ? [n] : []));
    const cuts = streams.flatMap((_, stream) => Array.from({ length: 12 }, (_, k) => ({ stream, kind: 'any' as const, at: k * 29 + 7 })));
    const { reframe, log } = transportReframing(recorded, streams, { eol: 'crlf', cuts });
    expect(verdicts(await replayed(recorded, { reframe }))).toEqual(verdicts(live));
    // Every stream was cut where asked, many times over: inside results, between their lines, mid-field.
    expect(log.length).toBeGreaterThan(streams.length * 4);
  });

  it('loses the last event of a stream whose lines end in a bare CR, as its SSE parser (eventsource-parser 3) does', async () => {
    const streams = recorded.interactions.flatMap((i, n) => (i.response?.stream ? [n] : []));
    const { reframe } = transportReframing(recorded, streams, { eol: 'cr', cuts: [] });
    // SSE allows CR, CRLF or LF; the parser holds a final CR for an LF that never comes. eventsource-parser 4.1.3
    // ends such a stream right, but the SDK 1.32.2 asks for ^3: when this fails, the SDK has moved, and the fuzz
    // above can try bare CRs again.
    // initialize's answer is the last event of its stream: the client waits for it until the timeout.
    const view = await replayed(recorded, { reframe }, 3000);
    expect(view.failed).toMatch(/Request timed out/);
    expect(view.initialize).toBeUndefined();
  });

  it('keeps them when a notification it does not know arrives before a result', async () => {
    const c = structuredClone(recorded);
    const stream = events(progressed(c));
    const result = stream.findIndex((e) => e.data?.includes('"result"'));
    // Made from the result's item without its recorded bytes (`raw`), which would send the result instead.
    const { raw: _raw, ...before } = stream[result] as SseItem;
    stream.splice(result, 0, {
      ...before,
      id: undefined,
      data: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tapedeck/unknown', params: { note: 'a later spec' } }),
    });
    const view = await replayed(c);
    expect(verdicts(view)).toEqual(verdicts(live));
    expect(view.errors).toEqual(live.errors);
  });

  it('keeps them when a response comes again for an id already answered, and reports it through onerror', async () => {
    const c = structuredClone(recorded);
    // The echo call's answer, sent again on the long call's stream before that call's own result.
    const echo = c.interactions.find((i) => JSON.stringify(i.request.body ?? '').includes('tapedeck')) as Interaction;
    const answer = events(echo).find((e) => e.data?.includes('"result"')) as SseItem;
    const stream = events(progressed(c));
    const result = stream.findIndex((e) => e.data?.includes('"result"'));
    const { raw: _raw, ...again } = answer;
    stream.splice(result, 0, { ...again, id: undefined, at: (stream[result] as SseItem).at });
    expect(message(answer).id).not.toEqual(message(stream[result + 1] as SseItem).id);
    const view = await replayed(c);
    expect(verdicts(view)).toEqual(verdicts(live));
    expect(view.errors.length).toBeGreaterThan(live.errors.length);
  });
});
