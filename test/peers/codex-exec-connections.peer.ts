import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyById, type PeerSpec } from '../../src/families/index.js';

import { startFamilyMockModel, startPeer } from '../../src/probing/index.js';
import { type LongRunning, startBench } from '../helpers/cli.js';

/**
 * The vendor's own client, `codex exec --remote`, recorded through `bench proxy`
 * and replayed by `bench replay`: one connection per run, all on one path, each
 * opening with the same `initialize`. Start then resume, and two runs at once,
 * must each get back the session they were recorded in.
 */
const CODEX = join(
  import.meta.dirname,
  'node_modules',
  '@openai',
  'codex-linux-x64',
  'vendor',
  'x86_64-unknown-linux-musl',
  'bin',
  'codex',
);

interface ExecRun {
  code: number | null;
  stdout: string;
  thread: string;
}

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'tapedeck-codex-exec-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

/** One `codex exec --remote URL ...` run with its own CODEX_HOME; its stdout and the thread it reports. */
async function codexExec(url: string, home: string, args: string[]): Promise<ExecRun> {
  await mkdir(home, { recursive: true });
  return new Promise((resolve) => {
    const child = execFile(
      CODEX,
      ['exec', '--remote', url, '--skip-git-repo-check', ...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: home }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const thread = /^thread id: (\S+)$/m.exec(stderr)?.[1] ?? `(none; stderr: ${stderr.slice(-300)})`;
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, thread });
      },
    );
    child.stdin?.end();
  });
}

/** Start, resume that thread, then two runs at once: the flows a codex user makes against one app-server. */
async function flows(url: string, home: string, resumeOf?: string, resumeFirst = false) {
  const start = () => codexExec(url, join(home, 'a'), ['say hello']);
  const resume = (thread: string) => codexExec(url, join(home, 'b'), ['resume', thread, 'again please']);
  let started: ExecRun;
  let resumed: ExecRun;
  if (resumeFirst && resumeOf) {
    resumed = await resume(resumeOf);
    started = await start();
  } else {
    started = await start();
    resumed = await resume(resumeOf ?? started.thread);
  }
  const both = await Promise.all([codexExec(url, join(home, 'c'), ['first of two']), codexExec(url, join(home, 'd'), ['second of two'])]);
  return { started, resumed, both };
}

/** Stops a long-running bench by its PID and waits for it. */
async function stop(bench: LongRunning): Promise<number | null> {
  bench.child.kill('SIGTERM');
  return bench.exit();
}

const misses = (stderr: string) => stderr.split('\n').filter((l) => /no recorded|unmatched|never requested/i.test(l));

describe.each([
  ['the codex simulator', 'sim'],
  ['the real codex app-server', 'real'],
] as const)('codex exec --remote recorded through bench proxy from %s', (_title, kind) => {
  it('replays start then resume, resume then start, and two runs at once, each from its own recorded session', async () => {
    const dir = join(out, kind);
    await mkdir(dir, { recursive: true });
    const closers: (() => Promise<unknown>)[] = [];
    let target: string;
    if (kind === 'sim') {
      const sim = await startBench(['sim', '--target', 'codex']);
      closers.push(() => stop(sim));
      target = sim.url.replace(/^ws:/, 'http:');
    } else {
      const model = await startFamilyMockModel();
      const peer = await startPeer('codex', familyById('codex').peer as PeerSpec, { binary: CODEX, modelBaseUrl: model.baseUrl });
      closers.push(
        () => peer.close(),
        () => model.close(),
      );
      target = peer.url.replace(/^ws:/, 'http:');
    }
    const cassette = join(dir, 'codex-exec.yaml');
    let live: Awaited<ReturnType<typeof flows>>;
    try {
      const proxy = await startBench(['proxy', '--target', target, '--cassette', cassette]);
      live = await flows(proxy.url.replace(/^http:/, 'ws:'), join(dir, 'live'));
      expect(await stop(proxy)).toBe(0);
      expect(proxy.stderr()).toMatch(/wrote .*codex-exec\.yaml \(4 interactions\)/);
    } finally {
      for (const close of closers.reverse()) await close();
    }
    const runs = [live.started, live.resumed, ...live.both];
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(live.resumed.thread).toBe(live.started.thread);
    expect(new Set(runs.map((r) => r.thread)).size).toBe(3);

    // The server is gone: everything below comes from the cassette.
    for (const resumeFirst of [false, true]) {
      const replay = await startBench(['replay', cassette]);
      const again = await flows(replay.url.replace(/^http:/, 'ws:'), join(dir, `replay-${resumeFirst}`), live.started.thread, resumeFirst);
      expect(await stop(replay)).toBe(0);
      expect(misses(replay.stderr())).toEqual([]);
      expect([again.started, again.resumed]).toEqual([live.started, live.resumed]);
      // Two runs at once open alike; each gets the answers its own prompt was recorded with, and the two recorded threads between them.
      expect(again.both.map((r) => [r.code, r.stdout])).toEqual(live.both.map((r) => [r.code, r.stdout]));
      expect(again.both.map((r) => r.thread).sort()).toEqual(live.both.map((r) => r.thread).sort());
    }
  });
});
