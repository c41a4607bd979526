import { Document, isCollection, isMap, isSeq, type Node, type Scalar, type YAMLMap } from 'yaml';
import type { Candidate } from './candidate.js';
import type { LearnedTurnStart } from './turns.js';

/** A pack file as inference writes it, with the evidence each part stands on. */
export interface InferredPack {
  name: string;
  description: string;
  routes: string[];
  turnStarts: LearnedTurnStart[];
  payloads: { type: string; schema: Record<string, unknown>; events: number; streams: number; first: string }[];
  /** A JSON-RPC session pack: the header whose value makes interactions one session (then no routes). */
  session?: string;
  rules: Candidate[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Short collections on one line (`[ a, b ]`, `{ type: string }`): a schema reads as a list of fields. */
function flowLeaves(node: unknown, depth: number): void {
  if (!isCollection(node)) return;
  const items = (node as { items: unknown[] }).items;
  const inner = (i: unknown) => (isMap(node) ? (i as { value: unknown }).value : i);
  const leaves = items.every(
    (i) => !isCollection(inner(i)) || (isSeq(inner(i)) && (inner(i) as { items: unknown[] }).items.every((x) => !isCollection(x))),
  );
  if (depth > 0 && leaves) {
    (node as Node & { flow?: boolean }).flow = true;
    return;
  }
  for (const i of items) flowLeaves(inner(i), depth + 1);
}

/** What a rule stood on: `held for 8 keys in 3 streams; first x.yaml #2`. */
function evidence(c: Candidate): string {
  const tested =
    c.unit === 'streams'
      ? `held in ${plural(c.streams, 'stream')}`
      : `held ${plural(c.support, c.unit.replace(/s$/, ''), c.unit)} in ${plural(c.streams, 'stream')}`;
  return `${tested}; first ${c.first}`;
}

/** A pack's fields in the order a person reads them. */
function packBody(p: InferredPack) {
  return {
    name: p.name,
    description: p.description,
    ...(p.session ? { session: { header: p.session } } : { routes: p.routes }),
    ...(p.turnStarts.length > 0
      ? {
          turnStarts: p.turnStarts.map((t) => ({
            method: t.method,
            path: t.path,
            ...(t.bodyType !== undefined ? { bodyType: t.bodyType } : {}),
          })),
        }
      : {}),
    payloads: Object.fromEntries(p.payloads.map((x) => [x.type, x.schema])),
    rules: p.rules.map((c) => {
      // The name first, as a person reads a rule; the source is this tool, said once in the header.
      const { name, kind, description, source: _source, ...rest } = c.rule;
      return { name, kind, description, ...rest };
    }),
  };
}

/** Puts each part's evidence above it, as a comment: the pack at `at` in the document. */
function annotate(doc: Document, at: (string | number)[], p: InferredPack): void {
  p.turnStarts.forEach((t, i) => {
    const node = doc.getIn([...at, 'turnStarts', i], true) as Node;
    node.commentBefore = ` ${plural(t.requests, 'request')} released events on a stream already open; first ${t.first}`;
  });
  const payloads = doc.getIn([...at, 'payloads'], true) as YAMLMap<Scalar, Node> | undefined;
  for (const [i, x] of p.payloads.entries()) {
    const pair = payloads?.items[i];
    if (pair) pair.key.commentBefore = ` ${plural(x.events, 'event')} in ${plural(x.streams, 'stream')}; first ${x.first}`;
    flowLeaves(pair?.value, 0);
  }
  p.rules.forEach((c, i) => {
    const node = doc.getIn([...at, 'rules', i], true) as Node;
    node.commentBefore = ` ${evidence(c)}`;
    flowLeaves(node, 0);
  });
}

/**
 * The pack file's text: one pack, or one per kind of stream under `packs`; above each rule, how often it was
 * tested and where it was first seen.
 */
export function renderInferredPacks(packs: readonly InferredPack[], header: readonly string[], description: string): string {
  const one = packs.length === 1;
  const doc = new Document(one ? { ...packBody(packs[0] as InferredPack), description } : { description, packs: packs.map(packBody) });
  doc.commentBefore = header.map((l) => ` ${l}`).join('\n');
  packs.forEach((p, k) => {
    annotate(doc, one ? [] : ['packs', k], p);
  });
  return doc.toString({ lineWidth: 0 });
}
