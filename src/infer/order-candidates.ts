import { type Candidate, candidate } from './candidate.js';
import type { LearnedStream } from './recordings.js';

/** One stretch a scoped rule is checked over: a whole stream or one turn, as its events' types. */
interface ScopeView {
  where: string;
  types: string[];
  /** Where each type first occurs. */
  firstAt: Map<string, number>;
  /** Whether the scope ended where the server meant it to (a stream it closed, a turn another followed). */
  complete: boolean;
}

const COMMENT = ':comment';

function view(where: string, all: string[], complete: boolean): ScopeView {
  const types = all.filter((t) => t !== COMMENT);
  const firstAt = new Map<string, number>();
  types.forEach((t, i) => {
    if (!firstAt.has(t)) firstAt.set(t, i);
  });
  return { where, types, firstAt, complete };
}

function scopesOf(streams: readonly LearnedStream[], scope: 'stream' | 'turn'): ScopeView[] {
  const out: ScopeView[] = [];
  for (const s of streams) {
    const types = s.events.map((e) => e.type);
    if (scope === 'stream') out.push(view(s.where, types, s.complete));
    else for (const [i, t] of s.turns.entries()) out.push(view(s.where, types.slice(t.start, t.end), s.complete || i < s.turns.length - 1));
  }
  return out.filter((v) => v.types.length > 0);
}

/** Per type: in how many scopes it occurs, the most times in one, and which types ever come after it in its scope. */
interface TypeFacts {
  scopes: number;
  most: number;
  after: Set<string>;
  first: string;
}

function typeFacts(views: readonly ScopeView[]): Map<string, TypeFacts> {
  const facts = new Map<string, TypeFacts>();
  for (const v of views) {
    const counts = new Map<string, number>();
    // Walked from the end: what follows each event is the set of types seen so far.
    const following = new Set<string>();
    for (let i = v.types.length - 1; i >= 0; i--) {
      const t = v.types[i] as string;
      counts.set(t, (counts.get(t) ?? 0) + 1);
      let f = facts.get(t);
      if (!f) facts.set(t, (f = { scopes: 0, most: 0, after: new Set(), first: v.where }));
      for (const later of following) f.after.add(later);
      following.add(t);
    }
    for (const [t, n] of counts) {
      const f = facts.get(t) as TypeFacts;
      f.scopes++;
      f.most = Math.max(f.most, n);
    }
  }
  return facts;
}

const unit = (scope: 'stream' | 'turn') => (scope === 'stream' ? 'streams' : 'turns');

/** `firstEvent`: the type (or the few types) every stream opens with. */
function firstEvents(streams: readonly LearnedStream[]): Candidate[] {
  const firsts = new Map<string, string>();
  for (const s of streams) if (s.events[0] && !firsts.has(s.events[0].type)) firsts.set(s.events[0].type, s.where);
  if (firsts.size === 0 || firsts.size > 2) return [];
  const types = [...firsts.keys()].sort();
  const description = `every stream opens with ${types.join(' or ')}`;
  const where = [...firsts.values()][0] as string;
  return [
    candidate(
      { kind: 'firstEvent', description, scope: 'stream', event: types.join('|') },
      { support: streams.length, unit: 'streams', streams: streams.length, first: where },
    ),
  ];
}

/**
 * `terminal`: the types that end the scopes the server ended (a stream it closed, a turn another followed), once
 * each at most; whatever came after one of them anywhere is a trailer. The checker then says whether it holds.
 */
function terminals(views: readonly ScopeView[], facts: Map<string, TypeFacts>, scope: 'stream' | 'turn'): Candidate[] {
  const last = new Set(views.filter((v) => v.complete).map((v) => v.types[v.types.length - 1] as string));
  const of = [...last].filter((t) => facts.get(t)?.most === 1).sort();
  if (of.length === 0 || of.length < last.size) return [];
  const trailers = [...new Set(of.flatMap((t) => [...(facts.get(t) as TypeFacts).after]))].filter((t) => !last.has(t)).sort();
  const covered = views.filter((v) => of.some((c) => v.firstAt.has(c)));
  const description = `one ${of.join(' or ')} ends each ${scope}${trailers.length ? `, followed only by ${trailers.join(', ')}` : ''}`;
  return [
    candidate(
      { kind: 'terminal', description, scope, of, trailers },
      { support: covered.length, unit: unit(scope), streams: covered.length, first: covered[0]?.where ?? '' },
    ),
  ];
}

/** `exactlyOne` and `atMostOne`: types seen once per scope at most (in every scope, for exactly one). */
function counted(views: readonly ScopeView[], facts: Map<string, TypeFacts>, scope: 'stream' | 'turn'): Candidate[] {
  const out: Candidate[] = [];
  for (const [t, f] of [...facts].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (f.most !== 1 || t === '[DONE]') continue;
    const every = f.scopes === views.length;
    const description = every ? `exactly one ${t} in each ${scope}` : `at most one ${t} in a ${scope}`;
    const body = every
      ? { kind: 'exactlyOne' as const, description, scope, of: [t] }
      : { kind: 'atMostOne' as const, description, scope, of: t };
    out.push(candidate(body, { support: f.scopes, unit: unit(scope), streams: f.scopes, first: f.first }));
  }
  return out;
}

/** `precedes(a, b)`: in every scope with a `b`, an `a` came before the first `b`. Implied ones are pruned later. */
function precedence(views: readonly ScopeView[], facts: Map<string, TypeFacts>, scope: 'stream' | 'turn'): Candidate[] {
  const types = [...facts.keys()].sort();
  const out: Candidate[] = [];
  for (const later of types)
    for (const earlier of types) {
      if (earlier === later) continue;
      let support = 0;
      let holds = true;
      for (const v of views) {
        const b = v.firstAt.get(later);
        if (b === undefined) continue;
        const a = v.firstAt.get(earlier);
        if (a === undefined || a > b) {
          holds = false;
          break;
        }
        support++;
      }
      if (!holds || support === 0) continue;
      const description = `a ${later} comes only after a ${earlier} in its ${scope}`;
      out.push(
        candidate(
          { kind: 'precedes', description, scope, earlier, later },
          { support, unit: unit(scope), streams: support, first: (facts.get(later) as TypeFacts).first },
        ),
      );
    }
  return out;
}

/** Every ordering candidate over whole streams, and over turns when the recordings have them. */
export function orderCandidates(streams: readonly LearnedStream[], withTurns: boolean): Candidate[] {
  const out = firstEvents(streams);
  for (const scope of withTurns ? (['stream', 'turn'] as const) : (['stream'] as const)) {
    const views = scopesOf(streams, scope);
    const facts = typeFacts(views);
    out.push(...terminals(views, facts, scope), ...counted(views, facts, scope), ...precedence(views, facts, scope));
  }
  return out;
}
