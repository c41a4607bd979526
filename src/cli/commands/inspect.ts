import type { Command } from 'commander';
import { type Interaction, loadCassette } from '../../cassette/index.js';
import { itemType } from '../../contracts/index.js';
import { buildSection, renderTimelineText } from '../../timeline/index.js';
import { runCommand } from '../run-command.js';

function eventTypes(interaction: Interaction): string {
  const events = interaction.response?.stream?.events ?? [];
  const runs: [string, number][] = [];
  for (const item of events) {
    const name = itemType(item);
    const last = runs[runs.length - 1];
    if (last && last[0] === name) last[1]++;
    else runs.push([name, 1]);
  }
  return runs.map(([name, n]) => (n > 1 ? `${name}×${n}` : name)).join(', ');
}

function duration(i: Interaction): string {
  return i.timing.end === undefined ? 'open' : `${(i.timing.end - i.timing.start).toFixed(1)} ms`;
}

/** What `inspect --json` says of one interaction: the line's facts, for a program. */
export function describeInteraction(i: Interaction): Record<string, unknown> {
  const ws = i.response?.websocket;
  const stream = i.response?.stream;
  return {
    seq: i.seq,
    method: i.request.method,
    path: i.request.path,
    status: i.response?.status ?? null,
    durationMs: i.timing.end === undefined ? null : i.timing.end - i.timing.start,
    kind: ws ? 'websocket' : stream ? 'sse' : 'http',
    ...(i.failure ? { failure: i.failure.code } : {}),
    ...(stream ? { events: stream.events.length, end: stream.end, eventTypes: stream.events.map(itemType) } : {}),
    ...(ws
      ? {
          frames: {
            client: ws.frames.filter((f) => f.from === 'client').length,
            server: ws.frames.filter((f) => f.from === 'server').length,
          },
          end: ws.end,
        }
      : {}),
  };
}

/** One readable line per interaction, streams with their event types in order. */
export function summarizeInteraction(i: Interaction): string {
  const head = `#${i.seq} ${i.request.method} ${i.request.path}`;
  if (!i.response) return `${head} → failed (${i.failure?.code}) ${duration(i)}`;
  const status = `→ ${i.response.status} ${duration(i)}`;
  const failure = i.failure ? ` failed (${i.failure.code})` : '';
  const ws = i.response.websocket;
  if (ws) {
    const from = (side: string) => ws.frames.filter((f) => f.from === side).length;
    return `${head} ${status} websocket ${from('client')} client and ${from('server')} server frames, ${ws.end}`;
  }
  const stream = i.response.stream;
  if (!stream) return `${head} ${status}${failure}`;
  return `${head} ${status} sse ${stream.events.length} events, ${stream.end}: ${eventTypes(i)}`;
}

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description('load and validate a cassette, then print one line per interaction')
    .argument('<file>', 'cassette file (YAML)')
    .option('--json', 'print the metadata and one object per interaction as JSON')
    .option('--timeline', 'one line per request, event and frame in time order, with what released it (bench timeline draws it)')
    .addHelpText(
      'after',
      '\nExample:\n  $ bench inspect cassettes/kiro-native/basic_turn.yaml\n\nExit codes: 0 valid, 2 the file is not a valid cassette (the error names file, line and field).',
    )
    .action((file: string, flags: { json?: boolean; timeline?: boolean }) =>
      runCommand(async () => {
        const cassette = await loadCassette(file);
        const { meta } = cassette;
        if (flags.timeline) {
          process.stdout.write(`${renderTimelineText(buildSection(file, cassette)).join('\n')}\n`);
          return 0;
        }
        if (flags.json) {
          process.stdout.write(
            `${JSON.stringify({ file, meta, interactions: cassette.interactions.map(describeInteraction) }, null, 2)}\n`,
          );
          return 0;
        }
        const labels = Object.entries(meta.labels ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(' ');
        const out = [
          `${file}: ${cassette.interactions.length} interactions from ${meta.target}, recorded ${meta.recordedAt} by ${meta.recorder}${labels ? `; ${labels}` : ''}`,
          ...cassette.interactions.map(summarizeInteraction),
        ];
        process.stdout.write(`${out.join('\n')}\n`);
        return 0;
      }),
    );
}
