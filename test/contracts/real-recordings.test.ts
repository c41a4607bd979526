import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/cli.js';

// Recorded from the real opencode serve 1.18.33 and codex app-server 0.171.0 by `bench record --peer`.
const TWO_SESSIONS = 'cassettes/opencode-serve-real/two_sessions.yaml';
const ABORT_TEXT = 'cassettes/opencode-serve-real/abort_text.yaml';
const TWO_THREADS = 'cassettes/codex-app-server-real/two_threads.yaml';

/** The rules as they read before they had a scope: the same checks, keyed by nothing but the stream or turn. */
const UNSCOPED = {
  opencode: `name: unscoped/opencode
openVocabulary: true
turnStarts: [{ method: POST, path: '/session/[^/]+/prompt_async$' }]
rules:
  - { kind: never, name: no-text-after-idle, event: 'message.part.updated[properties.part.type=text]', after: session.idle }
`,
  codex: `name: unscoped/codex
openVocabulary: true
rules:
  - kind: assembles
    name: deltas-add-up
    delta: item/agentMessage/delta
    deltaKey: params.itemId
    deltaField: params.delta
    whole: item/completed[params.item.type=agentMessage]
    wholeKey: params.item.id
    wholeField: params.item.text
`,
};

describe('the built-in packs on real traffic that mixes sessions, threads and turns', () => {
  it('bench verify passes two concurrent opencode sessions, an abort mid-text and two codex threads reusing an item id', async () => {
    const r = await runBench(['verify', TWO_SESSIONS, ABORT_TEXT, TWO_THREADS]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^checked 3 cassettes, 3 streams, \d+ events against \d+ rules: no violations\n$/);
  });

  it('the same rules without a scope call that traffic a violation, which is why they have one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-unscoped-'));
    await writeFile(join(dir, 'opencode.yaml'), UNSCOPED.opencode);
    await writeFile(join(dir, 'codex.yaml'), UNSCOPED.codex);
    const opencode = await runBench(['verify', TWO_SESSIONS, ABORT_TEXT, '--pack', join(dir, 'opencode.yaml')]);
    expect(opencode.code).toBe(1);
    // Session A's text after session B's idle, and the aborted text part the real server sends after the first idle.
    expect(opencode.stdout).toMatch(/two_sessions\.yaml #1 event \d+: unscoped\/opencode no-text-after-idle/);
    expect(opencode.stdout).toMatch(/abort_text\.yaml #1 event \d+: unscoped\/opencode no-text-after-idle/);
    const codex = await runBench(['verify', TWO_THREADS, '--pack', join(dir, 'codex.yaml')]);
    expect(codex.code).toBe(1);
    // Two turns running at once, one item id: keyed by the item alone, their deltas are added together.
    expect(codex.stdout).toMatch(
      /deltas-add-up: the deltas of params\.itemId=msg_mock_same add up to "Hello Hello from from mock\.mock\."/,
    );
  });
});
