import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isAlive } from '../fs/process-alive.js';
import { writeCanonicalYaml, writeCanonicalYamlItem } from './canonical-yaml.js';
import { bodyDigest, digestHash, headerLine } from './digest.js';
import { editorSchemaLine } from './editor-line.js';
import { CassetteError } from './errors.js';
import {
  makeRedactor,
  type RedactionConfig,
  type Redactor,
  redactCassette,
  type ScrubList,
  type SecretPair,
  sameScrubList,
} from './redaction/index.js';
import {
  CASSETTE_VERSION,
  type Cassette,
  type CassetteMeta,
  cassetteSchema,
  type Interaction,
  interactionSchema,
  metaSchema,
} from './schema.js';
import { compileAcceptor } from './schema-acceptor.js';

/**
 * Serialises a cassette to canonical YAML after redaction: the same cassette
 * gives the same bytes. Placeholders are the recorder's job (`makePortable`, once, at capture).
 */
export function serializeCassette(cassette: Cassette, redact?: RedactionConfig, lead = ''): string {
  const clean = cassetteSchema.parse(redactCassette(cassette, redact));
  const body = lead + writeCanonicalYaml(clean as unknown as Record<string, unknown>);
  // The digest records what was written (a load still validates: it proves nothing).
  return headerLine(bodyDigest(body)) + body;
}

/** Removes temp files a killed writer left beside `file` (their pid is gone). */
async function removeStaleTemps(dir: string, base: string): Promise<void> {
  const prefix = `.${base}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await unlink(join(dir, name)).catch(() => {});
  }
}

/**
 * Writes text next to `file` and renames it into place after fsync, so a crash
 * leaves either the old file or the new one, never half of one.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  await writeAtomic(file, (handle) => handle.writeFile(text, 'utf8'));
}

/** Runs `write` on a fresh temp file beside `file`, then fsyncs it and renames it into place. */
async function writeAtomic(file: string, write: (handle: FileHandle) => Promise<void>): Promise<void> {
  const dir = dirname(file);
  const base = basename(file);
  const temp = join(dir, `.${base}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await removeStaleTemps(dir, base);
    const handle = await open(temp, 'wx', 0o644);
    try {
      await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (cause) {
    await unlink(temp).catch(() => {});
    throw new CassetteError('cassette_unwritable', { file }, `cannot be written: ${(cause as Error).message}`, { cause });
  }
  // Persist the rename itself; not every file system lets a folder be fsynced.
  const dirHandle = await open(dir, 'r').catch(() => undefined);
  if (dirHandle)
    await dirHandle
      .sync()
      .catch(() => {})
      .finally(() => dirHandle.close());
}

/** Redacts, serialises and atomically writes a cassette. */
export async function writeCassetteAtomic(file: string, cassette: Cassette, redact?: RedactionConfig): Promise<void> {
  await writeFileAtomic(file, serializeCassette(cassette, redact, editorSchemaLine(file)));
}

/** How much YAML is gathered before each write of a streamed save. */
const WRITE_BATCH = 1 << 20;

type TwoPass = ReturnType<Redactor['twoPass']>;
/** A pass done in the same walk as redaction (portable paths). */
type BeforePass = Parameters<Redactor['twoPass']>[0];

/**
 * Interactions zod would accept, whatever their keys' order: canonical YAML orders keys itself, so the scrubbed
 * interaction renders as zod's copy of it would, without the copy (a tenth of what preparing one cost).
 */
const rendersAsChecked = compileAcceptor(interactionSchema, { anyOrder: true });

/** One interaction as a streamed save writes it: redacted, checked and rendered. */
function renderInteraction(redactor: TwoPass, i: Interaction): string {
  return renderScrubbed(redactor.scrub(i));
}

/** A redacted interaction, checked and rendered. */
function renderScrubbed(scrubbed: Interaction): string {
  const checked = rendersAsChecked(scrubbed) ? scrubbed : interactionSchema.parse(scrubbed);
  return writeCanonicalYamlItem(checked as unknown as Record<string, unknown>);
}

/**
 * An interaction redacted and rendered before its save (while the recording
 * went on): a save writes `text` as it is when its scrub list is still the
 * one `text` was made with, and renders `interaction()` again otherwise.
 */
export interface PreparedInteraction {
  readonly prepared: true;
  /** The secrets it taught, in the order learnt. */
  readonly secrets: readonly SecretPair[];
  readonly text: string;
  /**
   * The scrub list `text` was made with, shared by every text made with it, and let go (`undefined`) once the
   * preparer learns a secret more: a save learns at least what the preparer learnt, so its list can no longer be
   * that one. Holding each text's own list kept one list per secret learnt, a memory square in the secrets.
   */
  readonly scrubbedWith: { readonly list: ScrubList | undefined };
  interaction(): Interaction;
}

/**
 * Prepares interactions one at a time, as they settle, for a later
 * `writeCassetteStream` with the same redaction and pass: the save then costs
 * little more than writing the text (decision 0012).
 */
export function interactionPreparer(
  redact?: RedactionConfig,
  before?: BeforePass,
): (interaction: () => Interaction) => PreparedInteraction {
  const prepare = scrubbingPreparer(redact, before);
  return (interaction) => prepare(interaction).prepared;
}

/**
 * `interactionPreparer`, handing back as well the redacted interaction its text was rendered from: the recording
 * thread writes that to the journal rather than redact the exchange a second time.
 */
export function scrubbingPreparer(
  redact?: RedactionConfig,
  before?: BeforePass,
): (interaction: () => Interaction) => { prepared: PreparedInteraction; scrubbed: Interaction } {
  const redactor = makeRedactor(redact).twoPass(before);
  let made: { list: ScrubList | undefined } = { list: redactor.list() };
  let version = redactor.version();
  return (interaction) => {
    const i = interaction();
    const secrets = redactor.learn(i);
    if (redactor.version() !== version) {
      version = redactor.version();
      made.list = undefined;
      made = { list: redactor.list() };
    }
    const scrubbed = redactor.scrub(i);
    return { prepared: { prepared: true, secrets, text: renderScrubbed(scrubbed), scrubbedWith: made, interaction }, scrubbed };
  };
}

/**
 * Writes a cassette one interaction at a time, so memory stays near one
 * interaction's size: the same bytes as `writeCassetteAtomic`, atomically.
 * `interactions` is called twice (secrets are learnt first, then scrubbed
 * everywhere), so it should produce each interaction afresh; `before` is a
 * pass (portable paths) done in the same walk as redaction, so each
 * interaction is copied once. A `PreparedInteraction` (made with the same
 * `redact` and `before`) gives the same bytes as the interaction it stands for.
 */
export async function writeCassetteStream(
  file: string,
  meta: CassetteMeta,
  interactions: () => Iterable<Interaction | PreparedInteraction>,
  redact?: RedactionConfig,
  before?: BeforePass,
  onDropped?: (seq: number, reason: string) => void,
): Promise<number> {
  const redactor = makeRedactor(redact).twoPass(before);
  for (const i of interactions()) {
    if ('prepared' in i) redactor.learnPairs(i.secrets);
    else redactor.learn(i);
  }
  const render = renderer(redactor);
  const head =
    editorSchemaLine(file) +
    writeCanonicalYaml({ version: CASSETTE_VERSION, meta: metaSchema.parse({ ...meta, target: redactor.target(meta.target) }) });
  let count = 0;
  await writeAtomic(file, async (handle) => {
    // The digest covers what follows the first line, so the line is written last, in place: it has a fixed length.
    const placeholder = headerLine('0'.repeat(64));
    const hash = digestHash();
    let batch = [head];
    let size = 0;
    let at = Buffer.byteLength(placeholder);
    await handle.write(placeholder, 0, 'utf8');
    const flush = async () => {
      const text = batch.join('');
      batch = [];
      size = 0;
      hash.update(text);
      const { bytesWritten } = await handle.write(text, at, 'utf8');
      at += bytesWritten;
    };
    for (const i of interactions()) {
      const text = render(i);
      // One exchange a cassette cannot hold is left out and told of; it never costs the others their save.
      if (typeof text !== 'string') {
        onDropped?.(text.seq, text.reason);
        continue;
      }
      if (count++ === 0) batch.push('interactions:\n');
      batch.push(text);
      size += text.length;
      if (size >= WRITE_BATCH) await flush();
    }
    if (count === 0) batch.push('interactions: []\n');
    await flush();
    await handle.write(headerLine(hash.digest('hex')), 0, 'utf8');
  });
  return count;
}

/** Renders each interaction of a streamed save, or says why it cannot be saved. */
function renderer(redactor: TwoPass): (i: Interaction | PreparedInteraction) => string | { seq: number; reason: string } {
  // Secrets learnt after an interaction was prepared change its text only if they change the list it was scrubbed with.
  const final = redactor.list();
  const stillTrue = new Map<ScrubList, boolean>();
  const current = (list: ScrubList | undefined) => {
    if (list === undefined) return false;
    let same = stillTrue.get(list);
    if (same === undefined) stillTrue.set(list, (same = sameScrubList(list, final)));
    return same;
  };
  return (i) => {
    if ('prepared' in i && current(i.scrubbedWith.list)) return i.text;
    const interaction = 'prepared' in i ? i.interaction() : i;
    try {
      return renderInteraction(redactor, interaction);
    } catch (err) {
      const issue = (err as { issues?: { path: PropertyKey[]; message: string }[] }).issues?.[0];
      const reason = issue ? `${issue.path.join('.')}: ${issue.message}` : (err as Error).message;
      return { seq: interaction.seq, reason };
    }
  };
}
