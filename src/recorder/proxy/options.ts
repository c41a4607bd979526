import type { Cassette, MachineFolders, RedactionConfig } from '../../cassette/index.js';

export interface RecordingProxyOptions {
  /** Base URL of the server to record; a path prefix is kept. */
  target: string;
  /**
   * Origins besides the target's that absolute-form requests (clients behind
   * `HTTP_PROXY`) may be forwarded to and recorded; any other is refused with a 403.
   */
  allowOrigins?: readonly string[] | undefined;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind; loopback unless the caller asks otherwise. */
  host?: string;
  /** Free labels written to the cassette's meta (harness, probe, ...). */
  labels?: Record<string, string>;
  /** Receives one line per notable event (an unreachable target, a broken stream). */
  log?: (line: string) => void;
  /** Receives one line per exchange once it ends: method, path (secrets replaced), status or failure, time, events. */
  logExchange?: ((line: string) => void) | undefined;
  /** How long a stop waits for a client part-way through an upload before recording it as cut (default 5 000 ms). */
  uploadGraceMs?: number;
  /** How long to wait for upstream response headers, in ms (default 60 000). */
  headersTimeoutMs?: number;
  /** The machine whose folders and host name become placeholders (default this one's). */
  folders?: MachineFolders;
  /** How meta describes the target (the default is its URL without credentials). */
  describedAs?: string | undefined;
  /** Contract packs written to meta. */
  packs?: string[] | undefined;
  /**
   * An append-only journal of everything captured, written as it happens
   * (redacted with `redact`), so a killed recorder loses nothing: see `readJournal`.
   */
  journal?: { file: string; redact?: RedactionConfig | undefined } | undefined;
}

export interface RecordingProxy {
  readonly url: string;
  readonly port: number;
  /** What has been recorded so far, as a cassette. */
  cassette(): Cassette;
  /** Ends open exchanges, stops listening and flushes the journal to disk; once, however often called. */
  stop(): Promise<void>;
  /** Cuts a stop's grace for uploads under way to nothing (a second signal). */
  hurry(): void;
  /** Ends open streams as `proxy-closed`, stops listening and returns the final cassette; the journal stays until `discardJournal`. */
  close(): Promise<Cassette>;
  /**
   * Closes if still open, then writes the cassette atomically one interaction
   * at a time (memory stays near what the recording holds); resolves to the number written.
   */
  save(file: string, redact?: RedactionConfig): Promise<number>;
  /** How many interactions have been recorded so far. */
  readonly recorded: number;
  /** Removes the journal once the cassette it stood in for is safely written. */
  discardJournal(): Promise<void>;
  /** The journal could not be written (a full disk, say): only the clean save will hold the recording. */
  readonly journalError: Error | undefined;
}
