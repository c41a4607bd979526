import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { decodeBody, loadCassette, serializeCassette } from '../../src/cassette/index.js';
import { isCassetteFile, listFiles } from '../../src/fs/list-files.js';
import { runBench, startBench } from '../helpers/cli.js';

describe('bench verify', () => {
  it('passes every committed cassette and says what it checked', async () => {
    const r = await runBench(['verify']);
    expect(r.code).toBe(0);
    const files = (await listFiles('cassettes', isCassetteFile)).length;
    expect(files).toBeGreaterThan(80);
    // Other clients' recordings (cassettes/clients/) name no pack, and end streams the client closed: the packs their
    // traffic fits are named (the MCP session's is mcp/streamable-http), and their waiting rules are not observed.
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, -1).filter((l) => !/^~? ?cassettes\/clients\//.test(l))).toEqual([]);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^checked ${files} cassettes, \\d+ streams, \\d+ events against 128 rules: no violations, \\d+ not observed \\(.*\\)$`),
    );
  });

  it('exits 1 and names the rule when a hand-edited cassette breaks one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-verify-'));
    const original = await readFile('cassettes/claude-native/policy_deny.yaml', 'utf8');
    // Swap the policy denial in front of everything else of its turn.
    const edited = original.replace(/event: "response\.in_progress"/, 'event: "response.policy_denied"');
    await writeFile(join(dir, 'policy_deny.yaml'), edited);
    const r = await runBench(['verify', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('omnigent/native-tui denied-after-input: response.policy_denied without an earlier session.input.consumed');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/\d+ violations(, \d+ not observed \(.*\))?$/);
  });

  it('refuses an unknown pack and format in one line', async () => {
    const p = await runBench(['verify', '--pack', 'nope']);
    expect(p.code).toBe(2);
    expect(p.stderr).toBe(
      'bench: unknown pack "nope"; known packs: omnigent/stream, omnigent/native-tui, omnigent/full-server, hermes/session-stream, hermes/runs, openai/responses, hermes/responses, openai/chat-completions, codex/app-server, opencode/events, mcp/streamable-http, ag-ui/events, a2a/jsonrpc, anthropic/messages\n',
    );
    const f = await runBench(['verify', '--format', 'xml']);
    expect(f.code).toBe(2);
    expect(f.stderr).toBe('bench: --format "xml": use one of text, json, junit, markdown\n');
  });

  it('prints JSON violations as data', async () => {
    const r = await runBench(['verify', 'cassettes/kiro-native/basic_turn.yaml', '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { cassettes: { rules: unknown[] }[]; violations: unknown[] };
    expect(report.violations).toEqual([]);
    expect(report.cassettes[0]?.rules.length).toBe(19);
  });
});

describe('bench verify start-up', () => {
  // Every package the process loads, CommonJS (NODE_DEBUG=module) and ES modules (a loader hook), on stderr.
  async function packagesLoadedBy(file: string): Promise<{ code: number | null; packages: Set<string> }> {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-verify-load-'));
    const hooks = join(dir, 'hooks.mjs');
    await writeFile(
      hooks,
      'export async function load(url, context, next) { process.stderr.write("esm " + url + "\\n"); return next(url, context); }\n',
    );
    const register = join(dir, 'register.mjs');
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const r = await runBench(['verify', file], { env: { NODE_DEBUG: 'module', NODE_OPTIONS: `--import ${pathToFileURL(register).href}` } });
    const packages = new Set([...r.stderr.matchAll(/node_modules\/((?:@[^/]+\/)?[^/"']+)\//g)].map((m) => m[1] as string));
    return { code: r.code, packages };
  }

  it('loads no YAML or TOML parser for a canonical cassette, and js-yaml only for one an editor rewrote', async () => {
    const canonical = await packagesLoadedBy('cassettes/claude-native/basic_turn.yaml');
    expect(canonical.code).toBe(0);
    expect(canonical.packages).toContain('zod');
    for (const parser of ['yaml', 'js-yaml', 'smol-toml']) expect(canonical.packages).not.toContain(parser);
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-verify-rewritten-'));
    const rewritten = join(dir, 'basic_turn.yaml');
    await writeFile(rewritten, stringifyYaml(await loadCassette('cassettes/claude-native/basic_turn.yaml')));
    const edited = await packagesLoadedBy(rewritten);
    expect(edited.code).toBe(0);
    expect(edited.packages).toContain('js-yaml');
  });
});

describe('bench verify on a cassette that names no pack', () => {
  it('chooses opencode/events by itself for a plain bench proxy recording of an opencode session', async () => {
    const recorded = 'cassettes/opencode-serve-real/text_turn.yaml';
    // The real opencode server's session, served by bench replay, recorded again by a plain bench proxy.
    const replay = await startBench(['replay', '--cassette', recorded, '--port', '0', '--quiet']);
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-verify-auto-'));
    const file = join(dir, 'session.yaml');
    const proxy = await startBench(['proxy', '--target', replay.url, '--port', '0', '--cassette', file]);
    try {
      const cassette = await loadCassette(recorded);
      const stop = new AbortController();
      const streams: Promise<unknown>[] = [];
      for (const i of cassette.interactions) {
        const init = {
          method: i.request.method,
          headers: { 'content-type': 'application/json' },
          signal: stop.signal,
          ...(i.request.body ? { body: decodeBody(i.request.body) } : {}),
        };
        const res = await fetch(`${proxy.url}${i.request.path}`, init);
        if (i.response?.stream) {
          const reader = (res.body as ReadableStream<Uint8Array>).getReader();
          await reader.read();
          streams.push(
            (async () => {
              while (!(await reader.read()).done);
            })().catch(() => {}),
          );
        } else await res.arrayBuffer();
      }
      await new Promise((r) => setTimeout(r, 300));
      stop.abort();
      await Promise.all(streams);
    } finally {
      proxy.child.kill('SIGTERM');
      await proxy.exit();
      replay.child.kill('SIGTERM');
      await replay.exit();
    }
    expect((await loadCassette(file)).meta.packs).toBeUndefined();
    const r = await runBench(['verify', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /session\.yaml: names no pack; checked with opencode\/events \(\d+ of \d+ event types of \/event known, on its route\)/,
    );
    expect(r.stdout).toMatch(/against [1-9]\d* rules: no violations/);
  }, 60_000);

  it('refuses a recording of an unknown server in one line: 0 rules checked, exit 2, unless --allow-empty', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-verify-empty-'));
    const file = join(dir, 'unknown.yaml');
    await writeFile(
      file,
      serializeCassette({
        version: 1,
        meta: { recorder: 'tapedeck', target: 'http://127.0.0.1:1', recordedAt: '2026-01-01T00:00:00.000Z' },
        interactions: [
          {
            seq: 1,
            request: { method: 'GET', path: '/feed', headers: {} },
            response: {
              status: 200,
              headers: { 'content-type': 'text/event-stream' },
              stream: {
                end: 'server-closed',
                events: [
                  { at: 1, after: 1, event: 'tick', data: '{"n":1}' },
                  { at: 2, after: 1, event: 'tock', data: '{}' },
                ],
              },
            },
            timing: { start: 0 },
          },
        ],
      }),
    );
    const r = await runBench(['verify', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bench: 0 rules checked in 1 cassettes: .* pass --pack NAME, or --allow-empty/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const allowed = await runBench(['verify', file, '--allow-empty']);
    expect(allowed.code).toBe(0);
  });
});
