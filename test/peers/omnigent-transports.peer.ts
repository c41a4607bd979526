import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCassette } from '../../src/cassette/index.js';
import { familyById, type PeerSpec } from '../../src/families/index.js';
import type { MockModel } from '../../src/mock-model/index.js';
import { type PeerServer, startFamilyMockModel, startPeer } from '../../src/probing/index.js';
import { benchProxyUnderWrapper, benchReplayOf, runBench } from '../helpers/cli.js';
import { keepInCorpus, replaysAsLive } from '../helpers/corpus.js';

/**
 * omnigent 0.19.1's own native-server transports, the Python clients its codex-native and opencode-native
 * harnesses drive the real servers with: a turn, an interrupt, (opencode) a restart mid-turn with a second session
 * beside it, and a second turn, against the real server, through `bench proxy` under a wrapper, and against `bench
 * replay` of that recording, instant and realtime. The client's view is the same every time, three rounds over, and
 * each recording verifies clean. (The in-process undici and MSW doors serve Node clients; these clients are Python.)
 */

const run = promisify(execFile);
const HERE = import.meta.dirname;
const PYTHON = join(HERE, 'python', 'omnigent', '.venv', 'bin', 'python');
const BINARIES = {
  codex: join(HERE, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex'),
  opencode: join(HERE, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode'),
};
const ROUNDS = 3;

/** opencode as omnigent starts it: behind a server password (Basic auth on every request), which a recording redacts. */
const codexPeer = familyById('codex').peer as PeerSpec;
const opencodePeer = familyById('opencode').peer as PeerSpec;
const PASSWORD = `oc-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
const passwordedOpencode: PeerSpec = {
  ...opencodePeer,
  prepare: async (root, context) => {
    const launch = await opencodePeer.prepare(root, context);
    return { ...launch, env: { ...launch.env, OPENCODE_SERVER_PASSWORD: PASSWORD } };
  },
};

const FAMILIES = [
  {
    name: 'codex',
    spec: codexPeer,
    binary: BINARIES.codex,
    driver: 'omnigent_codex_transport.py',
    // The transport speaks WebSocket; proxy and replay print their http:// address.
    url: (base: string) => base.replace(/^http:/, 'ws:'),
    password: [] as string[],
  },
  {
    name: 'opencode',
    spec: passwordedOpencode,
    binary: BINARIES.opencode,
    driver: 'omnigent_opencode_transport.py',
    url: (base: string) => base,
    password: [PASSWORD],
  },
] as const;

beforeAll(async () => {
  for (const binary of [PYTHON, ...Object.values(BINARIES)])
    if (!existsSync(binary)) throw new Error(`${binary} is not installed; run npm run test:peers, which installs test/peers first`);
});

describe.each(FAMILIES)("omnigent's own $name transport", (family) => {
  let model: MockModel;
  let peer: PeerServer;
  let workspace: string;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    model = await startFamilyMockModel();
    peer = await startPeer(family.name, family.spec, { binary: family.binary, modelBaseUrl: model.baseUrl });
    // One workspace path every run: the transports send it, and the committed corpus recording is replayed to them.
    workspace = join(tmpdir(), 'tapedeck-transports', family.name);
    await mkdir(workspace, { recursive: true });
  });
  afterAll(async () => {
    for (const clean of cleanups.reverse()) await clean();
    await peer?.close();
    await model?.close();
  });

  /** One flow of the transport against `base`, its view as JSON; `password` as the client was given it. */
  async function flow(base: string, password: readonly string[] = family.password): Promise<unknown> {
    const script = join(HERE, 'clients', family.driver);
    const { stdout } = await run(PYTHON, [script, family.url(base), workspace, ...password], { timeout: 120_000 });
    return JSON.parse(stdout);
  }

  let reference: unknown;
  it(`sees the same turn, interrupt and second turn live, through bench proxy and from bench replay, ${ROUNDS} of ${ROUNDS}`, async () => {
    reference = await flow(peer.url);
    for (let round = 1; round <= ROUNDS; round++) {
      expect(await flow(peer.url), `round ${round}, live`).toEqual(reference);
      const proxy = await benchProxyUnderWrapper(peer.url.replace(/^ws:/, 'http:'), `${family.name}-${round}.yaml`, cleanups);
      expect(await flow(proxy.url), `round ${round}, through bench proxy`).toEqual(reference);
      process.kill(proxy.bench.wrapperPid, 'SIGTERM');
      await proxy.bench.ended;
      const text = await readFile(proxy.file, 'utf8');
      if (round === 1) await keepInCorpus(proxy.file, `omnigent-${family.name}-transport.yaml`);
      if (family.password.length > 0) expect(text).not.toContain(PASSWORD);
      expect((await runBench(['scan', proxy.file])).code).toBe(0);
      // Another password on replay: the recording holds none, and the replayer redacts the live one the same way.
      // The recording of another client's traffic keeps every contract its family's packs state.
      const verified = await runBench(['verify', proxy.file]);
      expect(verified.code, verified.stdout).toBe(0);
      const password = family.password.length > 0 ? ['another-password'] : [];
      for (const timing of ['instant', 'realtime']) {
        const replay = await benchReplayOf(proxy.file, cleanups, ['--timing', timing]);
        expect(await flow(replay.url, password), `round ${round}, from bench replay --timing ${timing}`).toEqual(reference);
        replay.child.kill('SIGTERM');
        await replay.exit();
      }
      if (family.name === 'codex') expectFramesInOrder(text, reference);
    }
  });

  it('sees from the committed corpus recording what it sees live: instant, realtime, and realtime with every core busy', async () => {
    expect(reference).toBeDefined();
    const password = family.password.length > 0 ? ['another-password'] : [];
    await replaysAsLive(`omnigent-${family.name}-transport.yaml`, (url) => flow(url, password), reference, cleanups);
  });
});

/**
 * The proxy kept each connection's frames in the order the server sent them: the recorded server frames of the
 * connection that holds the thread are, method by method, what the client got on it live.
 */
function expectFramesInOrder(text: string, view: unknown): void {
  const cassette = parseCassette(text, 'codex.yaml');
  const methodOf = (f: { json?: unknown; text?: string | undefined }) => {
    const json = f.json ?? (f.text ? (JSON.parse(f.text) as unknown) : undefined);
    return json && typeof json === 'object' && 'method' in json ? String((json as { method: unknown }).method) : undefined;
  };
  const owner = cassette.interactions.find((i) =>
    i.response?.websocket?.frames.some((f) => f.from === 'client' && methodOf(f) === 'thread/start'),
  );
  const sent = (owner?.response?.websocket?.frames ?? []).flatMap((f) => {
    const method = f.from === 'server' ? methodOf(f) : undefined;
    return method ? [method] : [];
  });
  const collapsed = sent.filter((m, k) => m !== sent[k - 1]);
  expect(collapsed).toEqual((view as { notifications: { owner: string[] } }).notifications.owner);
}
