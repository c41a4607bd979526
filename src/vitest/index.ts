import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Cassette } from '../cassette/index.js';
import { type MatcherEvents, toSatisfyContract } from '../contracts/matcher.js';
import type { Pack } from '../contracts/pack.js';
import { UsageError } from '../errors.js';
// The built-in families' packs, so `toSatisfyContract('<pack name>')` knows them.
import '../families/index.js';
import { type RecordVia, recorderHandlers } from '../doors/index.js';
import {
  cassetteHandlers,
  describeUnused,
  loadCassetteSet,
  type ReplayEngine,
  type ReplayOptions,
  releaseMockedBodies,
  writeUsageFile,
} from '../replayer/index.js';
import { canInterceptWebSockets, noGlobalWebSocket } from '../replayer/msw-ws-door.js';

export type { RecordVia } from '../doors/index.js';

/**
 * How a test gets its traffic, as VCR and Polly name it: `replay` (the
 * default) serves the cassette; `record` always records through the real
 * server, replacing the cassette; `once` records when the cassette is missing
 * and replays it afterwards; `missing` replays what the cassette holds and
 * records, through the real server, what it does not, adding it to the
 * cassette; `passthrough` lets requests reach the real server unrecorded.
 * With `CI=true` only replay is allowed: a missing cassette fails with a
 * one-line reason instead of recording on a CI machine, and `missing` replays.
 */
export type RecordMode = 'replay' | 'record' | 'once' | 'missing' | 'passthrough';

export interface UseCassetteOptions extends ReplayOptions {
  /** Fail the suite when recorded interactions were never asked for (default: true in strict mode, false with `record: 'missing'`). */
  failOnUnused?: boolean;
  /** replay (default), record, once, missing or passthrough. */
  record?: RecordMode;
  /** A fresh engine (and, recording, a fresh cassette) for every test instead of one for the file or describe block. */
  perTest?: boolean;
  /**
   * How a recording sees the traffic: `in-process` (default; no extra hop, as undici's SnapshotAgent records) or
   * `proxy` (each request through a recording proxy: the same recorder as `bench proxy`, one hop more).
   */
  recordVia?: RecordVia;
  /**
   * A folder where each replaying scope writes which recordings it used, for `bench prune --usage FOLDER`
   * (default: `$TAPEDECK_USAGE`, if set). Scopes that record write none.
   */
  usage?: string;
}

/** Thrown when a recording is asked for where only replay is allowed. */
export class ReplayOnlyError extends UsageError {}

/** A relative path is the test file's neighbour, not the working folder's. */
function resolveFromTestFile(source: string): string {
  if (isAbsolute(source)) return source;
  const testPath = expect.getState().testPath;
  return testPath ? resolve(dirname(testPath), source) : resolve(source);
}

/**
 * Serves a cassette (file, folder, or object) through MSW for the current
 * vitest scope (the file, or the `describe` it is called in; each test with
 * `perTest`), checked for misses and unused interactions when the scope ends.
 * A relative path is resolved from the test file. With `record`, traffic goes
 * to the real server and is recorded (see RecordMode).
 */
export function useCassette(source: string | Cassette, options: UseCassetteOptions = {}): { readonly engine: ReplayEngine } {
  const handle: { engine?: ReplayEngine } = {};
  let server: ReturnType<typeof setupServer> | undefined;
  let recorder: ReturnType<typeof recorderHandlers> | undefined;
  /** With `record: 'missing'`, the cassette what was not in it is added to. */
  let base: Cassette | undefined;
  const mode = recordMode(options.record);

  const setUp = async () => {
    base = undefined;
    const file = typeof source === 'string' ? resolveFromTestFile(source) : undefined;
    const exists = file !== undefined && existsSync(file);
    const recording = mode === 'record' || ((mode === 'once' || mode === 'missing') && file !== undefined && !exists);
    if ((recording || mode === 'passthrough') && inCI()) throw replayOnly(mode, file);
    if (mode === 'passthrough') {
      server = setupServer(http.all('*', () => passthrough()));
      server.listen({ onUnhandledRequest: 'bypass' });
      return;
    }
    if (recording) {
      if (!file) throw new UsageError(`useCassette record: '${mode}' needs a cassette file path to write, not a cassette object`);
      recorder = recorderHandlers(file, options);
      server = setupServer(recorder.handler);
      server.listen({ onUnhandledRequest: 'bypass' });
      return;
    }
    const set = typeof source === 'string' ? await loadCassetteSet(file as string) : [{ name: 'cassette', cassette: source }];
    const topUp = mode === 'missing' && !inCI();
    if (topUp) {
      if (set.length !== 1 || !file)
        throw new UsageError(`useCassette record: 'missing' adds to one cassette file, and ${file ?? 'a cassette object'} is not one`);
      base = (set[0] as { cassette: Cassette }).cassette;
      recorder = recorderHandlers(file, options);
    }
    const forward = recorder?.forward;
    // The door reads tapedeck.config.json's match and redact sections as every door does; options in code win.
    const { handlers, engine, webSockets } = cassetteHandlers(set, forward ? { ...options, onUnmatched: forward } : options);
    if (webSockets && !canInterceptWebSockets()) throw noGlobalWebSocket();
    handle.engine = engine;
    server = setupServer(...handlers);
    releaseMockedBodies(server);
    server.listen({ onUnhandledRequest: options.mode === 'lenient' ? 'warn' : 'error' });
  };

  const tearDown = async () => {
    server?.close();
    server = undefined;
    if (recorder) {
      await recorder.save(base);
      recorder = undefined;
      if (!base) return;
    }
    const engine = handle.engine;
    if (!engine) return;
    await writeScopeUsage(options.usage ?? process.env.TAPEDECK_USAGE, engine);
    const miss = engine.misses[0];
    if (miss && engine.mode === 'strict') throw miss;
    const unused = engine.unused();
    if (unused.length > 0 && (options.failOnUnused ?? (engine.mode === 'strict' && mode !== 'missing'))) {
      throw new Error(
        `tapedeck: ${unused.length} recorded interactions were never requested: ${describeUnused(unused)}. Remove them with bench prune (usage: a usage file), or pass failOnUnused: false`,
      );
    }
  };

  if (options.perTest) {
    beforeEach(setUp);
    afterEach(tearDown);
  } else {
    beforeAll(setUp);
    afterAll(tearDown);
    failEachTestOnItsMiss(handle);
  }
  return {
    get engine() {
      if (!handle.engine) throw new Error('useCassette: the engine exists once the scope has started, and only when replaying');
      return handle.engine;
    },
  };
}

expect.extend({
  toSatisfyContract(received: MatcherEvents, pack: Pack | string) {
    return toSatisfyContract(received, pack);
  },
});

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the declaration must repeat vitest's own type parameter exactly.
  interface Matchers<T = any> {
    /** The events satisfy every rule and payload schema of the pack (a built-in name or a Pack). */
    toSatisfyContract(pack: Pack | string): T;
  }
}

/** CI as CI tools set it: any value but empty, `false` or `0` (GitHub sets `true`, others `1`). */
function inCI(): boolean {
  const value = process.env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

const RECORD_MODES: readonly RecordMode[] = ['replay', 'once', 'missing', 'record', 'passthrough'];

/** The record mode asked for, refused with the list when it is none of them (a typo must not replay silently). */
function recordMode(asked: string | undefined): RecordMode {
  if (asked === undefined) return 'replay';
  if ((RECORD_MODES as readonly string[]).includes(asked)) return asked as RecordMode;
  throw new UsageError(`useCassette record: ${JSON.stringify(asked)} is not a record mode; use one of ${RECORD_MODES.join(', ')}`);
}

function replayOnly(mode: string, file: string | undefined): ReplayOnlyError {
  return new ReplayOnlyError(
    mode === 'passthrough'
      ? `CI=${process.env.CI} replays only: record: 'passthrough' would reach the real server; replay a committed cassette instead`
      : `CI=${process.env.CI} replays only, and ${file ?? 'the cassette'} ${mode === 'record' ? 'would be recorded again' : 'is missing'}: record it where the server runs (record: '${mode === 'missing' ? 'missing' : 'once'}') and commit it`,
  );
}

let usageFiles = 0;

/** One scope's usage, in a file of its own in the folder (a run with several test files merges them at prune). */
async function writeScopeUsage(folder: string | undefined, engine: ReplayEngine): Promise<void> {
  if (!folder) return;
  usageFiles += 1;
  await writeUsageFile(join(resolve(folder), `usage-${process.pid}-${Date.now()}-${usageFiles}.json`), engine.usage());
}

/**
 * A strict miss fails the test it happened in, with the explanation (the nearest recordings, the first field that
 * differs) as its message: the client itself only saw its request fail. The suite's summary still lists them all.
 */
function failEachTestOnItsMiss(handle: { engine?: ReplayEngine }): void {
  let before = 0;
  beforeEach(() => {
    before = handle.engine?.missCount ?? 0;
  });
  afterEach(() => {
    const engine = handle.engine;
    if (!engine || engine.mode !== 'strict' || engine.missCount === before) return;
    const miss = engine.misses.at(-(engine.missCount - before)) ?? engine.misses.at(-1);
    if (miss) throw miss;
  });
}
