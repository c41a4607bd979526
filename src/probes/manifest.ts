import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { z } from 'zod';
import { writeCanonicalYaml } from '../cassette/canonical-yaml.js';
import { writeFileAtomic } from '../cassette/index.js';
import { CODEX_PROBE_NAMES } from '../codex/probes.js';
import { TapedeckError } from '../errors.js';
import { GATEWAY_PROBE_NAMES } from '../gateway/probes.js';
import { OPENCODE_PROBE_NAMES } from '../opencode/probes.js';
import { PROBE_NAMES } from './probes.js';
import { verdictSchema } from './verdict.js';

export const probeResultSchema = z.strictObject({
  probe: z.enum([...new Set([...PROBE_NAMES, ...GATEWAY_PROBE_NAMES, ...CODEX_PROBE_NAMES, ...OPENCODE_PROBE_NAMES])] as [
    string,
    ...string[],
  ]),
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
  /** Which driver and probes: the omnigent native-tui bench (the default), the Hermes gateway, or codex app-server. */
  suite: z.enum(['native-tui', 'hermes-gateway', 'codex-app-server', 'opencode-serve']).optional(),
  harness: z.string(),
  target: z.string(),
  recordedAt: z.string(),
  probes: z.array(probeResultSchema),
});
export type ProbeResult = z.infer<typeof probeResultSchema>;
export type Manifest = z.infer<typeof manifestSchema>;

export async function writeManifest(file: string, manifest: Manifest): Promise<void> {
  const text = writeCanonicalYaml(
    manifestSchema.parse(manifest) as unknown as Record<string, unknown>,
    'tapedeck record manifest: the verdict of each probe.',
  );
  await writeFileAtomic(file, text);
}

export async function loadManifest(file: string): Promise<Manifest> {
  let raw: unknown;
  try {
    raw = parse(await readFile(file, 'utf8'));
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
