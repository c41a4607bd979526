import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cassette, loadCassette, type SseItem } from '../../src/cassette/index.js';
import { anthropicMessages } from '../../src/packs/anthropic-messages.js';
import { benchProxyUnderWrapper, runBench } from '../helpers/cli.js';
import type { TestServer } from '../helpers/servers.js';
import { streamEdits } from '../helpers/stream-edits.js';
import { startAnthropicServer } from './anthropic-server.js';
import { dataOf, itemsOf, packRefuses, sdkRefuses, streamsOf, typeOf, withData } from './anthropic-stream.js';

/**
 * The `anthropic/messages` pack on what the official SDK (`@anthropic-ai/sdk`, run as a user's app in its own
 * process) exchanged with a Messages server through `bench proxy`: chosen by the traffic, clean on it, each rule
 * broken by one edit of it, and, as the oracle, refusing every edited stream the SDK's MessageStream refuses.
 */
const run = promisify(execFile);
const CLIENT = join(import.meta.dirname, 'clients', 'anthropic-sdk-client.mjs');
const KEY = 'sk-ant-api03-Zq8vT1mYp4Lr7Kx2Wn5Bc9Hd3Fg6Js0Qa1Ue4Io7Py2Tr5Ew8-AbCdEfGh';

let server: TestServer;
let cassette: Cassette;
let file: string;
let answers: Record<string, unknown>[];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startAnthropicServer();
  const proxy = await benchProxyUnderWrapper(server.url, 'sdk.yaml', cleanups);
  const { stdout } = await run(process.execPath, [CLIENT, proxy.url], { env: { ...process.env, ANTHROPIC_API_KEY: KEY } });
  answers = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  process.kill(proxy.bench.wrapperPid, 'SIGTERM');
  await proxy.bench.ended;
  file = proxy.file;
  cassette = await loadCassette(file);
}, 120_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await server?.close();
  if (file) await rm(dirname(file), { recursive: true, force: true });
});

describe('anthropic/messages on the official SDK through bench proxy', () => {
  it('the SDK reads each scripted stream as the API means it, and the recording keeps no key', async () => {
    expect(answers).toEqual([
      { scenario: 'hello', stop_reason: 'end_turn', blocks: [{ type: 'text' }], text: 'Hello there, how can I help?', output_tokens: 9 },
      {
        scenario: 'weather',
        stop_reason: 'tool_use',
        blocks: [{ type: 'text' }, { type: 'tool_use', input: { city: 'Paris', unit: 'c' } }],
        text: 'Let me check the weather.',
        output_tokens: 31,
      },
      { scenario: 'think', stop_reason: 'end_turn', blocks: [{ type: 'thinking' }, { type: 'text' }], text: 'It is 4.', output_tokens: 20 },
      { scenario: 'overload', error: 'overloaded_error', text: 'Partial' },
    ]);
    expect(await readFile(file, 'utf8')).not.toContain(KEY.slice(10));
    expect(streamsOf(cassette)).toHaveLength(4);
  });

  it('bench verify with no --pack chooses the pack by the traffic and finds nothing wrong', async () => {
    const out = await runBench(['verify', file]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /names no pack; checked with anthropic\/messages \(7 of 7 event types of \/v1\/messages known, on its route\)/,
    );
    expect(out.stdout).toMatch(/checked 1 cassettes, 4 streams, \d+ events against \d+ rules: no violations/);
  });
});

/** Edits of one recorded stream (0 hello, 1 weather, 2 think, 3 overload), by event type. */
const edit = (stream: number, change: (items: SseItem[]) => SseItem[]) => () => {
  const i = streamsOf(cassette)[stream];
  if (!i) throw new Error(`no stream ${stream}`);
  return packRefuses(cassette, i.seq, change(itemsOf(i))).map((r) => r.rule);
};
const at = (items: SseItem[], type: string, nth = 0) => items.map((x, n) => (typeOf(x) === type ? n : -1)).filter((n) => n >= 0)[nth] ?? -1;
const without = (items: SseItem[], type: string) => items.toSpliced(at(items, type), 1);
/** The `nth` item of `type` moved to just before (or after) the first of `anchor`. */
function move(items: SseItem[], type: string, anchor: string, place: 'before' | 'after', nth = 0): SseItem[] {
  const moved = items[at(items, type, nth)] as SseItem;
  const rest = items.toSpliced(at(items, type, nth), 1);
  const to = at(rest, anchor) + (place === 'after' ? 1 : 0);
  return rest.toSpliced(to, 0, moved);
}
/** The block started at the `nth` content_block_start, made a block of another kind. */
const retype = (items: SseItem[], nth: number, block: Record<string, unknown>) =>
  items.map((x, n) => (n === at(items, 'content_block_start', nth) ? withData(x, { ...dataOf(x), content_block: block }) : x));
const TEXT = { type: 'text', text: '' };

const BREAKS: Record<string, () => string[]> = {
  'message-start-first': edit(0, (e) => without(e, 'message_start')),
  'one-message': edit(0, (e) => e.toSpliced(1, 0, e[0] as SseItem)),
  'one-terminal-last': edit(0, (e) => without(e, 'message_stop')),
  'delta-in-open-block': edit(0, (e) => move(e, 'content_block_delta', 'content_block_start', 'before')),
  'block-stopped': edit(0, (e) => without(e, 'content_block_stop')),
  'one-block-per-index': edit(0, (e) =>
    e.toSpliced(at(e, 'content_block_stop') + 1, 0, e[at(e, 'content_block_start')] as SseItem, e[at(e, 'content_block_stop')] as SseItem),
  ),
  'no-delta-after-stop': edit(0, (e) => move(e, 'content_block_delta', 'content_block_stop', 'after', 3)),
  'one-block-at-a-time': edit(1, (e) => move(e, 'content_block_start', 'content_block_stop', 'before', 1)),
  'text-delta-in-text-block': edit(0, (e) => retype(e, 0, { type: 'tool_use', id: 'toolu_x', name: 'x', input: {} })),
  'tool-delta-in-tool-block': edit(1, (e) => retype(e, 1, TEXT)),
  'thinking-delta-in-thinking-block': edit(2, (e) => retype(e, 0, TEXT)),
  'tool-input-is-json': edit(1, (e) => e.toSpliced(at(e, 'content_block_delta', 4), 0, e[at(e, 'content_block_delta', 4)] as SseItem)),
  'blocks-before-message-delta': edit(0, (e) => move(e, 'message_delta', 'content_block_stop', 'before')),
  'message-delta-before-stop': edit(0, (e) => without(e, 'message_delta')),
};

describe('anthropic/messages rules', () => {
  it('has an edit of the recording that breaks each rule, and nothing on the recording as it is', () => {
    expect(Object.keys(BREAKS).sort()).toEqual(anthropicMessages.rules.map((r) => r.name).sort());
    for (const i of streamsOf(cassette)) expect(packRefuses(cassette, i.seq, itemsOf(i)), `stream ${i.seq}`).toEqual([]);
  });

  it.each(Object.keys(BREAKS))('fails %s on the edit that breaks it', (rule) => {
    expect((BREAKS[rule] as () => string[])()).toContain(rule);
  });
});

const EDITS = streamEdits<SseItem>();

describe('anthropic/messages against the SDK MessageStream (the oracle)', () => {
  it('refuses every edited stream the SDK refuses; what only the pack refuses is listed with its rule', async () => {
    let streams = 0;
    let refusedBySdk = 0;
    const missed: string[] = [];
    const packOnly: string[] = [];
    for (const i of streamsOf(cassette)) {
      const items = itemsOf(i);
      const variants = [{ where: `#${i.seq}`, items }];
      for (const e of EDITS)
        for (let n = 0; n < items.length; n++) {
          const edited = e.apply(items, n);
          if (edited) variants.push({ where: `#${i.seq} ${e.name} ${n} (${typeOf(items[n] as SseItem)})`, items: edited });
        }
      for (const v of variants) {
        streams++;
        const sdk = await sdkRefuses(v.items);
        const pack = packRefuses(cassette, i.seq, v.items);
        if (sdk) refusedBySdk++;
        if (sdk && pack.length === 0) missed.push(`${v.where}: the SDK: ${sdk}`);
        if (!sdk && pack.length > 0) packOnly.push(`${v.where}: ${pack.map((p) => `${p.rule} (${p.message})`).join('; ')}`);
      }
    }
    if (process.env.ONLY_PACK) process.stdout.write(`${packOnly.join('\n')}\n`);
    expect(missed).toEqual([]);
    // Worth its name: the SDK refuses many edits, and the pack alone refuses more (what the SDK passes over silently).
    expect(refusedBySdk).toBeGreaterThan(40);
    expect(packOnly.length).toBeGreaterThan(40);
    expect(streams).toBeGreaterThan(200);
  }, 60_000);
});
