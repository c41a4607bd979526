import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import '../../src/families/index.js';
import { serializeCassette } from '../../src/cassette/index.js';
import { loadPack, PackFileError, packFileJsonSchema, readPackFile, readPackFiles } from '../../src/contracts/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import '../../src/vitest/index.js';
import { runBench } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A team's own server, written by hand as a team would: jobs that start, report progress and finish, per job id. */
const TEAM_PACK = `# yaml-language-server: $schema=../cassettes/pack.schema.json
name: team/jobs
description: the jobs stream of our build server
routes: ['/jobs/stream$']
payloads:
  job.started:
    type: object
    required: [job]
    properties: { job: { type: string } }
  job.progress:
    type: object
    required: [job, percent]
    properties: { job: { type: string }, percent: { type: number, minimum: 0, maximum: 100 } }
  job.done:
    type: object
    required: [job]
    properties: { job: { type: string } }
rules:
  - kind: precedes
    name: started-first
    earlier: job.started
    later: job.progress
    by: job
  - kind: never
    name: quiet-after-done
    event: '*'
    after: job.done
    by: job
    scope: stream
  - kind: eventually
    name: every-job-ends
    event: job.done
    after: job.started
    by: job
    scope: stream
`;

type JobEvent = [type: string, data: Record<string, unknown>];

/** Records a real SSE server through the recording proxy; the cassette has no meta.packs, as a plain proxy recording. */
async function recordJobs(dir: string, events: JobEvent[]): Promise<string> {
  const server = await startServer(async (req, res) => {
    await readBody(req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [type, data] of events) res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
    res.end();
  });
  cleanups.push(() => server.close());
  const proxy = await startRecordingProxy({ target: server.url });
  await (await fetch(`${proxy.url}/jobs/stream`)).text();
  const file = join(dir, `jobs-${Math.random().toString(36).slice(2, 8)}.yaml`);
  await writeFile(file, serializeCassette(await proxy.close()));
  return file;
}

// Two jobs side by side: `a` is done while `b` still reports progress, which is fine per job.
const twoJobs: JobEvent[] = [
  ['job.started', { job: 'a' }],
  ['job.started', { job: 'b' }],
  ['job.progress', { job: 'a', percent: 50 }],
  ['job.done', { job: 'a' }],
  ['job.progress', { job: 'b', percent: 80 }],
  ['job.done', { job: 'b' }],
];

async function packDir(text = TEAM_PACK): Promise<{ dir: string; pack: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-pack-file-'));
  await writeFile(join(dir, 'team-pack.yaml'), text);
  return { dir, pack: join(dir, 'team-pack.yaml') };
}

describe('pack files written by hand', () => {
  it('bench verify --pack ./team-pack.yaml: passes legal traffic of two jobs, names the rule a job breaks', async () => {
    const { dir, pack } = await packDir();
    const good = await recordJobs(dir, twoJobs);
    const ok = await runBench(['verify', good, '--pack', pack]);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    expect(ok.stdout).toMatch(/^checked 1 cassettes, 1 streams, 6 events against 4 rules: no violations\n$/);

    const bad = await recordJobs(dir, [...twoJobs.slice(0, 4), ['job.progress', { job: 'a', percent: 90 }], ...twoJobs.slice(4)]);
    const r = await runBench(['verify', bad, '--pack', pack]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('team/jobs quiet-after-done: job.progress after job.done');
    const schema = await runBench([
      'verify',
      await recordJobs(dir, [
        ['job.started', { job: 'a' }],
        ['job.done', { job: 7 }],
      ]),
      '--pack',
      pack,
    ]);
    expect(schema.code).toBe(1);
    expect(schema.stdout).toContain('team/jobs payload-schema: job.done data.job');
  });

  it('the same file serves toSatisfyContract, as a path or loaded', async () => {
    const { pack } = await packDir();
    const events = twoJobs.map(([event, data]) => ({ event, data: JSON.stringify(data) }));
    expect(events).toSatisfyContract(pack);
    expect(events).toSatisfyContract(await loadPack(pack));
    expect([...events, { event: 'job.progress', data: '{"job":"b","percent":99}' }]).not.toSatisfyContract(pack);
  });

  it('bench fuzz --pack ./pack.yaml adds its rules to what decides a legal variation, and refuses a cassette they reject', async () => {
    const { pack } = await packDir(`name: team/session
optional: [session.heartbeat]
rules:
  - { kind: precedes, name: done-after-completed, earlier: response.completed, later: response.output_item.done }
  - { kind: eventually, name: ends-idle, event: 'session.status[status=idle]', after: response.in_progress }
`);
    const fuzz = (...packs: string[]) =>
      runBench(['fuzz', '--cassettes', 'cassettes/kiro-native', ...packs.flatMap((p) => ['--pack', p]), '--runs', '10', '--seed', '7']);
    const r = await fuzz('omnigent/stream', 'omnigent/native-tui', pack);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/8 probes, 80 variations in [\d.]+ s: every verdict held/);
    // A rule the recordings break: each turn of theirs has a running and an idle status.
    const { pack: strict } = await packDir('name: team/strict\nrules:\n  - { kind: atMostOne, name: one-status, of: session.status }\n');
    const refused = await fuzz(strict);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/already breaks team\/strict one-status \(session\.status more than once\)/);
  });

  it('a module exporting a pack is used as well', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-pack-module-'));
    const rules = new URL('../../dist/contracts/index.js', import.meta.url).href;
    await writeFile(
      join(dir, 'pack.mjs'),
      `import { never } from ${JSON.stringify(rules)};\nexport default { name: 'team/module', description: 'from a module', turnStarts: [], payloads: {}, rules: [never('*', { after: 'job.done' }, { name: 'quiet', description: 'nothing after done', source: 'team', scope: 'stream', by: 'job' })] };\n`,
    );
    const good = await recordJobs(dir, twoJobs);
    const r = await runBench(['verify', good, '--pack', join(dir, 'pack.mjs')]);
    expect([r.code, r.stdout]).toEqual([0, 'checked 1 cassettes, 1 streams, 6 events against 1 rules: no violations\n']);
    await writeFile(join(dir, 'broken.mjs'), "export default { name: 'team/broken', rules: [{ kind: 'never', name: 'x' }] };\n");
    const broken = await runBench(['verify', good, '--pack', join(dir, 'broken.mjs')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^bench: \S+broken\.mjs rules\[0\]\.description: missing; expected string\n$/);
  });
});

describe('a broken pack file', () => {
  const cases: [string, (t: string) => string, RegExp][] = [
    [
      'an unknown rule kind',
      (t) => t.replace('kind: never', 'kind: nevr'),
      /team-pack\.yaml:24 rules\[1\]\.kind: Invalid discriminator value\. Expected 'precedes'/,
    ],
    [
      'a selector that does not parse',
      (t) => t.replace('later: job.progress', 'later: job.progress[percent'),
      /:22 rules\[0\]\.later: bad event selector/,
    ],
    [
      'a field no rule has',
      (t) => t.replace('    by: job\n  - kind: never', '    by: job\n    afterr: x\n  - kind: never'),
      /:19 rules\[0\]: unknown field "afterr"/,
    ],
    [
      'a route that is no regex',
      (t) => t.replace("routes: ['/jobs/stream$']", "routes: ['/jobs/(stream']"),
      /:4 routes\[0\]: not a regular expression/,
    ],
    [
      'a payload schema zod cannot read',
      (t) => t.replace('type: number, minimum', 'type: numbr, minimum'),
      /:11 payloads\.job\.progress: not a JSON Schema zod can read: Unsupported type: numbr/,
    ],
    ['YAML that does not parse', (t) => t.replace('rules:\n', 'rules:\n  - [\n'), /team-pack\.yaml:20 invalid YAML: /],
    ['no rules', (t) => t.slice(0, t.indexOf('rules:')), /team-pack\.yaml:2 rules: missing; expected array/],
    [
      'a turn-scoped rule in a pack without turns',
      (t) => t.replace('    scope: stream\n  - kind: eventually', '    scope: turn\n  - kind: eventually'),
      /:29 rules\[1\]\.scope: a turn-scoped rule in a pack that lists no turnStarts would check nothing/,
    ],
  ];

  it.each(cases)('is refused with file:line:field and exit 2, in one line: %s', async (_what, edit, message) => {
    const { dir, pack } = await packDir(edit(TEAM_PACK));
    expect(() => readPackFile(pack)).toThrow(PackFileError);
    const r = await runBench(['verify', await recordJobs(dir, twoJobs), '--pack', pack]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a pack file of several packs', () => {
  const several = (second: string) => {
    const team = parse(TEAM_PACK) as Record<string, unknown>;
    return stringify({ description: 'two kinds of stream', packs: [team, { ...team, name: second, routes: ['/other$'] }] });
  };

  it('bench verify --pack takes every pack in it; readPackFile, which returns one, says how to load it', async () => {
    const { dir, pack } = await packDir(several('team/other'));
    expect(readPackFiles(pack).map((p) => p.name)).toEqual(['team/jobs', 'team/other']);
    expect(() => readPackFile(pack)).toThrow(
      /holds 2 packs \(team\/jobs, team\/other\); load it with loadPacks, or give it to bench verify --pack/,
    );
    const bad = await recordJobs(dir, [...twoJobs, ['job.progress', { job: 'a', percent: 99 }]]);
    const r = await runBench(['verify', bad, '--pack', pack]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('team/jobs quiet-after-done');
  });

  it('refuses two packs of one name, with the line of the second', async () => {
    const { pack } = await packDir(several('team/jobs'));
    expect(() => readPackFiles(pack)).toThrow(
      /team-pack\.yaml:\d+ packs\[1\]\.name: a second pack named team\/jobs; give each pack its own name/,
    );
  });
});

describe("the verify guide's pack file", () => {
  it('loads as written and holds of two jobs side by side, but not of a job that goes on after it is done', async () => {
    const readme = (await readFile(new URL('../../docs/guide/verify.md', import.meta.url), 'utf8')) as string;
    const block = /```yaml\n(name: team\/jobs\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const { pack } = await packDir(block as string);
    const events = twoJobs.map(([event, data]) => ({ event, data: JSON.stringify(data) }));
    expect(events).toSatisfyContract(pack);
    expect([...events, { event: 'job.progress', data: '{"job":"a","percent":99}' }]).not.toSatisfyContract(pack);
  });
});

describe('the published JSON Schema of pack files', () => {
  it('matches the zod schema (run `npm run schema` after changing it)', async () => {
    const committed = JSON.parse(await readFile(new URL('../../cassettes/pack.schema.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(packFileJsonSchema());
    // One pack, or several for the kinds of stream one server sends.
    expect(committed.anyOf.map((s: { required: string[] }) => s.required)).toEqual([['name', 'rules'], ['packs']]);
  });
});
