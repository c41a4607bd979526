import { type Dispatcher, Dispatcher as DispatcherBase } from 'undici';
import type { Cassette, RedactionConfig } from '../cassette/index.js';
import type { RecordingDispatcher } from '../recorder/index.js';
import { CassetteDispatcher, type CassetteDispatcherOptions, type NamedCassette, type ReplayEngine } from '../replayer/index.js';
import { inProcess, OneOrigin } from './one-origin.js';
import { type DoorRecordOptions, type RecordPlan, recordingRedaction } from './record-options.js';

type Handler = { onError?: (err: Error) => void };

/** Sends each request to the in-process recorder of its server, opened by the first request. */
class LiveDoor extends DispatcherBase {
  constructor(private readonly recording: OneOrigin<{ close(): Promise<Cassette>; dispatcher: RecordingDispatcher }>) {
    super();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const fail = (err: Error) => (handler as Handler).onError?.(err);
    try {
      const origin = new URL(String(opts.origin)).origin;
      this.recording.for(origin).then((live) => live.dispatcher.dispatch(opts, handler), fail);
    } catch (err) {
      queueMicrotask(() => fail(err as Error));
    }
    return true;
  }
}

/**
 * The undici door recording as its `record` mode says (`DoorRecordOptions`): in the test's process, through the
 * same recorder as `bench proxy`; `save()` (or `close()`) writes the cassette.
 */
export class RecordingCassetteDispatcher extends DispatcherBase {
  private readonly live: LiveDoor;
  private readonly recording: OneOrigin<{ close(): Promise<Cassette>; dispatcher: RecordingDispatcher }>;
  private readonly inner: Dispatcher;
  private readonly base: Cassette | undefined;
  private readonly redact: RedactionConfig | undefined;
  /** The replay engine (`missing`), whose misses are those the recording could not take; none when every request is recorded. */
  readonly engine: ReplayEngine | undefined;

  constructor(cassettes: readonly NamedCassette[], plan: RecordPlan, options: CassetteDispatcherOptions & DoorRecordOptions) {
    super();
    const { record: _r, saveTo: _s, ...replay } = options;
    const redact = recordingRedaction(options);
    this.recording = new OneOrigin(plan.file, (target) => inProcess(target, redact), 'cassetteDispatcher');
    this.live = new LiveDoor(this.recording);
    this.base = plan.base;
    this.redact = redact;
    const replaying = plan.mode === 'missing' ? new CassetteDispatcher(cassettes, { ...replay, onUnmatched: this.live }) : undefined;
    this.engine = replaying?.engine;
    this.inner = replaying ?? this.live;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.inner.dispatch(opts, handler);
  }

  /** Ends the recording and writes the cassette (after the one it added to); once, however often called. */
  save(): Promise<Cassette | undefined> {
    return this.recording.save(this.base, this.redact);
  }

  override async close(): Promise<void> {
    await this.save();
  }

  override async destroy(): Promise<void> {
    await this.save();
  }
}
