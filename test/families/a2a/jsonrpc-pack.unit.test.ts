import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, loadCassette, type SseItem } from '../../../src/cassette/index.js';
import { choosePacks, registerPacks, verifyCassette } from '../../../src/contracts/index.js';
import { a2aJsonRpc } from '../../../src/families/a2a/index.js';

/**
 * The `a2a/jsonrpc` pack on the committed A2A recordings: it holds on every one, is chosen by their traffic alone,
 * and each rule fails on one of them changed in exactly the way the rule forbids.
 */
const DIR = 'cassettes/a2a';
type Json = Record<string, unknown>;
const probe = async (name: string): Promise<Cassette> => structuredClone(await loadCassette(`${DIR}/${name}.yaml`));

function broken(c: Cassette): string[] {
  return verifyCassette(c, 'edited.yaml', [a2aJsonRpc]).rules.flatMap((r) => (r.violations.length > 0 ? [r.rule] : []));
}

/** The interaction whose request calls `method`. */
const calling = (c: Cassette, method: string) =>
  c.interactions.find((i) => (i.request.body as { json?: Json } | undefined)?.json?.method === method) as Interaction;
const streamOf = (i: Interaction) => i.response?.stream?.events as SseItem[];
const parsed = (e: SseItem) => JSON.parse(e.data as string) as Json;
const rewrite = (e: SseItem, change: (m: Json) => Json): SseItem => ({ ...e, data: JSON.stringify(change(parsed(e))) });
/** The streamed answer's events, changed. */
const editStream = (name: string, method: string, change: (events: SseItem[]) => SseItem[]) => async () => {
  const c = await probe(name);
  const i = calling(c, method);
  const before = streamOf(i);
  // A session orders messages by when they came: the edited order is given the recorded times, in order.
  const times = before.map((e) => e.at);
  (i.response as { stream: { events: SseItem[] } }).stream.events = change(before).map((e, n) => ({
    ...e,
    at: times[Math.min(n, times.length - 1)] as number,
  }));
  return c;
};
const kind = (e: SseItem) => Object.keys((parsed(e).result ?? {}) as Json)[0];
const indexOf = (events: SseItem[], k: string) => events.findIndex((e) => kind(e) === k);

/** Each rule, and the edit of a recording that breaks it. */
const BREAKS: Record<string, () => Promise<Cassette>> = {
  'request-answered': async () => {
    const c = await probe('get_task');
    const i = calling(c, 'GetTask');
    (i.response as { body?: unknown }).body = { json: { jsonrpc: '2.0', id: 'someone-else', result: {} } };
    return c;
  },
  'one-answer-unless-streamed': async () => {
    const c = await probe('get_task');
    const i = calling(c, 'GetTask');
    const body = (i.response as { body: { json: Json } }).body.json;
    (i.response as { body: unknown }).body = { json: [body, body] };
    return c;
  },
  'response-to-a-request': async () => {
    const c = await probe('send_message');
    const i = calling(c, 'SendMessage');
    (i.response as { body: { json: Json } }).body.json.id = 'never-asked';
    return c;
  },
  'stream-ends-at-final-status': editStream('stream', 'SendStreamingMessage', (e) => [...e, e[indexOf(e, 'artifactUpdate')] as SseItem]),
  'stream-ends-at-message': editStream('stream', 'SendStreamingMessage', (e) => [
    rewrite(e[0] as SseItem, (m) => ({ ...m, result: { message: { messageId: 'reply-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } } })),
    ...e.slice(1),
  ]),
  // The task, submitted, shown again after it went working.
  'task-states-move-forward': editStream('stream', 'SendStreamingMessage', (e) => [
    e[0] as SseItem,
    e[1] as SseItem,
    e[0] as SseItem,
    ...e.slice(2),
  ]),
  'append-to-an-artifact-that-exists': editStream('stream', 'SendStreamingMessage', (e) =>
    e.filter((_, n) => n !== indexOf(e, 'artifactUpdate')),
  ),
  'no-chunk-after-the-last': editStream('stream', 'SendStreamingMessage', (e) => {
    const first = indexOf(e, 'artifactUpdate');
    return [...e.slice(0, first), e[first + 1] as SseItem, e[first] as SseItem, ...e.slice(first + 2)];
  }),
};

describe('a2a/jsonrpc', () => {
  it('holds on every committed A2A recording (the simulator, both SDKs’ agents), and is chosen for them by their traffic alone', async () => {
    registerPacks([a2aJsonRpc]);
    const files: string[] = [];
    for (const dir of [DIR, 'cassettes/a2a-js-real', 'cassettes/a2a-python-real'])
      files.push(...(await readdir(dir)).filter((f) => f.endsWith('.yaml') && f !== 'manifest.yaml').map((f) => `${dir}/${f}`));
    expect(files).toHaveLength(24);
    for (const file of files) {
      const c = await loadCassette(file);
      expect(broken(c), file).toEqual([]);
      // The card is plain JSON; an unknown method's error is the only A2A message there: nothing to tell A2A by.
      if (/agent_card|unknown_method/.test(file)) continue;
      expect(
        choosePacks({ ...c, meta: { ...c.meta, packs: [] } }).chosen.map((p) => p.pack),
        file,
      ).toEqual(['a2a/jsonrpc']);
    }
  });

  it('has a recording that breaks each rule', () => {
    expect(Object.keys(BREAKS).sort()).toEqual(a2aJsonRpc.rules.map((r) => r.name).sort());
  });

  for (const [rule, make] of Object.entries(BREAKS))
    it(`fails ${rule} on a recording that breaks it`, async () => {
      expect(broken(await make())).toContain(rule);
    });
});
