import {
  type Interaction,
  type MachineFolders,
  type PreparedInteraction,
  portablePass,
  type RedactionConfig,
  scrubbingPreparer,
} from '../../cassette/index.js';
import type { Collected } from './protocol.js';

/** A prepared exchange as the thread keeps it until the save collects it. */
type Ready = Pick<PreparedInteraction, 'secrets' | 'text' | 'scrubbedWith'>;

/** One exchange prepared: what the save will take, and the redacted interaction its text was rendered from. */
export type Prepared = ReturnType<ReturnType<typeof scrubbingPreparer>>;

/**
 * The save's preparation of one recording on the recording thread: each exchange that ended, redacted and
 * rendered with the save's own steps (0012), kept as its text until the save collects it.
 */
export class SavePreparation {
  /** What was prepared, without the exchange itself: holding that too kept every exchange twice, one on each thread. */
  private readonly ready = new Map<number, Ready>();
  private readonly prepare: ReturnType<typeof scrubbingPreparer>;

  constructor(redact: RedactionConfig | undefined, folders: MachineFolders | undefined) {
    this.prepare = scrubbingPreparer(redact, portablePass(folders));
  }

  /** Prepares one exchange that ended; undefined when it cannot be (the save renders it then, and says why). */
  one(i: Interaction): Prepared | undefined {
    try {
      const done = this.prepare(() => i);
      const { secrets, text, scrubbedWith } = done.prepared;
      this.ready.set(i.seq, { secrets, text, scrubbedWith });
      return done;
    } catch {
      return undefined;
    }
  }

  /** Drops what was prepared of an exchange that changed after its end: the save renders what it became. */
  forget(seq: number): void {
    this.ready.delete(seq);
  }

  /** The prepared texts as they cross back, with the scrub list the current ones were made with. */
  collect(): Collected {
    let list: Collected['list'];
    const items: Collected['items'] = [];
    for (const [seq, p] of this.ready) {
      const current = p.scrubbedWith.list !== undefined;
      if (current) list = p.scrubbedWith.list;
      items.push([seq, p.secrets, p.text, current]);
    }
    return { list, items };
  }
}
