import { basename, join } from 'node:path';
import { loadCassette } from '../cassette/index.js';
import type { Pack } from '../contracts/index.js';
import type { Shard } from '../fs/shard.js';
import type { Verdict } from '../manifest/index.js';
import { recordedProbes } from '../probing/index.js';
import { exploreCassette, type FuzzReport } from './fuzz-cassette.js';

/** The stream events each probe's verdict is about: a variation that adds or removes them changes the capability, not the driver. */
const OBSERVED: Partial<Record<string, string[]>> = {
  streaming: ['response.output_text.delta'],
};

export interface ProbeFuzzRow {
  harness: string;
  probe: string;
  /** The cassette varied. */
  file: string;
  expected: Verdict;
  /** The verdict under the counterexample, when one broke it. */
  replayed?: Verdict;
  report: FuzzReport;
}

export interface ProbeFuzzOptions {
  runs: number;
  seed: number;
  /** Packs that decide legality instead of each cassette's own. */
  packs?: readonly (string | Pack)[];
  /** Also add and remove the events a probe's verdict is about, to see which verdicts rest on events the contract calls optional. */
  varyObserved?: boolean;
  /** A folder to write each counterexample to, as `<harness>.<probe>.yaml`. */
  saveDir?: string;
  /** Only this shard's cassettes (a CI matrix job). */
  shard?: Shard;
  onRow?: (row: ProbeFuzzRow, done: number, total: number) => void;
}

/**
 * Throws legal variations of every recorded probe's cassette at the bench's
 * own driver and checks it reaches the recorded verdict each time.
 */
export async function fuzzProbes(dir: string, options: ProbeFuzzOptions): Promise<ProbeFuzzRow[]> {
  const rows: ProbeFuzzRow[] = [];
  const probes = await recordedProbes(dir, options.shard);
  for (const recorded of probes) {
    const { harness, probe, result, file } = recorded;
    const cassette = await loadCassette(file);
    let replayed: Verdict | undefined;
    const report = await exploreCassette(
      cassette,
      {
        name: `${harness} ${probe}`,
        runs: options.runs,
        seed: options.seed,
        ...(options.packs ? { packs: options.packs } : {}),
        ...(OBSERVED[probe] && !options.varyObserved ? { keep: OBSERVED[probe] } : {}),
        ...(options.saveDir ? { saveCounterexample: join(options.saveDir, `${harness}.${basename(file)}`) } : {}),
      },
      async (c) => {
        const out = await recorded.replay({ fetch: c.fetch, cassettes: c.cassettes }, 'fuzz');
        // Kept from a failing run only: the counterexample's last replay may pass when the break is timing-dependent.
        if (out.replayed !== result.verdict) replayed = out.replayed;
        if (out.replayed !== result.verdict)
          throw new Error(`verdict ${out.replayed} instead of the recorded ${result.verdict} (${out.reason})`);
      },
    );
    const row: ProbeFuzzRow = {
      harness,
      probe,
      file,
      expected: result.verdict,
      report,
      ...(report.failure && replayed ? { replayed } : {}),
    };
    rows.push(row);
    options.onRow?.(row, rows.length, probes.length);
  }
  return rows;
}
