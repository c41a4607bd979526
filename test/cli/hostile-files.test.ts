import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, serializeCassette } from '../../src/cassette/index.js';
import { testCassette } from '../helpers/cassettes.js';
import { runBench, startBench } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tempDir = () => mkdtemp(join(tmpdir(), 'tapedeck-hostile-'));

/** A valid cassette with one JSON answer and one SSE event, both to be replaced by hand edits. */
function plain(): Cassette {
  return testCassette([
    {
      seq: 1,
      request: { method: 'GET', path: '/health', headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { status: 'ok' } } },
      timing: { start: 0, headers: 1, end: 2 },
    },
    {
      seq: 2,
      request: { method: 'GET', path: '/events', headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        stream: { events: [{ at: 3, after: 2, event: 'status', data: 'PLACEHOLDER' }], end: 'server-closed' },
      },
      timing: { start: 2, headers: 3, end: 4 },
    },
  ]);
}

/** The cassette hand-edited: its JSON answer `levels` deep, or its SSE data a JSON text that deep; the digest line gone with the edit. */
function handEdited(levels: number, where: 'body' | 'sse-data'): string {
  const deep = `${'['.repeat(levels)}${']'.repeat(levels)}`;
  const text = serializeCassette(plain()).split('\n').slice(1).join('\n');
  return where === 'body' ? text.replace('json: {"status":"ok"}', `json: ${deep}`) : text.replace('"PLACEHOLDER"', JSON.stringify(deep));
}

const oneLine = (stderr: string) => stderr.trim().split('\n');

describe('readers a file cannot crash', () => {
  for (const levels of [3_000, 10_000, 100_000])
    it(`refuse JSON ${levels} levels deep with one line naming file:line and exit 2: scan, verify, inspect, timeline, replay`, async () => {
      const dir = await tempDir();
      const file = join(dir, 'deep.yaml');
      await writeFile(file, handEdited(levels, 'body'));
      for (const args of [
        ['scan', file],
        ['verify', file],
        ['inspect', file],
        ['timeline', file, '--out', join(dir, 't.html')],
        ['replay', '--cassette', file, '--port', '0'],
      ]) {
        const result = await runBench(args);
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
        expect(oneLine(result.stderr), args[0]).toEqual([expect.stringMatching(/deep\.yaml:\d+ nests deeper than 200 levels/)]);
      }
    }, 60_000);

  it('reads JSON too deep to walk in an SSE data line as text: verify and timeline finish, replay sends it back as recorded', async () => {
    const dir = await tempDir();
    const file = join(dir, 'deep-data.yaml');
    await writeFile(file, handEdited(100_000, 'sse-data'));
    expect([0, 1]).toContain((await runBench(['verify', file, '--pack', 'omnigent/stream'])).code);
    const timeline = await runBench(['timeline', file, '--out', join(dir, 't.html')]);
    expect(timeline.code, timeline.stderr).toBe(0);
    const replay = await startBench(['replay', '--cassette', file, '--port', '0']);
    cleanups.push(() => replay.child.kill('SIGKILL'));
    const text = await (await fetch(`${replay.url}/events`)).text();
    expect(text).toContain('['.repeat(1000));
  }, 60_000);

  it('answers a live request whose JSON body is 100k levels deep, and the next request too', async () => {
    const dir = await tempDir();
    const file = join(dir, 'plain.yaml');
    await writeFile(file, serializeCassette(plain()));
    const replay = await startBench(['replay', '--cassette', file, '--port', '0']);
    cleanups.push(() => replay.child.kill('SIGKILL'));
    const deep = await fetch(`${replay.url}/health`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    });
    expect(deep.status).toBeGreaterThanOrEqual(400);
    expect(await (await fetch(`${replay.url}/health`)).json()).toEqual({ status: 'ok' });
  }, 60_000);
});

describe('a folder walk stays where it was sent', () => {
  it('bench scan does not follow a link out of the folder: one line naming the link, exit 2', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'cassettes'));
    await writeFile(join(dir, 'cassettes', 'a.yaml'), serializeCassette(plain()));
    await symlink('/etc/passwd', join(dir, 'cassettes', 'sym'));
    const result = await runBench(['scan', join(dir, 'cassettes')]);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toEqual([
      expect.stringMatching(/cassettes\/sym links to \/etc\/passwd, outside the folder given: it is not followed/),
    ]);
    expect(result.stdout).not.toContain('root:');
  });

  it('follows a link that stays inside the folder', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'real'));
    await writeFile(join(dir, 'real', 'a.yaml'), serializeCassette(plain()));
    await symlink(join(dir, 'real'), join(dir, 'alias'));
    const result = await runBench(['scan', dir, '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).files).toBe(2);
  });

  for (const [kind, make] of [
    ['a link to itself', (dir: string) => symlink(join(dir, 'self'), join(dir, 'self'))],
    [
      'a folder that links to its parent',
      async (dir: string) => {
        await mkdir(join(dir, 'sub'));
        await symlink(dir, join(dir, 'sub', 'up'));
      },
    ],
  ] as const)
    it(`reports ${kind} as a loop in one line, exit 2: scan and verify`, async () => {
      const dir = await tempDir();
      await writeFile(join(dir, 'a.yaml'), serializeCassette(plain()));
      await make(dir);
      for (const command of ['scan', 'verify']) {
        const result = await runBench([command, dir]);
        expect(result.code, `${command}: ${result.stderr}`).toBe(2);
        expect(oneLine(result.stderr), command).toEqual([expect.stringMatching(/symbolic link loop|leads back to itself/)]);
      }
    });
});

describe('a redaction pattern that backtracks catastrophically', () => {
  it('is refused when the config loads, in one line that says why, before any recording', async () => {
    const dir = await tempDir();
    const config = join(dir, 'tapedeck.config.json');
    await writeFile(config, JSON.stringify({ redact: { patterns: ['ORD-\\d{8}', '(a+)+$'] } }));
    const file = join(dir, 'c.yaml');
    const result = await runBench(['proxy', '--target', 'http://127.0.0.1:9', '--cassette', file, '--config', config]);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toEqual([expect.stringMatching(/redact\.patterns.*"\(a\+\)\+\$" nests one repetition inside another/)]);
    expect(existsSync(`${file}.journal`)).toBe(false);
  });
});

describe('a file over the size tapedeck reads', () => {
  it('is refused from its size, before it is read: inspect, verify, scan', async () => {
    const dir = await tempDir();
    const file = join(dir, 'huge.yaml');
    // A sparse file: 600 MiB long, nothing written.
    await writeFile(file, '');
    await truncate(file, 600 * 1024 * 1024);
    cleanups.push(() => rm(file, { force: true }));
    for (const command of ['inspect', 'verify', 'scan']) {
      const result = await runBench([command, file]);
      expect(result.code, command).toBe(2);
      expect(oneLine(result.stderr), command).toEqual([expect.stringMatching(/huge\.yaml is 600 MiB, over the 512 MiB tapedeck reads/)]);
    }
  });
});

describe('junk refused early', () => {
  it('a million null interactions are refused at the first, by line, in a few node start-ups rather than a parse of all', async () => {
    const dir = await tempDir();
    const junk = join(dir, 'nulls.yaml');
    const head =
      'version: 1\nmeta:\n  recorder: "x"\n  target: "http://127.0.0.1:1"\n  recordedAt: "2026-01-01T00:00:00.000Z"\ninteractions:\n';
    await writeFile(junk, head + '  - null\n'.repeat(1_000_000));
    const small = join(dir, 'small.yaml');
    await writeFile(small, serializeCassette(plain()));
    const timed = async (file: string) => {
      const started = performance.now();
      const result = await runBench(['inspect', file]);
      return { result, ms: performance.now() - started };
    };
    const baseline = await timed(small);
    expect(baseline.result.code).toBe(0);
    for (const command of ['inspect', 'verify', 'scan']) {
      const started = performance.now();
      const result = await runBench([command, junk]);
      const ms = performance.now() - started;
      if (command === 'scan') expect(result.code).toBe(0);
      else
        expect(oneLine(result.stderr), command).toEqual([
          expect.stringMatching(/nulls\.yaml:7 interactions\[0\]: expected object, received null/),
        ]);
      // A parse of the whole file took 40 times a small inspect (scan 80): now a few.
      expect(ms / baseline.ms, command).toBeLessThan(12);
    }
  }, 120_000);
});
