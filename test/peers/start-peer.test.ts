import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexPeer } from '../../src/families/codex/peer.js';
import { opencodePeer } from '../../src/families/opencode/peer.js';
import { PeerStartError, processesUnder, startPeer } from '../../src/probing/index.js';

const scripts: string[] = [];
afterAll(async () => {
  for (const dir of scripts) await rm(dir, { recursive: true, force: true });
});

/** A stand-in vendor binary: a shell script that answers --version and otherwise runs `body`. */
async function fakeBinary(body: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-fake-peer-'));
  scripts.push(dir);
  const file = join(dir, 'codex');
  // --version notes the HOME it ran under beside the script, so a test can see it was the isolated one.
  await writeFile(
    file,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo "$HOME" > "${dir}/home-at-version"; echo "fake-cli 9.9.9"; exit 0; fi\n${body}\n`,
  );
  await chmod(file, 0o755);
  return file;
}

const peerRoots = async (kind = 'codex') => (await readdir(tmpdir())).filter((n) => n.startsWith(`tapedeck-peer-${kind}-`));

describe('startPeer', () => {
  it('stops the whole process group and what escaped it, then removes its HOME', async () => {
    // A child in the group, a child in a session of its own (out of the group), and the server itself.
    const binary = await fakeBinary('sleep 300 &\nsetsid sleep 301 &\necho "  listening on: ws://127.0.0.1:9" >&2\nexec sleep 302');
    const peer = await startPeer('codex', codexPeer, { binary, modelBaseUrl: 'http://127.0.0.1:9/v1' });
    expect([peer.url, peer.version]).toEqual(['ws://127.0.0.1:9', 'fake-cli 9.9.9']);
    // Even asking for the version happened under the throwaway HOME, never the caller's.
    expect((await readFile(join(binary, '..', 'home-at-version'), 'utf8')).trim()).toBe(join(peer.root, 'home'));
    // The config went into the throwaway CODEX_HOME, naming the mock model.
    expect(await readdir(join(peer.root, 'codex'))).toEqual(['config.toml']);
    await expect.poll(() => processesUnder(peer.root).then((p) => p.length)).toBe(3);
    await peer.close();
    expect(await processesUnder(peer.root)).toEqual([]);
    expect((await peerRoots()).includes(peer.root.split('/').at(-1) as string)).toBe(false);
  });

  it('a server that exits before listening is a PeerStartError carrying its stderr, and nothing is left behind', async () => {
    const before = await peerRoots();
    const binary = await fakeBinary('echo "error: no config" >&2\nexit 3');
    const err = await startPeer('codex', codexPeer, { binary, modelBaseUrl: 'http://127.0.0.1:9/v1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PeerStartError);
    expect((err as Error).message).toBe(
      'codex exited (code 3) before listening: error: no config; check the binary runs on its own (codex --version)',
    );
    expect(await peerRoots()).toEqual(before);
  });

  it('a binary that cannot run is a PeerStartError naming it, and its HOME is removed', async () => {
    const before = await peerRoots('opencode');
    const err = await startPeer('opencode', opencodePeer, { binary: '/nonexistent/opencode', modelBaseUrl: 'http://x/v1' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PeerStartError);
    expect((err as Error).message).toMatch(/^\/nonexistent\/opencode --version failed \(.*\); give the path of the opencode binary$/);
    expect(await peerRoots('opencode')).toEqual(before);
  });

  it('a server that exits while its readiness is asked is a PeerStartError at once, and its companions and root are gone', async () => {
    const START_MS = 120_000;
    const binary = await fakeBinary('echo "  listening on: ws://127.0.0.1:9" >&2\nsleep 1\nexit 4');
    let root = '';
    const started = performance.now();
    const err = await startPeer(
      'codex',
      {
        ...codexPeer,
        prepare: async (r, o) => {
          root = r;
          return {
            ...(await codexPeer.prepare(r, o)),
            companions: () => [{ command: '/bin/sh', args: ['-c', 'sleep 300'], env: { ...o.baseEnv } }],
            isReady: async () => false,
          };
        },
      },
      { binary, modelBaseUrl: 'http://127.0.0.1:9/v1', startMs: START_MS },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PeerStartError);
    expect((err as Error).message).toBe('codex exited (code 4) before it was ready');
    // Long before the start timeout: the exit is what ended the wait.
    expect(performance.now() - started).toBeLessThan(START_MS / 2);
    expect(await processesUnder(root)).toEqual([]);
    expect(existsSync(root)).toBe(false);
  });
});
