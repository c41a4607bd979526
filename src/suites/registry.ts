import { UsageError } from '../errors.js';
import { codexSuite } from '../families/codex/index.js';
import { hermesSuite } from '../families/hermes/index.js';
import { omnigentSuite } from '../families/omnigent/index.js';
import { opencodeSuite } from '../families/opencode/index.js';
import { DEFAULT_SUITE, type Manifest } from '../manifest/index.js';
import type { Suite } from '../suite/index.js';

/** Every server family tapedeck records: the only list of targets. Adding a family is one folder and one line here. */
export const SUITES: readonly Suite[] = [omnigentSuite, hermesSuite, codexSuite, opencodeSuite] as readonly Suite[];

/** The `--target` names, in registry order. */
export const TARGETS: readonly string[] = SUITES.map((s) => s.target);

/** The suite a `--target` names, or a usage error listing the known ones. */
export function suiteForTarget(target: string): Suite {
  const suite = SUITES.find((s) => s.target === target);
  if (!suite) throw new UsageError(`--target ${JSON.stringify(target)}: use one of ${TARGETS.join(', ')}`);
  return suite;
}

/** The suite that recorded a manifest (absent `suite`: the omnigent bench). */
export function suiteOfManifest(manifest: Pick<Manifest, 'suite'>, file = 'manifest.yaml'): Suite {
  const id = manifest.suite ?? DEFAULT_SUITE;
  const suite = SUITES.find((s) => s.id === id);
  if (!suite)
    throw new UsageError(`${file}: suite ${JSON.stringify(id)} is not one this tapedeck knows (${SUITES.map((s) => s.id).join(', ')})`);
  return suite;
}
