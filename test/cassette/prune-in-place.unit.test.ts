import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUntouchedSinceWritten } from '../../src/cassette/digest.js';
import { CassetteError, type Interaction, parseCassette, serializeCassette, withoutInteractions } from '../../src/cassette/index.js';

/** Committed cassettes of every shape the tool writes: JSON and SSE, MCP over Streamable HTTP, WebSocket sessions. */
const FILES = ['cassettes/claude-native/basic_turn.yaml', 'cassettes/clients/mcp-sdk-everything.yaml'];

/** A committed WebSocket session twice over (the committed ones hold one each), as the tool writes it. */
function twoSessions(): string {
  const one = parseCassette(readFileSync('cassettes/codex-app-server/text_turn.yaml', 'utf8'));
  const session = one.interactions[0] as Interaction;
  return serializeCassette({ ...one, interactions: [session, { ...session, seq: 2 }, { ...session, seq: 3 }] });
}

describe('pruning a cassette in place', () => {
  it.each([...FILES, 'websocket'])(
    'removing any subset of %s gives what the tool would write for the rest, its digest its own',
    async (file) => {
      const text = file === 'websocket' ? twoSessions() : readFileSync(file, 'utf8');
      const cassette = parseCassette(text, file);
      const seqs = cassette.interactions.map((i) => i.seq);
      await fc.assert(
        fc.asyncProperty(fc.subarray(seqs, { minLength: 1, maxLength: Math.max(1, seqs.length - 1) }), async (removed) => {
          const gone = new Set(removed);
          const pruned = await withoutInteractions(text, gone, file);
          const rest = { ...cassette, interactions: cassette.interactions.filter((i) => !gone.has(i.seq)) };
          expect(pruned).toBe(serializeCassette(rest));
          expect(isUntouchedSinceWritten(pruned)).toBe(true);
        }),
        { numRuns: 25 },
      );
    },
  );

  it('keeps a stale digest stale: a hand edit is not blessed by a prune', async () => {
    const file = FILES[0] as string;
    const edited = readFileSync(file, 'utf8').replace('recorder: "', 'recorder: "edited ');
    const pruned = await withoutInteractions(edited, new Set([1]), file);
    expect(isUntouchedSinceWritten(pruned)).toBe(false);
    expect(pruned.split('\n')[0]).toBe(edited.split('\n')[0]);
  });

  it('refuses a layout it cannot cut by lines, naming the file', async () => {
    const flow = `version: 1\nmeta: {recorder: x, target: y, recordedAt: "2026-01-01T00:00:00.000Z"}\ninteractions: [{seq: 1, request: {method: GET, path: /, headers: {}}, timing: {start: 0}}, {seq: 2, request: {method: GET, path: /b, headers: {}}, timing: {start: 0}}]\n`;
    await expect(withoutInteractions(flow, new Set([1]), 'flow.yaml')).rejects.toThrow(CassetteError);
  });
});
