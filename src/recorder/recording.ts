import { Agent } from 'undici';
import {
  type Body,
  type Cassette,
  type CassetteMeta,
  type Interaction,
  interactionPreparer,
  makeRedactor,
  portablePass,
  type RedactionConfig,
  type Redactor,
  unreadableCoding,
  writeCassetteStream,
} from '../cassette/index.js';
import { TAPEDECK_VERSION } from '../version.js';
import { JournalWriter } from './journal/index.js';
import { Later } from './later.js';
import type { ProxyContext } from './proxy/exchange-parts.js';
import type { RecordingProxyOptions } from './proxy/options.js';
import { type PreparedAhead, RecordingSnapshot, sameConfig } from './proxy/snapshot.js';
import { SaveAhead } from './save-ahead.js';
import type { TargetUrl } from './target.js';
import { offThread } from './thread/client.js';
import { Timeline } from './timeline.js';

/** What a recording is made of, wherever its traffic is seen (a proxy, or a dispatcher in the test's process). */
export interface Recording {
  ctx: ProxyContext;
  timeline: Timeline;
  snapshot: RecordingSnapshot;
  journal: JournalWriter | undefined;
  /** Ends the journal and the work done ahead for the save; call once nothing more is recorded. */
  close(): Promise<void>;
  /** Writes the cassette atomically, one interaction at a time, redacted; resolves to the number written. */
  write(file: string, redact?: RedactionConfig): Promise<number>;
  cassette(): Cassette;
}

type RecordingOptions = Pick<
  RecordingProxyOptions,
  'labels' | 'log' | 'logExchange' | 'folders' | 'describedAs' | 'packs' | 'journal' | 'headersTimeoutMs'
>;

/**
 * One recording's timeline, journal, bodies and snapshot. Both recorders build theirs here, so a recording made in
 * the test's process is journaled, redacted and saved by the same code as one made through the proxy.
 */
export async function openRecording(options: RecordingOptions, target: TargetUrl): Promise<Recording> {
  const meta = metaFor(options, target);
  // The save redacts on this thread, and its first redactor compiles the secret rules (some 20 ms of a core, once
  // per process): compiled now, while the recorder starts, so a stop does not wait for them.
  if (options.journal) makeRedactor(options.journal.redact);
  // A recording bound for a file is journaled and prepared for its save as it goes, with one redaction: on the
  // recording thread where there is one, so the thread that forwards the traffic does neither (decision 0022).
  const thread = options.journal && offThread(options.journal.redact, options.folders);
  const journal =
    options.journal &&
    (await JournalWriter.create(options.journal.file, meta, {
      redact: options.journal.redact,
      folders: options.folders,
      sink: thread && ((file) => thread.sink(file)),
    }));
  const rawBodies = new WeakMap<object, Buffer | Body>();
  const prepare = options.journal && !thread ? interactionPreparer(options.journal.redact, portablePass(options.folders)) : undefined;
  const saveAhead: SaveAhead | undefined = prepare && new SaveAhead((i: Interaction) => prepare(() => snapshot.stored(i)));
  const timeline: Timeline = new Timeline(journal ? (entry) => journal.add(entry) : undefined, saveAhead);
  const ctx = recordingContext(options, target, timeline, rawBodies, new Later(journal ? (batch) => journal.batch(batch) : undefined));
  const snapshot: RecordingSnapshot = new RecordingSnapshot(meta, timeline, ctx.later, rawBodies, options.folders);
  return {
    ctx,
    timeline,
    snapshot,
    journal,
    async close() {
      await ctx.agent.close();
      await journal?.close();
      // Nothing more is prepared: the save, if one follows, renders what was not, and close() needs none of it.
      saveAhead?.stop();
    },
    async write(file, redact) {
      // Placeholders go in during the redaction walk: one copy of each interaction per save.
      // What was prepared holds only for a save that redacts as the preparation did.
      const alike = options.journal && sameConfig(redact, options.journal.redact);
      let ahead: PreparedAhead | undefined = alike ? saveAhead : undefined;
      if (thread && alike) ahead = await thread.collect((i) => snapshot.stored(i));
      else thread?.forget();
      const dropped = (seq: number, reason: string) => ctx.log(`exchange #${seq} left out of ${file}: ${reason}`);
      return writeCassetteStream(file, meta, () => snapshot.forSave(ahead), redact, portablePass(options.folders), dropped);
    },
    cassette: () => snapshot.cassette(),
  };
}

/** The cassette's meta: who recorded what, when, with which labels and packs. */
function metaFor(options: RecordingOptions, target: TargetUrl): CassetteMeta {
  return {
    recorder: `tapedeck ${TAPEDECK_VERSION}`,
    target: options.describedAs ?? target.display,
    recordedAt: new Date().toISOString(),
    ...(options.labels && Object.keys(options.labels).length > 0 ? { labels: { ...options.labels } } : {}),
    ...(options.packs ? { packs: [...options.packs] } : {}),
  };
}

/** What a recording's exchanges share: the target, the timeline, the upstream agent, and how they log. */
function recordingContext(
  options: RecordingOptions,
  target: TargetUrl,
  timeline: Timeline,
  rawBodies: WeakMap<object, Buffer | Body>,
  later: Later,
): ProxyContext {
  const log = options.log ?? (() => {});
  // Log lines end up in CI output: a path shows with its secrets (a key in the query, a header's token repeated
  // in the path) replaced, as the recording will have them. Built on first use: most recordings log nothing.
  let forLog: Redactor | undefined;
  const shown = (request: Interaction['request']) =>
    (forLog ??= makeRedactor(options.journal?.redact)).request({ path: request.path, headers: request.headers, body: '' }).path;
  const toldOf = new Set<string>();
  // Once per coding: a body tapedeck cannot decode is saved as it came, and nothing in it is redacted.
  const tellUnreadable = (interaction: Interaction, contentEncoding: string | undefined) => {
    const coding = unreadableCoding(contentEncoding);
    if (!coding || toldOf.has(coding)) return;
    toldOf.add(coding);
    log(
      `${interaction.request.method} ${shown(interaction.request)}: the response is in ${coding}, a content coding tapedeck cannot decode here; its body is saved as it came, and nothing in it is redacted (have the client ask for gzip or br, e.g. without ${coding} in its Accept-Encoding)`,
    );
  };
  const agent = new Agent({ headersTimeout: options.headersTimeoutMs ?? 60_000, bodyTimeout: 0, keepAliveTimeout: 10_000 });
  return { target, timeline, later, agent, log, logExchange: options.logExchange, shown, rawBodies, tellUnreadable };
}
