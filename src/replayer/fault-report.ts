import type { Entry, ReplayOptions } from './answer-types.js';
import { type ChosenFault, checkedFaults, FaultPlan, type InjectedFault, type Transport } from './faults/index.js';
import { MissReport } from './misses.js';

/** What an engine reports of the faults its options declared: which fired, how often, per rule. */
export class FaultReport extends MissReport {
  protected readonly faultPlan: FaultPlan | undefined;

  constructor(options: ReplayOptions) {
    super();
    const faults = checkedFaults(options.faults);
    this.faultPlan = faults.length ? new FaultPlan(faults, options.faultSeed, options.onFault) : undefined;
  }

  /** The fault that breaks the answer a recording gives this request, if a rule chooses it (counted and logged). */
  protected faultFor(live: { method: string; path: string }, entry: Entry, transport: Transport): ChosenFault | undefined {
    return this.faultPlan?.choose(live, { cassette: entry.name, seq: entry.interaction.seq }, transport);
  }

  /** The faults that fired, latest last (at most `FAULTS_KEPT`): a test asserts that the one it declared did. */
  get injectedFaults(): readonly InjectedFault[] {
    return this.faultPlan?.injected ?? [];
  }

  /** How many faults fired, all told. */
  get faultCount(): number {
    return this.faultPlan?.count ?? 0;
  }

  /** How many times each fault rule fired, by its place in the list. */
  get faultsByRule(): readonly number[] {
    return this.faultPlan?.firedByRule() ?? [];
  }
}
