import type { Finding } from './findings.js';
import type { JsonType, Occurrences, Shape, Values } from './shape.js';

const types = (s: Set<JsonType>) => [...s].filter((t) => t !== 'null').sort();
export const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
/** The path itself, or a field or element under it. */
const within = (path: string, roots: readonly string[]) =>
  roots.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[]`) || path.startsWith(`${r}{}`));

export function compareShapes(scope: string, subject: string, base: Shape, cand: Shape, out: Finding[], raced: readonly string[]): void {
  const removed: string[] = [];
  for (const [path, baseTypes] of base) {
    if (within(path, raced) || within(path, removed)) continue;
    const candTypes = cand.get(path);
    if (!candTypes) {
      removed.push(path);
      out.push({ heading: 'payload shape', severity: 'breaking', scope, subject, message: `field ${path} removed` });
      continue;
    }
    const b = types(baseTypes);
    const c = types(candTypes);
    if (!same(b, c) && c.length > 0 && b.length > 0) {
      out.push({
        heading: 'payload shape',
        severity: 'breaking',
        scope,
        subject,
        message: `field ${path} changed type: ${b.join('|')} -> ${c.join('|')}`,
      });
    } else if (c.length === 0 && b.length > 0) {
      out.push({
        heading: 'payload shape',
        severity: 'breaking',
        scope,
        subject,
        message: `field ${path} is now always null (was ${b.join('|')})`,
      });
    } else if (candTypes.has('null') && !baseTypes.has('null')) {
      out.push({ heading: 'payload shape', severity: 'notable', scope, subject, message: `field ${path} is now nullable` });
    }
  }
  const added: string[] = [];
  for (const path of cand.keys()) {
    if (base.has(path) || within(path, raced) || within(path, added)) continue;
    added.push(path);
    out.push({ heading: 'payload shape', severity: 'info', scope, subject, message: `field ${path} added` });
  }
}

/** A field in every baseline occurrence and only in some candidate ones: merged shapes cannot show it. */
export function comparePresence(
  scope: string,
  subject: string,
  base: Occurrences,
  cand: Occurrences,
  out: Finding[],
  raced: readonly string[],
): void {
  // One baseline occurrence is no evidence that a field is always there.
  if (base.count < 2) return;
  const reported: string[] = [];
  for (const [path, n] of base.paths) {
    if (n !== base.count || within(path, reported) || within(path, raced)) continue;
    // Under an array, an element count says nothing of presence.
    if (path.includes('[]')) continue;
    const c = cand.paths.get(path) ?? 0;
    if (c === 0 || c === cand.count) continue;
    reported.push(path);
    out.push({
      heading: 'payload shape',
      severity: 'breaking',
      scope,
      subject,
      message: `field ${path} missing from ${cand.count - c} of ${cand.count} occurrences (was in all ${base.count})`,
    });
  }
}

/** Field names that hold a vocabulary by what they are called: a single recorded value is already one of a set. */
const VOCABULARY_NAME =
  /^(status|state|type|kind|role|phase|mode|object|reason|finish_?reason|stop_?reason|level|severity|decision|outcome|action)$/i;

/**
 * A closed vocabulary: short token-like values (no ids, text or times) under a
 * name that says so (`status`, `type`, `role`, `finish_reason`). Names decide,
 * not repetition: a session's random slug repeats on every update of it.
 */
function closedVocabulary(path: string, v: { values: Map<string, number>; open: boolean }): boolean {
  if (v.open || v.values.size === 0 || v.values.size > 8) return false;
  let total = 0;
  for (const [value, n] of v.values) {
    if (!/^[A-Za-z][A-Za-z0-9_.:/-]{0,39}$/.test(value) || (value.match(/\d/g)?.length ?? 0) > 2) return false;
    total += n;
  }
  const name = path.slice(path.lastIndexOf('.') + 1).replace(/\[\]$/, '');
  // Repetition alone is no sign of a vocabulary: one session's random slug repeats on every update of it.
  return VOCABULARY_NAME.test(name) && total > 0;
}

export function compareValues(scope: string, subject: string, base: Values, cand: Values, out: Finding[], raced: readonly string[]): void {
  for (const [path, b] of base) {
    if (within(path, raced) || !closedVocabulary(path, b)) continue;
    const c = cand.get(path);
    if (!c) continue;
    const was = [...b.values.keys()].sort();
    const now = c.open ? [] : [...c.values.keys()].sort();
    const fresh = now.filter((x) => !b.values.has(x));
    if (c.open) {
      out.push({
        heading: 'values',
        severity: 'breaking',
        scope,
        subject,
        message: `field ${path} is no longer a closed set (was ${was.join(', ')})`,
      });
      continue;
    }
    if (fresh.length === 0) continue;
    const gone = was.filter((x) => !c.values.has(x));
    out.push({
      heading: 'values',
      severity: 'breaking',
      scope,
      subject,
      message:
        gone.length > 0
          ? `field ${path}: ${gone.join(', ')} -> ${fresh.join(', ')} (values were ${was.join(', ')})`
          : `field ${path} has new value ${fresh.join(', ')} (values were ${was.join(', ')})`,
    });
  }
}
