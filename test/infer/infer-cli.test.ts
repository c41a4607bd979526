import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCassette, writeCassetteAtomic } from '../../src/cassette/index.js';
import { learnPack, loadRecordings, type Recording } from '../../src/infer/index.js';
import { runBench } from '../helpers/cli.js';
import { curlThroughProxy } from '../helpers/curl-through-proxy.js';
import { readBody, startServer, type TestServer } from '../helpers/servers.js';

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

type Send = (type: string, data: Record<string, unknown>) => void;

/** An AG-UI agent of a team's own: each run streams a reply, and every other run calls a weather tool first. */
async function agUiAgent(): Promise<TestServer> {
  let runs = 0;
  const server = await startServer(async (req, res) => {
    const input = JSON.parse((await readBody(req)).toString()) as { threadId: string; runId: string };
    const n = ++runs;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send: Send = (type, data) => res.write(`data: ${JSON.stringify({ type, ...data })}\n\n`);
    send('RUN_STARTED', { threadId: input.threadId, runId: input.runId });
    if (n % 2 === 0) {
      const call = `call_${n}`;
      send('TOOL_CALL_START', { toolCallId: call, toolCallName: 'get_weather' });
      send('TOOL_CALL_ARGS', { toolCallId: call, delta: '{"city":' });
      send('TOOL_CALL_ARGS', { toolCallId: call, delta: '"Paris"}' });
      send('TOOL_CALL_END', { toolCallId: call });
      send('TOOL_CALL_RESULT', { messageId: `tool_${n}`, toolCallId: call, content: JSON.stringify({ temp: 20 + n, unit: 'C' }) });
    }
    const message = `msg_${n}`;
    send('TEXT_MESSAGE_START', { messageId: message, role: 'assistant' });
    for (const word of ['It ', 'is ', `${20 + n} `, 'C.']) send('TEXT_MESSAGE_CONTENT', { messageId: message, delta: word });
    send('TEXT_MESSAGE_END', { messageId: message });
    send('RUN_FINISHED', { threadId: input.threadId, runId: input.runId });
    res.end();
  });
  cleanups.push(() => server.close());
  return server;
}

/** Six runs of curl against the agent through `bench proxy`: one recording. */
async function recordRuns(server: TestServer, file: string): Promise<void> {
  const runs = [1, 2, 3, 4, 5, 6].map((n) => ({
    threadId: 't1',
    runId: `run_${n}`,
    messages: [{ id: `u${n}`, role: 'user', content: 'Weather?' }],
    tools: [],
  }));
  await curlThroughProxy(server.url, file, '/agent', runs);
}

describe('bench infer', () => {
  it('learns the contract of an AG-UI server recorded from curl through bench proxy, and verify then catches a stream that breaks it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-infer-agui-'));
    await mkdir(join(dir, 'rec'));
    await recordRuns(await agUiAgent(), join(dir, 'rec', 'runs.yaml'));
    const pack = join(dir, 'agui.yaml');
    const r = await runBench(['infer', join(dir, 'rec'), '--name', 'team/agent', '-o', pack]);
    expect(r.code, r.stderr).toBe(0);
    const text = await readFile(pack, 'utf8');
    // What a person reads: where each rule was first seen and how often it held, then the rule itself.
    expect(text).toMatch(/# held in 6 streams; first .*runs\.yaml #1\n {2}- name: first-run-started\n {4}kind: firstEvent/);
    expect(text).toContain('- name: ends-with-run-finished\n    kind: terminal');
    expect(text).toMatch(/- name: text-message-start-closed-by-text-message-end\n {4}kind: pairedBy\n[^-]*key: messageId/);
    expect(text).toMatch(/- name: tool-call-start-closed-by-tool-call-end\n {4}kind: pairedBy\n[^-]*key: toolCallId/);
    expect(text).toMatch(
      /- name: nothing-after-text-message-end-by-key\n {4}kind: never\n[^-]*by: messageId\n[^-]*event: TEXT_MESSAGE_CONTENT/,
    );
    // The tool's result is JSON sent as a string: described as such, with the fields every result had; ids are no enum.
    const file = parse(text) as { payloads: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    expect(file.payloads.TOOL_CALL_RESULT?.properties.content).toEqual({
      type: 'string',
      contentMediaType: 'application/json',
      contentSchema: { type: 'object', properties: { temp: { type: 'number' }, unit: { type: 'string' } }, required: ['temp', 'unit'] },
    });
    expect(file.payloads.TEXT_MESSAGE_CONTENT?.properties.messageId).toEqual({ type: 'string' });
    expect(file.payloads.TEXT_MESSAGE_START?.properties.role).toEqual({ type: 'string', enum: ['assistant'] });
    expect((await runBench(['verify', join(dir, 'rec'), '--pack', pack])).code).toBe(0);

    // A release that ends a message twice and sends a tool result that is no longer JSON.
    const cassette = await loadCassette(join(dir, 'rec', 'runs.yaml'));
    const events = cassette.interactions[1]?.response?.stream?.events ?? [];
    const end = events.findIndex((e) => e.data?.includes('TEXT_MESSAGE_END'));
    events.splice(end + 1, 0, { ...(events[end] as (typeof events)[number]) });
    const result = events.find((e) => e.data?.includes('TOOL_CALL_RESULT'));
    if (result) result.data = JSON.stringify({ ...JSON.parse(result.data as string), content: 'It is warm' });
    await mkdir(join(dir, 'broken'));
    await writeCassetteAtomic(join(dir, 'broken', 'runs.yaml'), cassette);
    const broken = await runBench(['verify', join(dir, 'broken'), '--pack', pack]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(
      'team/agent text-message-start-closed-by-text-message-end: a second TEXT_MESSAGE_END for messageId=msg_2',
    );
    expect(broken.stdout).toContain('team/agent payload-schema: TOOL_CALL_RESULT data.content: expected JSON text (an object or array)');
  });

  it('proposes no rule tested fewer than --min-support times, whatever the recordings', async () => {
    const folders = ['kiro-native', 'hermes', 'opencode-serve', 'codex-app-server'];
    const recordings = new Map<string, Recording[]>();
    for (const f of folders) recordings.set(f, await loadRecordings([join(CASSETTES, f)]));
    fc.assert(
      fc.property(fc.constantFrom(...folders), fc.integer({ min: 1, max: 6 }), fc.nat(), (folder, minSupport, skip) => {
        const all = recordings.get(folder) as Recording[];
        const some = all.filter((_, i) => (i + skip) % 3 !== 0);
        try {
          const learned = learnPack(some.length > 0 ? some : all, { minSupport });
          for (const p of learned.packs) for (const c of p.rules) expect(c.support).toBeGreaterThanOrEqual(minSupport);
        } catch (err) {
          expect((err as Error).message).toMatch(/^no rule was tested \d+ times in these recordings/);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('on one recording proposes nothing at the default min support, and says how to get more', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-infer-one-'));
    const out = join(dir, 'one.yaml');
    const r = await runBench(['infer', join(CASSETTES, 'kiro-native', 'basic_turn.yaml'), '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bench: no rule was tested 3 times in these recordings \(.*2 streams, \d+ events\)\): give more recordings, or a lower --min-support\n$/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('refuses bad input in one line with exit 2, writing nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-infer-bad-'));
    const out = join(dir, 'p.yaml');
    const kiro = join(CASSETTES, 'kiro-native');
    await writeFile(join(dir, 'notes.txt'), 'no cassette here');
    const cases: [string[], RegExp][] = [
      [[join(dir, 'missing'), '-o', out], /no such file or folder/],
      [[dir, '-o', out], /no recording \(\*\.yaml\) under .*: give folders or cassettes made by bench record or bench proxy/],
      [[kiro, '--min-support', '0', '-o', out], /--min-support "0": give a whole number from 1/],
      [[kiro, '--holdout', '8', '-o', out], /--holdout 8 leaves nothing to learn from: there are 8 recordings; hold out fewer/],
      [[kiro, '--route', '(', '-o', out], /--route "\(": not a regular expression/],
      [[kiro, '--route', '^/nothing$', '-o', out], /no stream of the recordings is on the given --route/],
      [[kiro, '-o', join(dir, 'no', 'p.yaml')], /the folder .* does not exist; create it or name a file in one that does/],
    ];
    for (const [args, message] of cases) {
      const r = await runBench(['infer', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('--help explains evidence, min support, holdout and routes, with examples', async () => {
    const r = await runBench(['infer', '--help']);
    expect(r.code).toBe(0);
    for (const words of ['--min-support', '--holdout', '--route', 'bench verify recordings/ --pack ./team-pack.yaml', 'one pack per route'])
      expect(r.stdout).toContain(words);
  });
});
