import { afterEach, describe, expect, it } from 'vitest';
import { type LongRunning, runBench, startBench } from '../helpers/cli.js';

const running: LongRunning[] = [];
afterEach(() => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
});

describe('bench replay', () => {
  it('serves a recorded harness folder, logs one line per request, and exits cleanly on SIGTERM', async () => {
    const replay = await startBench(['replay', '--cassette', 'cassettes/kiro-native', '--port', '0']);
    running.push(replay);
    const health = await fetch(`${replay.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const miss = await fetch(`${replay.url}/nowhere`);
    expect(miss.status).toBe(400); // not 5xx: common clients do not retry it
    expect(((await miss.json()) as { error: { code: string } }).error.code).toBe('tapedeck_unmatched_request');
    await replay.waitForStderr('no recorded interaction matches GET /nowhere');
    replay.child.kill('SIGTERM');
    expect(await replay.exit()).toBe(1);
    expect(replay.stderr()).toContain('bench replay: GET /health → basic_turn.yaml #1 200\n');
  });

  it('answers 404 for unknown requests in lenient mode and exits 0', async () => {
    const replay = await startBench(['replay', '--cassette', 'cassettes/kiro-native/basic_turn.yaml', '--lenient', '--quiet']);
    running.push(replay);
    const miss = await fetch(`${replay.url}/nowhere`);
    expect(miss.status).toBe(404);
    expect(((await miss.json()) as { error: { code: string } }).error.code).toBe('tapedeck_no_recording');
    replay.child.kill('SIGTERM');
    expect(await replay.exit()).toBe(0);
  });

  it('refuses a bad timing mode and a missing cassette in one line', async () => {
    const t = await runBench(['replay', '--cassette', 'cassettes/kiro-native', '--timing', 'fast']);
    expect(t.stderr).toBe('bench: --timing "fast" is not a timing mode; use instant, realtime or scaled:<factor> (e.g. scaled:0.1)\n');
    expect(t.code).toBe(2);
    const m = await runBench(['replay', '--cassette', 'nope/']);
    expect(m.stderr).toBe('bench: --cassette nope/: no such file or folder\n');
    expect(m.code).toBe(2);
  });
});

describe('bench replay-check', () => {
  it('reproduces every recorded verdict offline and says so', async () => {
    const r = await runBench(['replay-check', 'cassettes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ok   cursor-native basic_turn: SUPPORTED\n');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('60 passed, 0 failed');
  });
});
