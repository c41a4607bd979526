// A leaf: every family and every orchestrator imports it, so it imports none of them.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeCanonicalYaml } from '../cassette/canonical-yaml.js';
import { writeFileAtomic } from '../cassette/index.js';
import { TapedeckError } from '../errors.js';
import { loadOnUse } from '../fs/load-on-use.js';
import { verdictSchema } from './verdict.js';

/** Suite and probe ids: plain names, so this module needs no family to say which exist. */
const ID = /^[a-z0-9][a-z0-9_-]*$/;
/** Read only when a manifest is: every command that reads the registry imports this module. */
const yaml = loadOnUse<typeof import('yaml')>('yaml');

/** The suite a manifest without `suite` belongs to: the omnigent native-tui bench, which came first. */
export const DEFAULT_SUITE = 'native-tui';

export const probeResultSchema = z.strictObject({
  /** The probe's id within its suite (the suite, not this leaf, knows which exist). */
  probe: z.string().regex(ID, { error: 'must be a probe id like basic_turn' }),
  priority: z.enum(['P0', 'P1']),
  declared: verdictSchema.optional(),
  observed: verdictSchema,
  verdict: verdictSchema,
  reason: z.string(),
  /** The probe's cassette, a file beside the manifest (never a path out of its folder); absent when it ran no traffic. */
  cassette: z
    .string()
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*\.ya?ml$/, { error: 'must be a cassette file name beside the manifest, like basic_turn.yaml' })
    .optional(),
});

/** What `bench record` concluded for one harness: each probe's verdict and why. */
export const manifestSchema = z.strictObject({
  version: z.literal(1),
  /** Which suite recorded it (the registry's id; absent means the omnigent native-tui bench). */
  suite: z.string().regex(ID, { error: 'must be a suite id like my-server (lower case, digits, dashes)' }).optional(),
  harness: z.string(),
  target: z.string(),
  recordedAt: z.string(),
  probes: z.array(probeResultSchema),
});
export type ProbeResult = z.infer<typeof probeResultSchema>;
export type Manifest = z.infer<typeof manifestSchema>;

/** Writes the manifest atomically as canonical YAML. */
export async function writeManifest(file: string, manifest: Manifest): Promise<void> {
  const text = writeCanonicalYaml(
    manifestSchema.parse(manifest) as unknown as Record<string, unknown>,
    'tapedeck record manifest: the verdict of each probe.',
  );
  await writeFileAtomic(file, text);
}

/** Reads and validates a manifest; errors name the file and the field. */
export async function loadManifest(file: string): Promise<Manifest> {
  let raw: unknown;
  try {
    raw = yaml().parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new TapedeckError('manifest_unreadable', `${file}: cannot be read as YAML: ${(cause as Error).message}`, { cause });
  }
  const result = manifestSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new TapedeckError('manifest_invalid', `${file} ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid manifest'}`);
  }
  return result.data;
}
