import {
  type Body,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteMeta,
  type Interaction,
  type MachineFolders,
  type PreparedInteraction,
  portableInteraction,
  type RedactionConfig,
} from '../../cassette/index.js';
import { storedBody } from '../body-buffer.js';
import type { Later } from '../later.js';
import type { Timeline } from '../timeline.js';

/** Two redaction configurations that redact alike (the same object, or the same settings). */
export const sameConfig = (a: RedactionConfig | undefined, b: RedactionConfig | undefined) =>
  a === b || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What was prepared for a save while the recording went on (`SaveAhead`, or the recording thread's). */
export interface PreparedAhead {
  get(i: Interaction): PreparedInteraction | undefined;
}

/** What a recording holds, as a snapshot or for a save: its interactions with their bodies encoded, placeholders in. */
export class RecordingSnapshot {
  constructor(
    private readonly meta: CassetteMeta,
    private readonly timeline: Timeline,
    private readonly later: Later,
    /** Bodies as raw bytes, by the request or response they belong to. */
    private readonly rawBodies: WeakMap<object, Buffer | Body>,
    private readonly folders: MachineFolders | undefined,
  ) {}

  /** The cassette so far; chunks still held back belong in it. */
  cassette(): Cassette {
    this.later.run();
    const portable = portableInteraction(this.folders);
    return {
      version: CASSETTE_VERSION,
      meta: structuredClone(this.meta),
      // As stored, with placeholders in: here, where the data leaves this machine's hands, and only here (decision 0006).
      interactions: this.timeline.interactions.map((i) => structuredClone(portable(this.stored(i)))),
    };
  }

  /** An interaction with its bodies encoded, made afresh each time. */
  stored(i: Interaction): Interaction {
    const requestBody = storedBody(this.rawBodies.get(i.request));
    const responseBody = i.response && storedBody(this.rawBodies.get(i.response));
    return {
      ...i,
      request: requestBody ? { ...i.request, body: requestBody } : i.request,
      ...(i.response ? { response: responseBody ? { ...i.response, body: responseBody } : i.response } : {}),
    };
  }

  /** For a save, one at a time: as stored, or as prepared while recording (when the save redacts as the preparation did). */
  *forSave(prepared: PreparedAhead | undefined): Generator<Interaction | PreparedInteraction> {
    for (const i of this.timeline.interactions) yield prepared?.get(i) ?? this.stored(i);
  }
}
