import type { Interaction } from '../../cassette/index.js';
import { storedBody } from '../body-buffer.js';
import type { Flushed, JournalEntry, JournalRecord } from './format.js';

/** A record that adds to an exchange already opened. */
type Folded = Exclude<JournalRecord, { k: 'meta' } | { k: 'open' } | { k: 'exchange' }>;

/** One record of an exchange already opened, folded into it (as the recorder's timeline built it): `bench recover` and the recording thread. */
export function foldRecord(i: Interaction, r: Folded, ended: Set<number>): void {
  switch (r.k) {
    case 'request-body':
      i.request.body = r.body;
      if (r.encoding) i.request.encoding = r.encoding;
      break;
    case 'response':
      i.timing.headers = r.at;
      i.response = {
        status: r.status,
        headers: r.headers,
        ...(r.kind === 'stream' ? { stream: { events: [], end: 'server-closed' as const } } : {}),
        ...(r.kind === 'websocket' ? { websocket: { frames: [], end: 'server-closed' as const } } : {}),
        ...(r.encoding ? { encoding: r.encoding } : {}),
      };
      break;
    case 'events':
      i.response?.stream?.events.push(...r.items);
      break;
    case 'frame':
      i.response?.websocket?.frames.push(r.frame);
      break;
    case 'end': {
      ended.add(r.seq);
      i.timing = r.timing;
      if (r.failure) i.failure = r.failure;
      const live = i.response?.stream ?? i.response?.websocket;
      if (live && r.end) live.end = r.end;
      if (live && r.error) live.error = r.error;
      if (i.response && r.body) i.response.body = r.body;
      if (i.response && r.encoding) i.response.encoding = r.encoding;
      if (i.response && r.trailers) i.response.trailers = r.trailers;
      break;
    }
  }
}

/** An exchange opened from its `open` entry: a copy of the request, as the fold adds the body to it. */
export const openedBy = (e: Extract<JournalEntry, { k: 'open' }>): Interaction => ({
  seq: e.seq,
  request: { ...e.request },
  timing: { start: e.start },
});

/** One entry, as it came from the recorder, folded into its exchange: bodies encoded as a cassette stores them. */
export function foldEntry(i: Interaction, e: Exclude<JournalEntry | Flushed, { k: 'open' }>, ended: Set<number>): void {
  for (const record of recordsOf(e)) foldRecord(i, record, ended);
}

/** The records an entry stands for, its bytes encoded and not redacted: what the fold of `bench recover` takes. */
function recordsOf(e: Exclude<JournalEntry | Flushed, { k: 'open' }>): Folded[] {
  switch (e.k) {
    case 'request-body': {
      const body = storedBody(e.bytes);
      return body ? [{ k: 'request-body', seq: e.seq, body, ...(e.encoding ? { encoding: e.encoding } : {}) }] : [];
    }
    case 'event':
      return [{ k: 'events', seq: e.seq, items: [e.item] }];
    case 'frames':
      return e.frames.map((frame) => ({ k: 'frame', seq: e.seq, frame }));
    case 'end': {
      // Unset fields stay unset: the fold reads each as the journal would hold it.
      const { failure, end, error, encoding, trailers } = e;
      const body = storedBody(e.bytes);
      return [{ k: 'end', seq: e.seq, timing: e.timing, failure, end, error, body, encoding, trailers } as Extract<Folded, { k: 'end' }>];
    }
    default:
      return [e];
  }
}
