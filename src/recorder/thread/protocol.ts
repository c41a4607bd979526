import type { MachineFolders, PreparedInteraction, RedactionConfig } from '../../cassette/index.js';
import type { Flushed, JournalEntry } from '../journal/format.js';

/** What the recorder asks of the recording thread, about one recording (`id`). */
export type ThreadRequest =
  | { call: number; op: 'open'; id: number; file: string; redact: RedactionConfig | undefined; folders: MachineFolders | undefined }
  | { call: number; op: 'write' | 'close'; id: number; batch: (JournalEntry | Flushed)[] }
  | { call: number; op: 'collect'; id: number }
  | { call: number; op: 'forget'; id: number };

/** The thread's answer to one request. */
export type ThreadReply = { call: number; ok: true; value?: Collected } | { call: number; ok: false; message: string };

/**
 * The exchanges the thread prepared for the save, each by its `seq`: the secrets it taught, its text, and whether
 * that text was made with `list`, the thread's scrub list now (a text made with an older one is rendered again).
 */
export interface Collected {
  list: PreparedInteraction['scrubbedWith']['list'];
  items: [seq: number, secrets: PreparedInteraction['secrets'], text: string, current: boolean][];
}
