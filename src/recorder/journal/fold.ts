import type { Interaction } from '../../cassette/index.js';
import type { JournalRecord } from './format.js';

/** One record of an exchange already opened, folded into it (as the recorder's timeline built it): `bench recover` and the recording thread. */
export function foldRecord(i: Interaction, r: Exclude<JournalRecord, { k: 'meta' } | { k: 'open' }>, ended: Set<number>): void {
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
