import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startAgUiSimulator } from '../../../src/families/ag-ui/simulator/server.js';
import { runBench, startBench } from '../../helpers/cli.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const verdicts = (stdout: string) => Object.fromEntries([...stdout.matchAll(/^(\w+)\s+P\d\s+\S+\s+\S+ (\w+)/gm)].map((m) => [m[1], m[2]]));

describe('bench record --target ag-ui', () => {
  it('records every probe on the simulator; the recordings verify clean, replay and survive fuzzing', async () => {
    const out = await mkdtemp(join(tmpdir(), 'tapedeck-agui-'));
    const r = await runBench(['record', '--target', 'ag-ui', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(verdicts(r.stdout)).toEqual({
      run: 'SUPPORTED',
      backend_tool: 'SUPPORTED',
      frontend_tool: 'SUPPORTED',
      second_run: 'SUPPORTED',
      state: 'SUPPORTED',
      bad_input: 'SUPPORTED',
    });
    const verify = await runBench(['verify', join(out, 'ag-ui')]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/checked 6 cassettes, 7 streams, \d+ events against \d+ rules: no violations/);
    const check = await runBench(['replay-check', out]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain('6 passed, 0 failed');
    const fuzz = await runBench(['fuzz', '--cassettes', out, '--runs', '50']);
    expect(fuzz.code, fuzz.stdout + fuzz.stderr).toBe(0);
    expect(fuzz.stdout).toMatch(/6 probes, \d+ variations in .*: every verdict held/);
  });

  it('takes each probe input from --input; one that brings no tool call reads NOT_APPLICABLE naming the option, and replays so', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-agui-input-'));
    const input = join(dir, 'inputs.yaml');
    await writeFile(input, 'backend_tool:\n  message: Tell me a joke.\nrun:\n  message: Hi there\n');
    const r = await runBench(['record', '--target', 'ag-ui', '--out', join(dir, 'rec'), '--input', input, '--probes', 'run,backend_tool']);
    expect(r.code, r.stderr).toBe(0);
    expect(verdicts(r.stdout)).toEqual({ run: 'SUPPORTED', backend_tool: 'NOT_APPLICABLE' });
    expect(r.stdout).toMatch(/the server called no tool for "Tell me a joke\."; give backend_tool\.message in --input/);
    const check = await runBench(['replay-check', join(dir, 'rec')]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('refuses an --input it cannot use in one line, before anything is recorded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-agui-bad-'));
    const input = join(dir, 'inputs.yaml');
    await writeFile(input, 'run:\n  text: hello\n');
    const r = await runBench(['record', '--target', 'ag-ui', '--out', join(dir, 'rec'), '--input', input]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--input: run\.message: .*; the ag-ui inputs are run, backend_tool, frontend_tool, second_run, state/);
    expect(existsSync(join(dir, 'rec', 'ag-ui'))).toBe(false);
    const missing = await runBench(['record', '--target', 'ag-ui', '--out', join(dir, 'rec'), '--input', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--input .*nope\.yaml: no such file/);
  });

  it('says what each probe does and what --input gives in bench record --help', async () => {
    const r = await runBench(['record', '--help']);
    expect(r.stdout).toContain('--target ag-ui');
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toMatch(
      /--input <file> .*each probe's message \(run, backend_tool, frontend_tool, second_run, state\) and forwardedProps \(ag-ui\)/,
    );
  });
});

describe('a recording of the official AG-UI client through bench proxy', () => {
  it('is checked by bench verify with no --pack: ag-ui/events is chosen by its traffic, with no violation', async () => {
    const sim = await startAgUiSimulator({ seed: 3 });
    cleanups.push(() => sim.close());
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-agui-proxy-'));
    const file = join(dir, 'client.yaml');
    const proxy = await startBench(['proxy', '--target', new URL(sim.url).origin, '--port', '0', '--cassette', file]);
    cleanups.push(() => {
      if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    });
    const agent = new HttpAgent({ url: `${proxy.url}/agent`, threadId: 'thread-1' });
    agent.addMessage({ id: 'u1', role: 'user', content: 'What is the weather in Paris?' });
    await agent.runAgent();
    agent.addMessage({ id: 'u2', role: 'user', content: 'Please confirm.' });
    const tool = { name: 'confirm', description: 'Ask the user', parameters: { type: 'object', properties: { q: { type: 'string' } } } };
    await agent.runAgent({ tools: [tool] });
    // The client kept what the runs streamed: the weather tool's result, and the call of its own tool.
    expect(agent.messages.some((m) => m.role === 'tool')).toBe(true);
    expect(JSON.stringify(agent.messages)).toContain('"confirm"');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const recorded = parse(await import('node:fs/promises').then((fs) => fs.readFile(file, 'utf8'))) as { meta: { packs?: unknown } };
    expect(recorded.meta.packs).toBeUndefined();
    const verify = await runBench(['verify', file]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout + verify.stderr).toContain('ag-ui/events');
    expect(verify.stdout).toMatch(/checked 1 cassettes?, 2 streams, \d+ events against \d+ rules: no violations/);
    expect(await readdir(dir)).toEqual(['client.yaml']);
  });
});
