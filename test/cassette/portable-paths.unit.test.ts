import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Body,
  type Cassette,
  folderRestorer,
  type Headers,
  type Interaction,
  type MachineFolders,
  makePortable,
  placeholderMapper,
} from '../../src/cassette/index.js';
import { cassetteArb, machineTextArb } from './arbitraries.js';

const ana: MachineFolders = { workspace: '/work/main', home: '/home/ana', tmp: '/tmp' };

describe('portable paths', () => {
  const replace = placeholderMapper(ana).text;

  it('names the workspace, home and temp folders by placeholder', () => {
    expect(replace('/work/main/cassettes/x.yaml')).toBe('<workspace>/cassettes/x.yaml');
    expect(replace('{"workspace":"/tmp/tapedeck-bench/kiro-native"}')).toBe('{"workspace":"<tmp>/tapedeck-bench/kiro-native"}');
    expect(replace('cd /home/ana && ls')).toBe('cd <home> && ls');
  });

  it('replaces whole path prefixes only', () => {
    expect(replace('/var/tmp/x')).toBe('/var/tmp/x');
    expect(replace('/tmpfoo/x')).toBe('/tmpfoo/x');
    expect(replace('/work/mainline')).toBe('/work/mainline');
  });

  it('prefers the longest folder when one holds another', () => {
    const nested = placeholderMapper({ workspace: '/home/ana/project', home: '/home/ana', tmp: '/tmp' }).text;
    expect(nested('/home/ana/project/a /home/ana/b')).toBe('<workspace>/a <home>/b');
  });

  it('names the host only where it stands as a host: a URL authority or a host-named field', () => {
    const m = placeholderMapper({ ...ana, host: 'vm' });
    expect(m.text('{"serverName":"vm"}')).toBe('{"serverName":"<host>"}');
    expect(m.text('see http://vm:8080/x and ws://user@vm/y')).toBe('see http://<host>:8080/x and ws://user@<host>/y');
    expect(m.value('vm', 'hostname')).toBe('<host>');
    // As a word, a key or a value of any other field it is data, not the machine.
    expect(m.text('{"vm":1,"kind":"vm","text":"a vm is not a host"}')).toBe('{"vm":1,"kind":"vm","text":"a vm is not a host"}');
    expect(m.value('vm', 'kind')).toBe('vm');
    expect(m.key('vm')).toBe('vm');
    expect(m.text('http://vmware.com/ http://a.vm/')).toBe('http://vmware.com/ http://a.vm/');
  });

  it("names the host where a host's own object gives it as its name, in a body or in a JSON text", () => {
    const m = placeholderMapper({ ...ana, host: 'vm' });
    expect(m.value('vm', 'name', 'hosts')).toBe('<host>');
    expect(m.value('vm', 'name', 'agents')).toBe('vm');
    expect(m.text('{"hosts":[{"host_id":"h1","name":"vm"}]}')).toBe('{"hosts":[{"host_id":"h1","name":"<host>"}]}');
    expect(m.text('{"agents":[{"name":"vm"}]}')).toBe('{"agents":[{"name":"vm"}]}');
    const body = makePortable(
      {
        version: 1,
        meta: { recorder: 't', target: 't', recordedAt: 't' },
        interactions: [
          {
            seq: 1,
            request: { method: 'GET', path: '/v1/hosts', headers: {} },
            response: { status: 200, headers: {}, body: { json: { hosts: [{ name: 'vm', owner: 'vm' }] } } },
          },
        ],
      } as Cassette,
      { ...ana, host: 'vm' },
    ).interactions[0]?.response?.body;
    expect(body).toEqual({ json: { hosts: [{ name: '<host>', owner: 'vm' }] } });
  });

  it('leaves localhost and addresses alone: they name no machine', () => {
    expect(placeholderMapper({ ...ana, host: 'localhost' }).value('localhost', 'host')).toBe('localhost');
    expect(placeholderMapper({ ...ana, host: '10.0.0.1' }).value('10.0.0.1', 'host')).toBe('10.0.0.1');
  });

  it('escapes recorded text that already reads like a placeholder, and restores it exactly', () => {
    const m = placeholderMapper(ana);
    const restore = folderRestorer(ana);
    expect(m.text('<tmp> and /tmp/x and <<home>>')).toBe('<<tmp>> and <tmp>/x and <<<home>>>');
    expect(restore('<<tmp>> and <tmp>/x and <<<home>>>')).toBe('<tmp> and /tmp/x and <<home>>');
    expect(m.text('</tmp/x')).toBe('</tmp/x');
  });

  it('never rewrites request paths, which are the server names, not the machine', () => {
    const cassette = sampleWithPath('/app/items?dir=/app');
    const portable = makePortable(cassette, { workspace: '/app', home: '/root', tmp: '/v1', host: 'app' });
    expect(portable.interactions[0]?.request.path).toBe('/app/items?dir=/app');
  });

  // The host name is an input: CI machines are called `vm`, and `api`, `dev` or `app` are as likely.
  for (const host of ['vm', 'api', 'dev', 'app']) {
    it(`gives back every recorded byte on the recording machine (host ${host}), and all but provable names elsewhere`, () => {
      const here: MachineFolders = { workspace: `/${host}`, home: `/home/${host}`, tmp: '/tmp', host };
      const there: MachineFolders = { workspace: '/w/other', home: '/home/zed', tmp: '/var/tmp/x', host: 'elsewhere' };
      fc.assert(
        fc.property(cassetteArb, (cassette) => {
          const portable = makePortable(cassette, here);
          expect(restoreCassette(portable, here)).toEqual(cassette);
          // Placeholders stand only where the recording machine's own names stood.
          const elsewhere = restoreCassette(portable, there);
          expect(restoreCassette(makePortable(elsewhere, there), here)).toEqual(cassette);
        }),
        { numRuns: 150 },
      );
      fc.assert(
        fc.property(machineTextArb(here), (text) => {
          const m = placeholderMapper(here);
          expect(folderRestorer(here)(m.text(text))).toBe(text);
          expect(folderRestorer(here)(m.value(text, 'host'))).toBe(text);
          expect(folderRestorer(here)(m.key(text))).toBe(text);
        }),
        { numRuns: 500 },
      );
    });
  }
});

function sampleWithPath(path: string): Cassette {
  return {
    version: 1,
    meta: { recorder: 't', target: 'http://x', recordedAt: 'now' },
    interactions: [{ seq: 1, request: { method: 'GET', path, headers: {} }, response: { status: 200, headers: {} }, timing: { start: 0 } }],
  };
}

/** The cassette as replay restores it: bodies, header values, SSE data and WebSocket payloads (request paths never hold placeholders). */
function restoreCassette(cassette: Cassette, folders: MachineFolders): Cassette {
  const f = folderRestorer(folders);
  const json = (v: unknown): unknown =>
    typeof v === 'string'
      ? f(v)
      : Array.isArray(v)
        ? v.map(json)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [f(k), json(x)]))
          : v;
  const headers = (h: Headers): Headers => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.map(f) : f(v)]));
  const body = (b: Body | undefined): Body | undefined =>
    b === undefined ? b : 'json' in b ? { ...b, json: json(b.json) } : 'text' in b ? { ...b, text: f(b.text) } : b;
  return {
    ...cassette,
    interactions: cassette.interactions.map((i) => {
      const request = { ...i.request, headers: headers(i.request.headers), ...(i.request.body ? { body: body(i.request.body) } : {}) };
      if (!i.response) return { ...i, request };
      const r = i.response;
      return {
        ...i,
        request,
        response: {
          ...r,
          headers: headers(r.headers),
          ...(r.body ? { body: body(r.body) } : {}),
          ...(r.stream
            ? { stream: { ...r.stream, events: r.stream.events.map((e) => (e.data === undefined ? e : { ...e, data: f(e.data) })) } }
            : {}),
          ...(r.websocket
            ? {
                websocket: {
                  ...r.websocket,
                  frames: r.websocket.frames.map((fr) =>
                    fr.json !== undefined ? { ...fr, json: json(fr.json) } : fr.text !== undefined ? { ...fr, text: f(fr.text) } : fr,
                  ),
                },
              }
            : {}),
        },
      } as Interaction;
    }),
  };
}
