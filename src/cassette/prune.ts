import { bodyDigest, headerLine, isUntouchedSinceWritten } from './digest.js';
import { CassetteError } from './errors.js';
import { parseCassette } from './load.js';

/**
 * The cassette's text without the interactions whose seqs are given: every other byte as it was (the kept
 * recordings, their seqs, the meta), and the first line's digest written again when the tool had written it.
 * An edit the tool did not make keeps its stale digest: a prune does not bless it.
 */
export async function withoutInteractions(text: string, remove: ReadonlySet<number>, file: string): Promise<string> {
  // Loaded here: the commands that read cassettes never need a YAML document model, and start faster without one.
  const yaml = await import('yaml');
  const headerEnd = text.startsWith('# tapedeck cassette') ? text.indexOf('\n') + 1 : 0;
  const header = text.slice(0, headerEnd);
  const body = text.slice(headerEnd);
  const spans = removedSpans(yaml, body, remove, file);
  let pruned = '';
  let at = 0;
  for (const [start, end] of spans) {
    pruned += body.slice(at, start);
    at = end;
  }
  pruned += body.slice(at);
  const out = header && isUntouchedSinceWritten(text) ? headerLine(bodyDigest(pruned)) + pruned : header + pruned;
  // What is left must still be the same cassette, less exactly those interactions.
  const kept = parseCassette(out, file).interactions.map((i) => i.seq);
  const expected = parseCassette(text, file)
    .interactions.map((i) => i.seq)
    .filter((seq) => !remove.has(seq));
  if (kept.join() !== expected.join())
    throw new CassetteError('cassette_not_prunable', { file }, 'could not be pruned in place: its layout is not the one the tool writes');
  return out;
}

/** Each removed interaction's lines, from its `- ` to the next item (or the sequence's end). */
function removedSpans(yaml: typeof import('yaml'), body: string, remove: ReadonlySet<number>, file: string): [number, number][] {
  const { isMap, isSeq } = yaml;
  const seq = yaml.parseDocument(body).get('interactions', true);
  if (!isSeq(seq)) throw new CassetteError('cassette_not_prunable', { file }, 'has no interactions list to prune');
  const items = seq.items;
  const spans: [number, number][] = [];
  for (const [n, item] of items.entries()) {
    if (!isMap(item) || !item.range) continue;
    const number = item.get('seq');
    if (typeof number !== 'number' || !remove.has(number)) continue;
    const next = items[n + 1];
    const end = next && isMap(next) && next.range ? lineStart(body, next.range[0]) : lineEnd(body, item.range[2]);
    spans.push([lineStart(body, item.range[0]), end]);
  }
  return spans;
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;

function lineEnd(text: string, at: number): number {
  if (at > 0 && text[at - 1] === '\n') return at;
  const nl = text.indexOf('\n', at);
  return nl === -1 ? text.length : nl + 1;
}
