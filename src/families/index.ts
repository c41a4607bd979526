// The registry: the built-in families, one line each, and the families a user's tapedeck.config.* adds.
import { loadConfigModule } from '../config-module.js';
import { registerPacks } from '../contracts/index.js';
import { UsageError } from '../errors.js';
import { DEFAULT_SUITE, type Manifest } from '../manifest/index.js';
import type { MockRule } from '../mock-model/index.js';
import { PROVIDER_PACKS } from '../packs/index.js';
import { a2aFamily } from './a2a/family.js';
import { agUiFamily } from './ag-ui/family.js';
import { codexFamily } from './codex/family.js';
import { checkFamily, type Family } from './family.js';
import { hermesFamily } from './hermes/family.js';
import { mcpFamily } from './mcp/family.js';
import { omnigentFamily } from './omnigent/family.js';
import { opencodeFamily } from './opencode/family.js';

/** The families tapedeck ships. Adding one is a folder and a line here; the first is `--target`'s default. */
export const BUILT_IN_FAMILIES: readonly Family[] = [
  omnigentFamily,
  hermesFamily,
  codexFamily,
  opencodeFamily,
  mcpFamily,
  agUiFamily,
  a2aFamily,
];

const known: Family[] = [];

/**
 * Adds families to the registry (a user's, from `tapedeck.config.*`) and their
 * packs to the contract catalogue. An id or suite already taken is refused.
 */
export function registerFamilies(families: readonly Family[]): void {
  for (const family of families) {
    if (known.includes(family)) continue;
    const clash = known.find((k) => k.id === family.id || k.suite === family.suite);
    if (clash)
      throw new UsageError(
        `family ${JSON.stringify(family.id)} (suite ${family.suite}) clashes with the registered ${clash.id} (suite ${clash.suite}); give it an id and suite of its own`,
      );
    registerPacks(family.packs);
    known.push(family);
  }
}
registerFamilies(BUILT_IN_FAMILIES);
// Provider streams no family records (an LLM API behind a user's client) are checked by the same catalogue.
registerPacks(PROVIDER_PACKS);

/**
 * Registers the families of the nearest `tapedeck.config.{ts,mts,js,mjs}` (or `file`), each checked;
 * returns the config's path, or undefined when there is none.
 */
export async function loadUserFamilies(file?: string): Promise<string | undefined> {
  const config = await loadConfigModule(file);
  if (!config) return undefined;
  registerFamilies(config.families.map((f) => checkFamily(f, config.path)));
  return config.path;
}

/** Every registered family, built-in ones first. */
export function families(): readonly Family[] {
  return known;
}

/** The `--target` names, in registry order. */
export function familyIds(): string[] {
  return known.map((f) => f.id);
}

/** The family `--target` names by default: the first built-in one. */
export const DEFAULT_FAMILY: string = (BUILT_IN_FAMILIES[0] as Family).id;

/** The family a `--target` names, or a usage error listing the known ones. */
export function familyById(id: string): Family {
  const family = known.find((f) => f.id === id);
  if (!family) throw new UsageError(`--target ${JSON.stringify(id)}: use one of ${familyIds().join(', ')}`);
  return family;
}

/** The family that recorded a manifest (absent `suite`: the default suite, which came first). */
export function familyOfManifest(manifest: Pick<Manifest, 'suite'>, file = 'manifest.yaml'): Family {
  const suite = manifest.suite ?? DEFAULT_SUITE;
  const family = known.find((f) => f.suite === suite);
  if (!family)
    throw new UsageError(
      `${file}: suite ${JSON.stringify(suite)} is not one a registered family records (${known.map((f) => f.suite).join(', ')}); add its family to tapedeck.config.* (families: [...])`,
    );
  return family;
}

/** The mock model's script for every registered family's probes, in registry order. */
export function mockModelRules(): MockRule[] {
  return known.flatMap((f) => f.mockModel ?? []);
}

export {
  checkFamily,
  type Declaration,
  type DriftNoise,
  defineFamily,
  type Family,
  FamilyDefinitionError,
  type FamilyDrift,
  type FamilyHelp,
  type FamilyPlan,
  type FamilyProbe,
  type Pace,
  type PeerLaunch,
  type PeerSpec,
  type PlanContext,
  type RunningServer,
  type SimulatorOptions,
  simulatorBasics,
  TURN_MS,
  turnCeiling,
} from './family.js';
