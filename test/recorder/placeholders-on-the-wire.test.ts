import { afterEach, describe, expect, it } from 'vitest';
import { type MachineFolders, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { startReplayServer } from '../../src/replayer/index.js';
import { startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// A CI machine called `vm` working in /app, whose server also says `vm` and `/app` as plain data.
const here: MachineFolders = { workspace: '/app', home: '/home/vm', tmp: '/tmp', host: 'vm' };
const there: MachineFolders = { workspace: '/srv/ci', home: '/home/zed', tmp: '/var/tmp', host: 'build-7' };
const BODIES: Record<string, string> = {
  '/app/words': '{"vm":{"kind":"vm","note":"a vm is not a host","path":"/application"}}',
  '/app/server': '{"serverName":"vm","cwd":"/app/work","url":"http://vm:8080/x"}',
  '/literal': '{"text":"<tmp> and <host> are just words here"}',
};

describe('placeholders on the wire (decision 0006)', () => {
  it('a recording made on a machine named vm replays its exact bytes there, and only the provable names elsewhere', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(BODIES[req.url ?? ''] ?? '{}');
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url, folders: here });
    for (const path of Object.keys(BODIES)) await (await fetch(`${proxy.url}${path}`)).text();
    const cassette = parseCassette(serializeCassette(await proxy.close()));
    expect(cassette.interactions.map((i) => i.request.path)).toEqual(Object.keys(BODIES));
    expect(cassette.interactions[1]?.response?.body).toEqual({
      json: { serverName: '<host>', cwd: '<workspace>/work', url: 'http://<host>:8080/x' },
    });

    const onVm = await startReplayServer([{ name: 'c.yaml', cassette }], { folders: here });
    const elsewhere = await startReplayServer([{ name: 'c.yaml', cassette }], { folders: there });
    cleanups.push(
      () => onVm.close(),
      () => elsewhere.close(),
    );
    for (const [path, body] of Object.entries(BODIES)) expect(await (await fetch(`${onVm.url}${path}`)).text()).toBe(body);
    expect(await (await fetch(`${elsewhere.url}/app/words`)).text()).toBe(BODIES['/app/words']);
    expect(await (await fetch(`${elsewhere.url}/literal`)).text()).toBe(BODIES['/literal']);
    expect(await (await fetch(`${elsewhere.url}/app/server`)).text()).toBe(
      '{"serverName":"build-7","cwd":"/srv/ci/work","url":"http://build-7:8080/x"}',
    );
  });
});
