import {
  encodeBody,
  type Interaction,
  type MachineFolders,
  makeRedactor,
  portableInteraction,
  type RedactionConfig,
  type RedactorSession,
  type SecretPair,
  type SseItem,
  type WsFrame,
} from '../../cassette/index.js';
import { storedBody } from '../body-buffer.js';
import { StreamTails } from '../stream-tails.js';
import { foldEntry, openedBy } from './fold.js';
import { type Cleanable, type Flushed, type JournalRecord, pieceOf, sessionOf, streamOf } from './format.js';

const BLANK = { method: 'GET', path: '/', headers: {} };

/** Whole exchanges as another walk has them already (the recording thread's, preparing the save). */
export interface WholeExchanges {
  /** Exchange `seq` folded from the very entries of this batch, or undefined to fold it here. */
  folded(seq: number): Interaction | undefined;
  /** The exchange redacted and made portable for the save, with the secrets it taught; undefined to do it here. */
  redacted(i: Interaction): { interaction: Interaction; secrets: readonly SecretPair[] } | undefined;
}

/**
 * Turns what the recorder told the journal into records that may reach disk:
 * made portable and redacted through the same passes as the cassette, each
 * stream's last items held while a secret may have begun in them.
 */
export class JournalCleaner {
  private readonly redact: RedactorSession;
  /** Each stream's last items (and each session's last frames), held while a secret may have begun there (`StreamTails`). */
  private readonly tails: StreamTails<SseItem>;
  private readonly frameTails: StreamTails<WsFrame>;
  /** Built once: reading the machine's folders and compiling their patterns per entry was most of a small exchange's cost. */
  private readonly portable: (i: Interaction) => Interaction;
  /** Set when nothing more will come to finish a held stream: its items are then written as they are. */
  closing = false;

  constructor(folders: MachineFolders | undefined, redact: RedactionConfig | undefined) {
    this.redact = makeRedactor(redact).session();
    this.tails = new StreamTails(
      (items, before) => this.redact.unfinishedFrom(items, before),
      (e) => e.data?.length ?? 0,
    );
    this.frameTails = new StreamTails(
      (frames, before) => this.redact.unfinishedFramesFrom(frames, before),
      (f) => f.text?.length ?? (f.json === undefined ? 0 : JSON.stringify(f.json).length),
    );
    this.portable = portableInteraction(folders);
  }

  /** The streams and sessions whose last items are still held. */
  holding(): Flushed[] {
    return [
      ...this.tails.holding().map((seq): Flushed => ({ k: 'events', seq, items: [] })),
      ...this.frameTails.holding().map((seq): Flushed => ({ k: 'frames', seq, frames: [] })),
    ];
  }

  /**
   * The records of a batch of entries, in order. An exchange opened and ended within the batch (most are) is
   * folded and cleaned whole, as one record at its end: one redaction pass and one line instead of one per part.
   */
  *records(entries: Flushed[], had?: WholeExchanges): Generator<JournalRecord> {
    const whole = wholeIn(entries);
    const folding = new Map<number, Interaction>();
    const folded = new Set<number>();
    for (const e of entries) {
      if (!whole.has(e.seq)) {
        for (const c of this.withHeldItems([e])) yield* cleanEntry(c, this.redact, this.portable);
      } else if (e.k === 'open') {
        const i = had?.folded(e.seq);
        if (i) folded.add(e.seq);
        folding.set(e.seq, i ?? openedBy(e));
      } else {
        const i = folding.get(e.seq) as Interaction;
        if (!folded.has(e.seq)) foldEntry(i, e, new Set());
        if (e.k !== 'end') continue;
        yield { k: 'exchange', seq: e.seq, interaction: cleanWhole(i, had, this.redact, this.portable) };
        // What comes after its end (a frame behind a close) is written as any part is.
        whole.delete(e.seq);
      }
    }
  }

  /**
   * The entries with each stream's items held back while a secret may have begun in them, and written, with
   * their context, once the next items finish it or the stream ends.
   */
  private *withHeldItems(entries: Flushed[]): Generator<Cleanable> {
    for (const e of entries) {
      const final = e.k === 'end' || this.closing;
      // Made portable once, as they come: held or read again as context, they stay so.
      if (e.k === 'events' || e.k === 'end') {
        const items = e.k === 'events' ? (this.portable(streamOf(e.seq, e.items)).response?.stream?.events ?? []) : [];
        const { write, before } = this.tails.next(e.seq, items, final);
        if (write.length > 0) yield { k: 'events', seq: e.seq, items: write, before };
      }
      if (e.k === 'frames' || e.k === 'end') {
        const frames = e.k === 'frames' ? (this.portable(sessionOf(e.seq, e.frames)).response?.websocket?.frames ?? []) : [];
        const { write, before } = this.frameTails.next(e.seq, frames, final);
        if (write.length > 0) yield { k: 'frames', seq: e.seq, frames: write, before };
      }
      if (e.k !== 'events' && e.k !== 'frames') yield e;
    }
  }
}

/**
 * A whole exchange as it may reach disk, through the same passes as its parts: or as `had` redacted it for the
 * save, which learnt its secrets, then scrubbed of those the journal learnt elsewhere (one walk in place of three).
 */
function cleanWhole(
  i: Interaction,
  had: WholeExchanges | undefined,
  redact: RedactorSession,
  portable: (i: Interaction) => Interaction,
): Interaction {
  const done = had?.redacted(i);
  if (!done) return redact.redact(pieceOf(portable(i))).interactions[0] as Interaction;
  redact.learnPairs(done.secrets);
  return redact.scrub(done.interaction);
}

/** The exchanges whose every entry is in the batch, from their open to their end. */
function wholeIn(entries: Flushed[]): Set<number> {
  const opened = new Set<number>();
  const whole = new Set<number>();
  for (const e of entries) {
    if (e.k === 'open') opened.add(e.seq);
    else if (e.k === 'end' && opened.has(e.seq)) whole.add(e.seq);
  }
  return whole;
}

/** The entry as it may reach disk: placeholders in, secrets out, through the same passes as the cassette. */
function cleanEntry(e: Cleanable, redact: RedactorSession, portable: (i: Interaction) => Interaction): JournalRecord[] {
  const one = (i: Omit<Interaction, 'seq' | 'timing'> & Partial<Interaction>): Interaction =>
    redact.redact(pieceOf(portable({ seq: e.seq, timing: { start: 0 }, ...i } as Interaction))).interactions[0] as Interaction;
  switch (e.k) {
    case 'open':
      return [{ ...e, request: one({ request: e.request }).request }];
    case 'request-body': {
      const body = encodeBody(e.bytes);
      const cleaned = (body && one({ request: { ...BLANK, body } }).request.body) ?? { text: '' };
      return [{ k: 'request-body', seq: e.seq, body: cleaned, ...(e.encoding ? { encoding: e.encoding } : {}) }];
    }
    case 'response':
      return [{ ...e, headers: one({ request: BLANK, response: { status: e.status, headers: e.headers } }).response?.headers ?? {} }];
    // Items and frames are made portable already; read after those written last (context, not written again),
    // so a secret begun there is cut from these too.
    case 'events': {
      const { items, before } = e;
      const cleaned = redact.redact(pieceOf(streamOf(e.seq, items)), { of: items, before });
      return [{ k: 'events', seq: e.seq, items: cleaned.interactions[0]?.response?.stream?.events ?? items }];
    }
    case 'frames': {
      const { frames, before } = e;
      const cleaned = redact.redact(pieceOf(sessionOf(e.seq, frames)), { of: frames, before });
      return (cleaned.interactions[0]?.response?.websocket?.frames ?? frames).map((frame) => ({ k: 'frame', seq: e.seq, frame }));
    }
    case 'end':
      return [cleanEnd(e, one)];
  }
}

/** An exchange's end: its body and trailers redacted, its failure's message too. */
function cleanEnd(
  e: Extract<Cleanable, { k: 'end' }>,
  one: (i: Omit<Interaction, 'seq' | 'timing'> & Partial<Interaction>) => Interaction,
): JournalRecord {
  const { bytes, ...rest } = e;
  const body = storedBody(bytes);
  const trailers = e.trailers;
  const cleaned = one({
    request: BLANK,
    ...(body || trailers ? { response: { status: 200, headers: {}, ...(body ? { body } : {}), ...(trailers ? { trailers } : {}) } } : {}),
    ...(e.failure ? { failure: e.failure } : {}),
  });
  return {
    k: 'end',
    seq: e.seq,
    timing: rest.timing,
    ...(cleaned.failure ? { failure: cleaned.failure } : {}),
    ...(rest.end ? { end: rest.end } : {}),
    ...(rest.error ? { error: rest.error } : {}),
    ...(cleaned.response?.body ? { body: cleaned.response.body } : {}),
    ...(rest.encoding ? { encoding: rest.encoding } : {}),
    ...(cleaned.response?.trailers ? { trailers: cleaned.response.trailers } : {}),
  };
}
