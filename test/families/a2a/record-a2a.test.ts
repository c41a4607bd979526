import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startA2aSimulator } from '../../../src/families/a2a/simulator/server.js';
import { runBench, startBench } from '../../helpers/cli.js';

const run = promisify(execFile);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const verdicts = (stdout: string) => Object.fromEntries([...stdout.matchAll(/^(\w+)\s+P\d\s+\S+\s+\S+ (\w+)/gm)].map((m) => [m[1], m[2]]));

describe('bench record --target a2a', () => {
  it('records every probe on the simulator; the recordings verify clean, replay and survive fuzzing', async () => {
    const out = await mkdtemp(join(tmpdir(), 'tapedeck-a2a-'));
    const r = await runBench(['record', '--target', 'a2a', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.values(verdicts(r.stdout))).toEqual(Array(8).fill('SUPPORTED'));
    const verify = await runBench(['verify', join(out, 'a2a')]);
    expect(verify.stdout).toMatch(/checked 8 cassettes, .* against 9 rules: no violations/);
    expect(verify.code).toBe(0);
    const check = await runBench(['replay-check', out]);
    expect(check.stdout).toContain('8 passed, 0 failed');
    const fuzz = await runBench(['fuzz', '--cassettes', out, '--runs', '50']);
    expect(fuzz.stdout).toMatch(/8 probes, \d+ variations in .*: every verdict held/);
    expect(fuzz.code).toBe(0);
  });

  it('takes the messages from --input, and refuses one it cannot use in one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-a2a-input-'));
    await writeFile(join(dir, 'ok.yaml'), 'message: Ping from the test\n');
    const r = await runBench([
      'record',
      '--target',
      'a2a',
      '--out',
      join(dir, 'rec'),
      '--probes',
      'send_message',
      '--input',
      join(dir, 'ok.yaml'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const check = await runBench(['replay-check', join(dir, 'rec')]);
    expect(check.stdout).toContain('1 passed, 0 failed');
    await writeFile(join(dir, 'bad.yaml'), 'mesage: typo\n');
    const bad = await runBench(['record', '--target', 'a2a', '--out', join(dir, 'rec2'), '--input', join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--input: .*the a2a inputs are message and slow_message/);
  });
});

describe('a recording of curl through bench proxy against an A2A agent', () => {
  it('is checked by bench verify with no --pack: a2a/jsonrpc is chosen by its traffic, with no violation', async () => {
    const sim = await startA2aSimulator({ seed: 5, port: 0 });
    cleanups.push(() => sim.close());
    const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-a2a-proxy-')), 'curl.yaml');
    const proxy = await startBench(['proxy', '--target', sim.url, '--port', '0', '--cassette', file]);
    cleanups.push(() => {
      if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    });
    const curl = (method: string, params: unknown, stream = false) =>
      run('curl', [
        '-sS',
        '-N',
        '-H',
        'content-type: application/json',
        '-H',
        'A2A-Version: 1.0',
        ...(stream ? ['-H', 'accept: text/event-stream'] : []),
        '--data',
        JSON.stringify({ jsonrpc: '2.0', id: method, method, params }),
        `${proxy.url}/a2a/jsonrpc`,
      ]);
    const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello from curl' }] };
    const sent = JSON.parse((await curl('SendMessage', { message })).stdout) as { result: { task: { id: string } } };
    await curl('GetTask', { id: sent.result.task.id });
    const streamed = await curl('SendStreamingMessage', { message: { ...message, messageId: 'm2' } }, true);
    expect(streamed.stdout).toContain('TASK_STATE_COMPLETED');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const verify = await runBench(['verify', file]);
    expect(verify.stdout + verify.stderr).toContain('checked with a2a/jsonrpc');
    expect(verify.stdout).toMatch(/checked 1 cassettes?, .* against 9 rules: no violations/);
    expect(verify.code).toBe(0);
  });
});
