import { basename } from 'node:path';
import type { RedactionConfig } from '../cassette/index.js';
import { type Interaction, loadCassette, readJson } from '../cassette/index.js';
import { itemType } from '../contracts/index.js';
import { startRecordingProxy } from '../recorder/index.js';
import { type Exchanged, IssuedValues } from './issued.js';
import { type Mark, planOf, type Step } from './plan.js';
import { pollAgain, recordedBody } from './polls.js';
import { Progress } from './progress.js';
import { type Answer, sendAgain } from './send.js';

export interface RerunOptions {
  /** The recording to re-run: any cassette, a `bench proxy` one above all. */
  cassette: string;
  /** Base URL of the server to send it to. */
  server: string;
  /** The new recording, written atomically and redacted as any other. */
  out: string;
  /** Headers to send on every request, in place of recorded ones of that name (a key the recording holds as a placeholder). */
  headers?: Record<string, string> | undefined;
  /** At most this many times a poll is sent while its recorded condition does not hold (default 50). */
  pollBound?: number | undefined;
  /** How long an answer, or a wait on one, may take (default 60 s). */
  timeoutMs?: number | undefined;
  redact?: RedactionConfig | undefined;
}

/** What a re-run did: the numbers a report prints. */
export interface RerunReport {
  cassette: string;
  out: string;
  requests: number;
  /** Exchanges sent again (polls counted each time). */
  sent: number;
  failures: string[];
  /** Values the new server issued in place of recorded ones. */
  learned: number;
  polls: { request: string; recorded: number; sent: number; bound: number; held: boolean | undefined }[];
  /** Headers recorded as placeholders and not given: left out of every request. */
  dropped: string[];
  /** Waits cut by the time bound: a stream that never came as far as recorded, an answer that never came. */
  waitsCut: number;
  /** WebSocket sessions the recording holds, which a re-run does not send again (yet). */
  websockets: number;
}

const DEFAULT_POLL_BOUND = 50;
const DEFAULT_TIMEOUT_MS = 60_000;

/** The request surface of an interaction, where an issued value would be echoed. */
const surface = (i: Interaction) => `${i.request.path}\n${JSON.stringify(i.request.headers)}\n${JSON.stringify(i.request.body ?? '')}`;

function recordedExchange(i: Interaction): Exchanged {
  const r = i.response;
  const headers = Object.fromEntries(
    Object.entries(r?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : String(v)]),
  );
  const body = recordedBody(i);
  const events = r?.stream?.events.map((e) => {
    const data = e.data === undefined ? undefined : (readJson(e.data)?.json ?? e.data);
    return { type: itemType(e, data), data, id: e.id };
  });
  return { headers, body, ...(events ? { events } : {}) };
}

/** Sends a recording's requests to a server again, as its client did, and records what the server answers now. */
export async function rerunCassette(options: RerunOptions): Promise<RerunReport> {
  const cassette = await loadCassette(options.cassette);
  const steps = planOf(cassette.interactions);
  const order = steps.flatMap((s) => [s.interaction, ...(s.poll?.repeats ?? [])]);
  const surfaces = order.map(surface);
  const position = new Map(order.map((i, n) => [i.seq, n]));
  const alias = new Map(steps.flatMap((s) => (s.poll?.repeats ?? []).map((r) => [r.seq, s.interaction.seq] as const)));
  const report: RerunReport = {
    cassette: options.cassette,
    out: options.out,
    requests: order.length,
    sent: 0,
    failures: [],
    learned: 0,
    polls: [],
    dropped: [],
    waitsCut: 0,
    websockets: cassette.interactions.filter((i) => i.response?.websocket).length,
  };
  const proxy = await startRecordingProxy({ target: options.server, labels: { rerun: basename(options.cassette) }, log: () => {} });
  const run = new Run(options, proxy.url, report, new Progress(alias), (seq, value) => {
    const n = position.get(seq) ?? 0;
    return surfaces.slice(n + 1).some((s) => s.includes(value)) && !surfaces.slice(0, n + 1).some((s) => s.includes(value));
  });
  try {
    await run.all(steps);
  } finally {
    await proxy.save(options.out, options.redact);
  }
  report.learned = run.issued.size;
  report.dropped = [...new Set(report.dropped)].sort();
  return report;
}

/** One re-run under way: the values learned so far, and how far each exchange has come. */
class Run {
  readonly issued = new IssuedValues();
  private readonly runEnded = new AbortController();
  private readonly timeoutMs: number;

  constructor(
    private readonly options: RerunOptions,
    private readonly base: string,
    private readonly report: RerunReport,
    private readonly progress: Progress,
    private readonly echoed: (seq: number, value: string) => boolean,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Every step, each once its recorded waits hold; streams kept open to the run's end are closed last. */
  async all(steps: readonly Step[]): Promise<void> {
    const running: Promise<void>[] = [];
    const tillEnd: Promise<void>[] = [];
    for (const step of steps) {
      for (const w of step.waits) if (!(await this.waitFor(w.seq, w.mark))) this.report.waitsCut++;
      const done = this.step(step);
      (step.readTo.kind === 'run-end' ? tillEnd : running).push(done);
    }
    await Promise.all(running);
    // A stream the recording's stop cut was open to the end: it gets as far as it came then, or the bound.
    for (const step of steps)
      if (step.readTo.kind === 'run-end' && step.readTo.mark && !(await this.waitFor(step.interaction.seq, step.readTo.mark)))
        this.report.waitsCut++;
    this.runEnded.abort();
    await Promise.all(tillEnd);
  }

  private async waitFor(seq: number, mark: Mark | undefined): Promise<boolean> {
    return this.progress.wait(seq, mark, AbortSignal.timeout(this.timeoutMs));
  }

  private send(i: Interaction, readTo: Step['readTo']): Promise<Answer> {
    this.report.sent++;
    const recorded = recordedExchange(i);
    const echoed = (value: string) => this.echoed(i.seq, value);
    const layEvent = this.issued.eventLayer(recorded.events ?? [], echoed);
    return sendAgain(i, {
      base: this.base,
      issued: this.issued,
      headers: this.options.headers ?? {},
      readTo,
      runEnded: this.runEnded.signal,
      timeoutMs: this.timeoutMs,
      onHeaders: (headers) => this.issued.learn({ headers: recorded.headers }, { headers }, echoed),
      onEvent: (event) => {
        // Learned before the wait it ends is told: the request sent next carries the new ids.
        layEvent(event);
        this.progress.event(i.seq, event.type);
      },
      closeWhen: () => Promise.all(readTo.kind === 'events' ? readTo.after.map((seq) => this.waitFor(seq, undefined)) : []),
    });
  }

  private async step(step: Step): Promise<void> {
    const i = step.interaction;
    let answer = await this.send(i, step.readTo);
    this.learn(i, answer);
    if (step.poll)
      answer = await pollAgain(step, answer, {
        send: (recorded) => this.send(recorded, { kind: 'end' }),
        learn: (recorded, again) => this.learn(recorded, again),
        issued: this.issued,
        bound: this.options.pollBound ?? DEFAULT_POLL_BOUND,
        report: (line) => this.report.polls.push(line),
      });
    this.progress.end(i.seq);
  }

  learn(i: Interaction, answer: Answer): void {
    this.report.dropped.push(...answer.dropped);
    if (answer.failure) this.report.failures.push(`${i.request.method} ${i.request.path}: ${answer.failure}`);
    else this.issued.learn(recordedExchange(i), answer, (value) => this.echoed(i.seq, value));
  }
}
