import { appendRecording, type Cassette, type RedactionConfig, writeCassetteAtomic } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { type RecordingDispatcher, recordingDispatcher } from '../recorder/index.js';

/** A live recording a door sends requests through: closed, it hands over what it recorded. */
export interface Closable {
  close(): Promise<Cassette>;
}

/**
 * The recording of one server behind a door, opened by the first request that needs it (so a replay that
 * misses nothing records nothing and leaves the cassette alone) and saved once, after `base` when one is given.
 */
export class OneOrigin<T extends Closable> {
  private origin: string | undefined;
  private live: Promise<T> | undefined;
  private saved: Promise<Cassette | undefined> | undefined;

  constructor(
    private readonly file: string,
    private readonly open: (origin: string) => Promise<T>,
    private readonly who: string,
  ) {}

  /** The recording of `origin`, opened on first use; a second server is refused, as one cassette records one. */
  for(origin: string): Promise<T> {
    if (this.saved) throw new UsageError(`${this.who} has saved ${this.file}: make a new one to record more`);
    this.origin ??= origin;
    if (origin !== this.origin)
      throw new UsageError(`${this.who} records one server per cassette: ${this.file} records ${this.origin}, not ${origin}`);
    this.live ??= this.open(origin);
    return this.live;
  }

  /** Ends the recording and writes the cassette atomically (`base` first); nothing is written when nothing was recorded. */
  save(base?: Cassette, redact?: RedactionConfig): Promise<Cassette | undefined> {
    this.saved ??= (async () => {
      if (!this.live) return undefined;
      const recorded = await (await this.live).close();
      const cassette = base ? appendRecording(base, recorded) : recorded;
      await writeCassetteAtomic(this.file, cassette, redact);
      return cassette;
    })();
    return this.saved;
  }
}

/** The in-process recorder of `target`, as a door holds it: closed, it hands over its cassette. */
export async function inProcess(
  target: string,
  redact: RedactionConfig | undefined,
): Promise<Closable & { dispatcher: RecordingDispatcher }> {
  const dispatcher = await recordingDispatcher({ target, ...(redact ? { redact } : {}) });
  return {
    dispatcher,
    async close() {
      await dispatcher.close();
      return dispatcher.cassette();
    },
  };
}
