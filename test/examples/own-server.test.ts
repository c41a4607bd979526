import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../helpers/cli.js';

/**
 * A team's own agent server, driven through the CLI as its users would: the
 * family lives in examples/own-server (its tapedeck.config.ts, found from the
 * working folder), and nothing under src/ knows it.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'own-server');
const bench = (args: string[]) => runBench(args, { cwd: EXAMPLE });

/** The example's server as its own process, `--changed` for its next release; stopped by PID. */
async function startServer(changed: boolean): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(EXAMPLE, 'server.mjs'), ...(changed ? ['--changed'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  servers.push(child);
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /^listening on (\S+)\n/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server.mjs exited (${code}) before listening`)));
  });
  return { url, child };
}

const servers: ChildProcess[] = [];
let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'tapedeck-own-server-'));
});
afterAll(async () => {
  for (const child of servers) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  await rm(out, { recursive: true, force: true });
});

describe('your own server is a family: examples/own-server through bench', () => {
  it('bench record --target records it from its simulator, with the verdicts of its own probes', async () => {
    const r = await bench(['record', '--target', 'echo-agent', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/basic_turn\s+P0\s+SUPPORTED\s+✓ SUPPORTED/);
    expect(r.stdout).toMatch(/cancel\s+P1\s+SUPPORTED\s+✓ SUPPORTED/);
    expect((await readdir(join(out, 'echo-agent'))).sort()).toEqual(['basic_turn.yaml', 'cancel.yaml', 'manifest.yaml']);
    expect(await readFile(join(out, 'echo-agent', 'manifest.yaml'), 'utf8')).toMatch(/^suite: "echo-agent"$/m);
  });

  it("bench record --help and --target name it beside the built-in families, from the project's config", async () => {
    const help = await bench(['record', '--help']);
    // Commander wraps the option's text at the terminal's width, so the words are compared, not the lines.
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/echo-agent: the echo agent of examples\/own-server/);
    expect(help.stdout).toContain('$ bench record --target echo-agent');
    const elsewhere = await runBench(['record', '--target', 'echo-agent', '--out', out], { cwd: ROOT });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr.trim().split('\n')).toHaveLength(1);
    expect(elsewhere.stderr).toMatch(/--target "echo-agent": use one of .*/);
  });

  it('bench replay-check runs its probes against their cassettes, offline', async () => {
    const r = await bench(['replay-check', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('2 passed, 0 failed');
  });

  it('bench verify checks the cassettes against its own pack, and fails a stream that breaks it', async () => {
    const ok = await bench(['verify', out]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/checked 2 cassettes, .* no violations/);
    const broken = join(out, 'broken');
    await mkdir(broken);
    const text = await readFile(join(out, 'echo-agent', 'basic_turn.yaml'), 'utf8');
    await writeFile(join(broken, 'basic_turn.yaml'), text.replace('event: "turn.completed"', 'event: "turn.started"'));
    const bad = await bench(['verify', broken]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('echo-agent/stream');
    expect(bad.stdout).toContain('echo-agent/stream started-once: a second turn.started');
    // The probe's client closes its stream once the turn ends: the missing end is not observed, not a violation.
    expect(bad.stdout).toContain('echo-agent/stream one-end-last: not observed: no terminal event');
  });

  it('bench drift names what the changed copy of the server changed, and nothing for the same server', async () => {
    const changed = await startServer(true);
    const drift = await bench(['drift', '--baseline', join(out, 'echo-agent'), '--server', changed.url, '--target', 'echo-agent']);
    expect(drift.code, drift.stderr).toBe(1);
    expect(drift.stdout).toContain('[breaking] message.delta: event type message.delta disappeared');
    expect(drift.stdout).toContain('[breaking] message.chunk: event type message.chunk appeared');
    expect(drift.stdout).toContain('[breaking] POST /v1/sessions: status 201 -> 200');
    const same = await startServer(false);
    const none = await bench(['drift', '--baseline', join(out, 'echo-agent'), '--server', same.url, '--target', 'echo-agent']);
    expect(none.code, none.stdout + none.stderr).toBe(0);
    expect(none.stdout).toContain('0 breaking, 0 notable, 0 info');
  });

  it('bench fuzz throws legal variations of its streams at its probes, and every verdict holds', async () => {
    const r = await bench(['fuzz', '--cassettes', join(out, 'echo-agent'), '--runs', '15', '--seed', '7']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('2 probes, 30 variations');
  });

  it('bench timeline draws its cassette', async () => {
    const page = join(out, 'basic_turn.html');
    const r = await bench(['timeline', join(out, 'echo-agent', 'basic_turn.yaml'), '-o', page]);
    expect(r.code, r.stderr).toBe(0);
    const html = await readFile(page, 'utf8');
    expect(html).toContain('turn.completed');
    expect(html).toContain('/v1/sessions/s1/events');
  });

  it('nothing under src/ names the example: the family is all in its own folder', async () => {
    const hits: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) await walk(path);
        else if ((await readFile(path, 'utf8')).includes('echo-agent')) hits.push(path);
      }
    };
    await walk(join(ROOT, 'src'));
    expect(hits).toEqual([]);
  });
});
