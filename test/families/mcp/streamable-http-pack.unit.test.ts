import { describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, loadCassette, type SseItem } from '../../../src/cassette/index.js';
import { verifyCassette } from '../../../src/contracts/index.js';
import { mcpStreamableHttp } from '../../../src/families/mcp/packs.js';

/**
 * The `mcp/streamable-http` pack against a real session: the official SDK client and
 * @modelcontextprotocol/server-everything, recorded through `bench proxy` (test/peers/mcp-everything.peer.ts).
 * It holds there; each rule fails on that same recording changed in exactly the way the rule forbids.
 */
const REAL = 'cassettes/clients/mcp-sdk-everything.yaml';

async function real(): Promise<Cassette> {
  return structuredClone(await loadCassette(REAL));
}

const events = (i: Interaction) => i.response?.stream?.events as SseItem[];
const message = (item: SseItem) => JSON.parse(item.data as string) as Record<string, unknown>;
const withData = (item: SseItem, json: unknown): SseItem => ({ ...item, data: JSON.stringify(json) });
/** The recording's interactions, by what each POST asks: the test names them by method, not by seq. */
function byRequest(c: Cassette, method: string, n = 0): Interaction {
  const found = c.interactions.filter(
    (i) => i.request.body && 'json' in i.request.body && (i.request.body.json as { method?: string }).method === method,
  );
  return found[n] as Interaction;
}
/** The long tool call: the one whose stream carries progress notifications. */
const progressCall = (c: Cassette) =>
  c.interactions.find((i) => events(i)?.some((e) => e.data?.includes('notifications/progress'))) as Interaction;

function violations(c: Cassette) {
  const checked = verifyCassette(c, 'mcp.yaml', [mcpStreamableHttp]);
  return checked.rules.flatMap((r) => r.violations.map((v) => ({ rule: r.rule, message: v.message, interaction: v.interaction })));
}

describe('mcp/streamable-http on a real server-everything session', () => {
  it('holds, every rule checked over the whole session', async () => {
    const c = await real();
    const checked = verifyCassette(c, 'mcp.yaml', [mcpStreamableHttp]);
    expect(checked.rules.map((r) => r.rule)).toEqual(['payload-schema', ...mcpStreamableHttp.rules.map((r) => r.name)]);
    expect(violations(c)).toEqual([]);
    expect(checked.rules.flatMap((r) => r.notObserved)).toEqual([]);
  });

  it('is chosen for a recording that names no pack: its sessions are MCP', async () => {
    const { choosePacks, registerPacks } = await import('../../../src/contracts/index.js');
    registerPacks([mcpStreamableHttp]);
    expect(choosePacks(await real()).chosen).toEqual([
      expect.objectContaining({ pack: 'mcp/streamable-http', why: expect.stringMatching(/message types of session \S+ known/) }),
    ]);
  });
});

/** Each rule, and the change to the real session that breaks it. */
const BREAKS: [string, (c: Cassette) => void][] = [
  [
    'starts-with-initialize',
    (c) => {
      const init = byRequest(c, 'initialize');
      init.request.body = { json: { jsonrpc: '2.0', id: 0, method: 'ping' } };
    },
  ],
  ['initialized-before-requests', (c) => void c.interactions.splice(c.interactions.indexOf(byRequest(c, 'notifications/initialized')), 1)],
  [
    'request-answered-or-cancelled',
    (c) => {
      const call = byRequest(c, 'tools/call');
      call.response?.stream?.events.splice(
        events(call).findIndex((e) => e.data?.includes('"result"')),
        1,
      );
    },
  ],
  [
    'one-response-per-request',
    (c) => {
      const call = byRequest(c, 'tools/call');
      const answer = events(call).find((e) => e.data?.includes('"result"')) as SseItem;
      events(call).push({ ...answer, at: answer.at + 0.01 });
    },
  ],
  [
    'response-to-a-request',
    (c) => {
      const list = byRequest(c, 'tools/list');
      const stream = events(list);
      const n = stream.findIndex((e) => e.data?.includes('"result"'));
      stream[n] = withData(stream[n] as SseItem, { ...message(stream[n] as SseItem), id: 99 });
    },
  ],
  [
    'progress-for-a-request',
    (c) => {
      const stream = events(progressCall(c));
      const n = stream.findIndex((e) => e.data?.includes('notifications/progress'));
      const p = message(stream[n] as SseItem) as { params: Record<string, unknown> };
      stream[n] = withData(stream[n] as SseItem, { ...p, params: { ...p.params, progressToken: 'nobody-asked' } });
    },
  ],
  [
    'progress-increases',
    (c) => {
      const stream = events(progressCall(c));
      const n = stream.map((e) => e.data?.includes('notifications/progress')).lastIndexOf(true);
      const p = message(stream[n] as SseItem) as { params: Record<string, unknown> };
      stream[n] = withData(stream[n] as SseItem, { ...p, params: { ...p.params, progress: 0 } });
    },
  ],
  [
    'no-progress-after-result',
    (c) => {
      const stream = events(progressCall(c));
      const progress = stream.find((e) => e.data?.includes('notifications/progress')) as SseItem;
      const result = stream.find((e) => e.data?.includes('"result"')) as SseItem;
      stream.push({ ...progress, at: result.at + 1 });
    },
  ],
  [
    'updated-only-if-subscribed',
    (c) => {
      const get = c.interactions.find((i) => i.request.method === 'GET') as Interaction;
      const last = events(get).at(-1) as SseItem;
      events(get).push(
        withData(
          { ...last, at: last.at + 1 },
          { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://never-subscribed' } },
        ),
      );
    },
  ],
  [
    'logging-at-least-error',
    (c) => {
      const list = byRequest(c, 'tools/list');
      list.request.body = { json: { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'error' } } };
      const get = c.interactions.find((i) => i.request.method === 'GET') as Interaction;
      const last = events(get).at(-1) as SseItem;
      events(get).push(
        withData(
          { ...last, at: (list.timing.end ?? list.timing.start) + 5 },
          { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'below the level' } },
        ),
      );
    },
  ],
];

describe('each rule of mcp/streamable-http fails on a recording that breaks it', () => {
  it('covers every rule of the pack', () => {
    expect(BREAKS.map(([rule]) => rule).sort()).toEqual(
      mcpStreamableHttp.rules
        .map((r) => r.name)
        .filter((n) => !n.startsWith('logging-at-least-') || n === 'logging-at-least-error')
        .sort(),
    );
  });

  it.each(BREAKS)('%s', async (rule, breakIt) => {
    const c = await real();
    breakIt(c);
    expect(violations(c).map((v) => v.rule)).toContain(rule);
  });

  it('every logging level: a message below the level set is a violation, one at it is not', async () => {
    const levels = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
    for (const [n, level] of levels.slice(1).entries()) {
      for (const [sent, broken] of [
        [levels[n], true],
        [level, false],
      ] as const) {
        const c = await real();
        BREAKS.find(([r]) => r === 'logging-at-least-error')?.[1](c);
        byRequest(c, 'logging/setLevel').request.body = { json: { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level } } };
        const get = c.interactions.find((i) => i.request.method === 'GET') as Interaction;
        const last = events(get).at(-1) as SseItem;
        events(get)[events(get).length - 1] = withData(last, {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: sent, data: 'x' },
        });
        expect(
          violations(c).some((v) => v.rule === `logging-at-least-${level}`),
          `${sent} after ${level}`,
        ).toBe(broken);
      }
    }
  });

  it('a notification that carries an id, and a result not of its method’s shape, fail the payload schemas', async () => {
    const c = await real();
    const get = c.interactions.find((i) => i.request.method === 'GET') as Interaction;
    const n = events(get).findIndex((e) => e.data?.includes('notifications/message'));
    events(get)[n] = withData(events(get)[n] as SseItem, { ...message(events(get)[n] as SseItem), id: 7 });
    const list = events(byRequest(c, 'tools/list'));
    const r = list.findIndex((e) => e.data?.includes('"result"'));
    list[r] = withData(list[r] as SseItem, { jsonrpc: '2.0', id: 1, result: { tools: 'none' } });
    const payload = violations(c).filter((v) => v.rule === 'payload-schema');
    expect(payload.map((v) => v.message).sort()).toEqual([
      'notifications/message data: a notification carries no id',
      expect.stringMatching(/^response to tools\/list result\.tools: /),
    ]);
  });
});

describe('a request the transport refuses is no session message', () => {
  /** The simulator's session probe: a ping after DELETE, refused with 404 as the spec asks. */
  async function afterDelete(): Promise<{ c: Cassette; ping: Interaction }> {
    const c = structuredClone(await loadCassette('cassettes/mcp/session.yaml'));
    return { c, ping: c.interactions.find((i) => i.response?.status === 404) as Interaction };
  }

  it('refused with 404, or with the 400 and id-less error server-everything sends, the ping needs no answer', async () => {
    for (const status of [404, 400]) {
      const { c, ping } = await afterDelete();
      (ping.response as NonNullable<Interaction['response']>).status = status;
      ping.response = {
        ...(ping.response as NonNullable<Interaction['response']>),
        body: { json: { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' } } },
      };
      expect(violations(c), String(status)).toEqual([]);
    }
  });

  it('taken with a 200 and left unanswered, it breaks the first rule', async () => {
    const { c, ping } = await afterDelete();
    ping.response = { ...(ping.response as NonNullable<Interaction['response']>), status: 200, body: { text: '' } };
    expect(violations(c).map((v) => v.rule)).toContain('request-answered-or-cancelled');
  });
});

describe('session ids only a refusal named', () => {
  it('a 400 that hands out a fresh id (the Python SDK to a request without one) and a 404 that echoes the unknown id open no session', async () => {
    const c = structuredClone(await loadCassette('cassettes/mcp/session.yaml'));
    const refused = c.interactions.filter((i) => (i.response?.status ?? 0) >= 400);
    expect(refused.length).toBeGreaterThan(0);
    for (const [n, i] of refused.entries())
      (i.response as NonNullable<Interaction['response']>).headers['mcp-session-id'] = `never-issued-${n}`;
    const checked = verifyCassette(c, 'session.yaml', [mcpStreamableHttp]);
    expect(checked.rules.flatMap((r) => r.violations)).toEqual([]);
  });
});

describe('a tool that lists an outputSchema returns structuredContent', () => {
  /** The FastMCP server's echo: tools/list gives it an outputSchema, and its call's result is structured. */
  async function echoCall(change: (result: Record<string, unknown>) => void): Promise<string[]> {
    const c = structuredClone(await loadCassette('cassettes/mcp-fastmcp-real/tool_call.yaml'));
    const call = byRequest(c, 'tools/call');
    const stream = events(call);
    const n = stream.findIndex((e) => e.data?.includes('"result"'));
    const answer = message(stream[n] as SseItem) as { result: Record<string, unknown> };
    change(answer.result);
    const { raw: _raw, ...item } = stream[n] as SseItem;
    stream[n] = withData(item as SseItem, answer);
    return violations(c)
      .filter((v) => v.rule === 'payload-schema')
      .map((v) => v.message);
  }

  it('holds as recorded, and for a failed call (isError) that has none', async () => {
    expect(await echoCall(() => {})).toEqual([]);
    expect(
      await echoCall((r) => {
        delete r.structuredContent;
        r.isError = true;
      }),
    ).toEqual([]);
  });

  it('fails a successful call without it, naming the tool', async () => {
    expect(await echoCall((r) => delete r.structuredContent)).toEqual([
      'response to tools/call result: tool echo lists an outputSchema, but its result has no structuredContent',
    ]);
  });
});
