import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette, writeCassetteAtomic } from '../../src/cassette/index.js';
import { DEFAULT_DRIFT_CONFIG, renderDriftJunit, renderDriftMarkdown, renderDriftText, runDrift } from '../../src/drift/index.js';
import { startCodexSimulator } from '../../src/families/codex/simulator/index.js';
import { startHermesSimulator } from '../../src/families/hermes/simulator/index.js';
import { startOmnigentSimulator } from '../../src/families/omnigent/simulator/index.js';
import { startOpenCodeSimulator } from '../../src/families/opencode/simulator/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { runBench, startBench } from '../helpers/cli.js';
import { runsOf } from '../helpers/soak.js';

const RERECORDINGS = runsOf(4, 20);

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const BASELINE = join(CASSETTES, 'claude-native');
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function driftAgainst(options: Parameters<typeof startOmnigentSimulator>[0]) {
  const sim = await startOmnigentSimulator(options);
  closers.push(() => sim.close());
  return runDrift({ baseline: BASELINE, server: sim.url, config: DEFAULT_DRIFT_CONFIG, pace: 'simulated' });
}

describe('bench drift --server against a changed server', () => {
  it.each([
    [
      'rename-event:response.policy_denied=response.policy_blocked',
      'vocabulary',
      'breaking',
      'event type response.policy_denied disappeared',
    ],
    ['drop-field:session.status.blocked_on', 'payload shape', 'breaking', 'field blocked_on removed'],
    ['retype-field:session.usage.total_cost_usd', 'payload shape', 'breaking', 'field total_cost_usd changed type: number -> string'],
    [
      'swap-events:response.in_progress,response.completed',
      'ordering',
      'breaking',
      'response.completed moved: it came after response.in_progress, now first in the turn',
    ],
    // One finding for an added type that breaks a contract, at the contract's severity.
    [
      'add-event:session.debug',
      'vocabulary',
      'breaking',
      'event type session.debug appeared, and breaks the contract: omnigent/stream payload-schema, omnigent/native-tui payload-schema',
    ],
    ['status:POST /v1/sessions/{id}/events=200', 'status codes', 'breaking', 'status 202 -> 200'],
  ])('finds %s under %s as %s', async (mutation, heading, severity, message) => {
    const report = await driftAgainst({ mutate: [mutation] });
    expect(report.findings.map((f) => [f.heading, f.severity, f.message])).toContainEqual([heading, severity, message]);
    expect(report.failed).toBe(true);
  });

  // Changes only a sequence, a value or a partial shape shows: merged shapes and first occurrences hide each of them.
  it.each([
    [
      'duplicate-event:response.completed',
      'sequence',
      'breaking',
      /^response\.completed is sent twice in a turn/,
      /^response\.completed in /,
    ],
    [
      'swap-events:session.usage,session.status',
      'ordering',
      'breaking',
      // Either of the two swapped events is the one that moved; the message names both.
      /^session\.(usage moved: it came after \S+, now after session\.status|status moved: it came after session\.usage, now after \S+)$/,
      /^session\.(usage|status) in .*cost_tracking/,
    ],
    [
      'enum-value:response.completed:response.status=completed>succeeded',
      'values',
      'breaking',
      /^field response\.status: completed -> succeeded/,
      /^response\.completed$/,
    ],
    // The driver waits for idle, so every turn times out too: the derived ceiling keeps that to seconds.
    [
      'enum-value:session.status:status=idle>ready',
      'values',
      'breaking',
      /^field status: idle -> ready \(values were idle, running\)$/,
      /^session\.status$/,
    ],
    [
      'drop-field-when:session.status:blocked_on@status=idle',
      'payload shape',
      'breaking',
      /^field blocked_on missing from \d+ of \d+ occurrences \(was in all \d+\)$/,
      /^session\.status$/,
    ],
    [
      'drop-event-in:session.usage@count',
      'sequence',
      'breaking',
      /^session\.usage after \S+ is no longer sent$/,
      /^session\.usage in streaming$/,
    ],
    [
      'null-field:GET /v1/sessions/{id}/items:response_id',
      'payload shape',
      'breaking',
      /^field data\[\]\.response_id is now always null \(was string\)$/,
      /^GET \/v1\/sessions\/\{id\}\/items$/,
    ],
    [
      'empty-body:DELETE /v1/sessions/{id}',
      'status codes',
      'breaking',
      /^the body is empty in 8 of 8 responses \(it never was\)$/,
      /^DELETE \/v1\/sessions\/\{id\}$/,
    ],
    [
      'open-after-done',
      'stream ends',
      'breaking',
      // The last stream may still be open when its probe's proxy stops: proxy-closed.
      /^streams end client-closed, server-closed -> client-closed(, proxy-closed)?$/,
      /^GET \/v1\/sessions\/\{id\}\/stream$/,
    ],
  ])('finds %s under %s as %s, naming what changed', async (mutation, heading, severity, message, subject) => {
    const report = await driftAgainst({ mutate: [mutation] });
    const found = report.findings.filter((f) => f.heading === heading && message.test(f.message));
    expect(found, JSON.stringify(report.findings, null, 1)).toHaveLength(1);
    expect(found[0]?.severity).toBe(severity);
    expect(found[0]?.subject).toMatch(subject);
    expect(report.failed).toBe(true);
  });

  it('names an added event type once, not again as a contract violation', async () => {
    const report = await driftAgainst({ mutate: ['add-event:session.debug'] });
    expect(report.findings.filter((f) => f.message.includes('session.debug') || f.heading === 'contract')).toHaveLength(1);
  });

  it('finds a stream that ends without its [DONE] sentinel', async () => {
    /** Records one client that holds a session stream open until the server shuts down. */
    async function recordClose(mutate: string[]) {
      const sim = await startOmnigentSimulator({ mutate });
      const proxy = await startRecordingProxy({ target: sim.url });
      const agents = (await (await fetch(`${proxy.url}/v1/agents`)).json()) as { data: { id: string; name: string }[] };
      const agent = agents.data.find((a) => a.name === 'kiro-native-ui');
      const session = (await (
        await fetch(`${proxy.url}/v1/sessions`, { method: 'POST', body: JSON.stringify({ agent_id: agent?.id }) })
      ).json()) as { id: string };
      const res = await fetch(`${proxy.url}/v1/sessions/${session.id}/stream`);
      const reading = res.text();
      await new Promise((r) => setTimeout(r, 50));
      await sim.close();
      await reading;
      const dir = await mkdtemp(join(tmpdir(), 'tapedeck-sentinel-'));
      const cassette = await proxy.close();
      cassette.meta.packs = ['omnigent/stream'];
      await writeCassetteAtomic(join(dir, 'close.yaml'), cassette);
      return dir;
    }
    const baseline = await recordClose([]);
    const candidate = await recordClose(['no-sentinel']);
    const report = await runDrift({ baseline, candidate, config: DEFAULT_DRIFT_CONFIG });
    expect(report.findings.map((f) => [f.heading, f.severity, f.message])).toContainEqual([
      'vocabulary',
      'breaking',
      'event type [DONE] disappeared',
    ]);
    expect(report.failed).toBe(true);
  });
});

describe('no false alarms', () => {
  it(`${RERECORDINGS} re-recordings with other seeds and latencies give no finding at all`, async () => {
    for (let n = 0; n < RERECORDINGS; n++) {
      const report = await driftAgainst({ seed: 100 + n, latencyMs: n % 4 });
      expect(report.findings).toEqual([]);
      expect(report.failed).toBe(false);
    }
  });
});

describe('bench drift --server against a server that stops ending turns', () => {
  it('says so within minutes, not after every live ceiling in turn, and marks the probe that timed out', async () => {
    const sim = await startBench(['sim', '--mutate', 'stall-turns', '--port', '0']);
    try {
      const started = performance.now();
      const r = await runBench(['drift', '--baseline', 'cassettes', '--harness', 'claude-native', '--server', sim.url]);
      const seconds = (performance.now() - started) / 1000;
      expect(r.code).toBe(1);
      // The live ceiling is 60 s a turn (8 minutes for the harness); the one derived from the baseline is 5 s.
      expect(seconds).toBeLessThan(180);
      expect(r.stderr).toMatch(/a turn waits at most 5\.0 s/);
      expect(r.stderr).toMatch(/claude-native basic_turn: DRIFT \(timed out\) in \d+\.\d s; 7 left/);
      expect(r.stdout).toMatch(
        /basic_turn: SUPPORTED -> DRIFT \(reply echoed \S+, but the turn timed out: no session\.status idle within 5 s\)/,
      );
      // Probes the candidate never ran are their verdicts' findings, not traffic that vanished from the server.
      expect(r.stdout).not.toMatch(/route POST \/v1\/sessions\/\{id\}\/policies disappeared/);
    } finally {
      sim.child.kill('SIGTERM');
      await sim.exit();
    }
  });
});

describe('reports', () => {
  it('list every probe compared, so a clean run is visibly clean', async () => {
    const report = await driftAgainst({});
    expect(report.findings).toEqual([]);
    const junit = renderDriftJunit(report);
    const cases = [...junit.matchAll(/<testcase classname="claude-native" name="([^"]+)"\/>/g)].map((m) => m[1]);
    expect(cases).toEqual([
      '(harness: routes, vocabulary, shapes, values)',
      'basic_turn',
      'cost_tracking',
      'interrupt',
      'policy_allow',
      'policy_ask',
      'policy_deny',
      'streaming',
      'tool_calling',
    ]);
    expect(junit).toContain('tests="9" failures="0"');
    expect(renderDriftText(report)).toMatch(/^drift \S+ -> \S+: 0 breaking, 0 notable, 0 info \(8 probes compared in claude-native\)/);
  });

  it('pins the text report of one change; markdown and JUnit carry the same findings', async () => {
    const report = await driftAgainst({ mutate: ['drop-field:session.status.blocked_on'] });
    const text = renderDriftText({ ...report, candidate: 'http://127.0.0.1:PORT' }).replace(BASELINE, 'cassettes/claude-native');
    expect(text).toMatchInlineSnapshot(`
      "drift cassettes/claude-native -> http://127.0.0.1:PORT: 1 breaking, 0 notable, 0 info (8 probes compared in claude-native)

      claude-native:
        payload shape:
          [breaking] session.status: field blocked_on removed

      FAIL: findings at or above breaking"
    `);
    const markdown = renderDriftMarkdown(report);
    expect(markdown).toContain('| breaking | claude-native | payload shape | `session.status` | field blocked_on removed |');
    expect(markdown.split('\n').filter((l) => l.startsWith('| breaking')).length).toBe(
      report.findings.filter((f) => f.severity === 'breaking').length,
    );
    for (const f of report.findings) expect(renderDriftJunit(report)).toContain(`[${f.severity}] ${f.heading}: ${f.subject}: ${f.message}`);
    const counts = execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import sys, xml.dom.minidom as m; d = m.parseString(sys.stdin.read()); print(len(d.getElementsByTagName("testcase")), len(d.getElementsByTagName("failure")))',
      ],
      {
        input: renderDriftJunit(report),
      },
    ).toString();
    // Every probe compared is a testcase, passing ones too, plus one for the harness as a whole.
    expect(counts.trim()).toBe('9 1');
  });
});

describe('bench drift --candidate', () => {
  it('compares two hand-edited folders without any server, and --update adopts the candidate', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tapedeck-cand-'));
    const base = join(root, 'base');
    const cand = join(root, 'cand');
    await cp(BASELINE, base, { recursive: true });
    await cp(BASELINE, cand, { recursive: true });
    const file = join(cand, 'basic_turn.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replaceAll('"status": 202', '"status": 201').replace('status: 202', 'status: 201'),
    );
    const r = await runBench(['drift', '--baseline', base, '--candidate', cand, '--format', 'markdown']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('| breaking | claude-native | status codes | `POST /v1/sessions/{id}/events` | status 202 -> 201, 202 |');
    const update = await runBench(['drift', '--baseline', base, '--candidate', cand, '--update']);
    expect(update.code).toBe(1);
    const again = await runBench(['drift', '--baseline', base, '--candidate', cand]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 breaking, 0 notable, 0 info');
  });

  it("the full server's races are no change (its two clocks, a cancelled response finished only sometimes); the same edits to a native-tui recording are", async () => {
    const root = await mkdtemp(join(tmpdir(), 'tapedeck-noise-'));
    /** Base and candidate copies of a committed folder, the candidate with the status/consumed pair swapped and an event type added. */
    const edited = async (folder: string) => {
      const base = join(root, `${folder}-base`);
      const cand = join(root, `${folder}-cand`);
      await cp(join(CASSETTES, folder), base, { recursive: true });
      await cp(join(CASSETTES, folder), cand, { recursive: true });
      const file = join(cand, 'basic_turn.yaml');
      const cassette = await loadCassette(file);
      for (const i of cassette.interactions) {
        const events = i.response?.stream?.events;
        if (!events) continue;
        const s = events.findIndex((e) => e.event === 'session.status');
        const c = events.findIndex((e) => e.event === 'session.input.consumed');
        if (s === -1 || c === -1) continue;
        [events[s], events[c]] = [events[c] as (typeof events)[number], events[s] as (typeof events)[number]];
        const last = events.at(-1) as (typeof events)[number];
        events.push({
          ...last,
          event: 'response.cancelled',
          data: JSON.stringify({ type: 'response.cancelled', sequence_number: 9, response: { id: 'r', status: 'cancelled' } }),
        });
      }
      await writeCassetteAtomic(file, cassette);
      return runBench(['drift', '--baseline', base, '--candidate', cand, '--fail-on', 'info']);
    };
    const real = await edited('openai-agents-real');
    expect([real.code, real.stdout.split('\n')[0]]).toEqual([0, expect.stringContaining('0 breaking, 0 notable, 0 info')]);
    const native = await edited('claude-native');
    expect(native.code).toBe(1);
    expect(native.stdout).toMatch(/session\.(status|input\.consumed) moved: it came /);
    expect(native.stdout).toContain('event type response.cancelled appeared');
  });

  it('refuses to run without exactly one of --server and --candidate', async () => {
    const r = await runBench(['drift', '--baseline', 'cassettes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bench: give exactly one of --server URL or --peer BINARY (re-record) or --candidate DIR (compare folders)\n');
    const peer = await runBench(['drift', '--baseline', 'cassettes', '--peer', '/no/such/codex', '--target', 'codex']);
    expect(peer.code).toBe(2);
    expect(peer.stderr).toMatch(/^bench: \/no\/such\/codex --version failed \(.*\); give the path of the codex binary\n$/m);
  });
});

describe('bench drift --server finds a stream that ends without its sentinel', () => {
  it('sees [DONE] disappear from the teardown stream of every probe', async () => {
    const report = await driftAgainst({ mutate: ['no-sentinel'] });
    expect(report.findings.map((f) => [f.heading, f.severity, f.message])).toContainEqual([
      'vocabulary',
      'breaking',
      'event type [DONE] disappeared',
    ]);
    expect(report.failed).toBe(true);
  });
});

describe('drift against a Hermes gateway', () => {
  it('re-records only the gateway folder with --target hermes, and a same-seed simulator shows nothing breaking', async () => {
    const sim = await startHermesSimulator({ seed: 1 });
    const lines: string[] = [];
    try {
      const report = await runDrift({
        baseline: join(import.meta.dirname, '..', '..', 'cassettes'),
        server: sim.url,
        target: 'hermes',
        apiKey: sim.apiKey,
        config: DEFAULT_DRIFT_CONFIG,
        onProgress: (l) => lines.push(l),
      });
      // Both gateway folders are re-recorded; only the real 0.19.0 one differs from the simulator (test/drift/sim-vs-real.pinned.txt).
      expect(report.compared.map((c) => c.scope)).toEqual(['hermes', 'hermes-real']);
      expect(report.findings.filter((f) => f.severity === 'breaking' && f.scope === 'hermes')).toEqual([]);
      expect(lines.filter((l) => l.startsWith('leaving out')).length).toBeGreaterThanOrEqual(5);
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^re-recording hermes against ${sim.url}: \\d+ probes, a turn waits at most \\d+\\.\\d s$`)),
      );
      // Progress per probe, with what is left.
      expect(lines).toContainEqual(expect.stringMatching(/^ {2}hermes \S+: [A-Z_]+ in \d+\.\d s; \d+ left, about \d+ s$/));
    } finally {
      await sim.close();
    }
  });
});

describe('drift against codex app-server and opencode serve', () => {
  it.each([
    ['codex' as const, startCodexSimulator],
    ['opencode' as const, startOpenCodeSimulator],
  ])('--target %s re-records that suite against the server, and a same-seed simulator moves nothing at all', async (target, start) => {
    const sim = await start({ seed: 1 });
    const lines: string[] = [];
    const suite = target === 'codex' ? 'codex-app-server' : 'opencode-serve';
    try {
      const report = await runDrift({
        baseline: join(import.meta.dirname, '..', '..', 'cassettes'),
        harness: suite,
        server: sim.url,
        target,
        config: DEFAULT_DRIFT_CONFIG,
        failOn: 'info',
        onProgress: (l) => lines.push(l),
      });
      expect(lines[0]).toMatch(new RegExp(`^re-recording ${suite} against ${sim.url}: \\d+ probes`));
      expect(report.findings).toEqual([]);
      expect(report.failed).toBe(false);
    } finally {
      await sim.close();
    }
  });
});
