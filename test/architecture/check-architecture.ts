import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

/** Which modules each module may import, as `docs/architecture.md` lists them (`families/*` stands for every family). */
export type Layering = Map<string, Set<string>>;

/**
 * The module a source file belongs to: its top folder under src, a root file's name, or under families/ the
 * registry (`families`, its index), the interface (`families/family`), `families/kit`, `families/shared` or one family's folder.
 */
export function moduleOf(src: string, file: string): string {
  const parts = relative(src, file).split('/');
  if (parts.length === 1) return (parts[0] as string).replace(/\.(ts|js)$/, '');
  if (parts[0] === 'families') {
    if (parts.length > 2) return `families/${parts[1]}`;
    return parts[1] === 'index.ts' ? 'families' : `families/${(parts[1] as string).replace(/\.(ts|js)$/, '')}`;
  }
  return parts[0] as string;
}

/** Whether a module is one family's folder (not the registry, the interface, the kit or what families share). */
export const isFamilyFolder = (module: string) => /^families\/(?!(kit|shared|family)$)[^/]+$/.test(module);

/** Every TypeScript file under `dir`, sorted. */
export async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out.sort();
}

/** Every relative import (static, type-only and dynamic) between files under `src`, as [importer, imported] paths. */
export async function fileImports(src: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const file of await sourceFiles(src)) {
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm))
      out.push([file, resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts'))]);
  }
  return out;
}

/** Reads the table under `## Layering` in the architecture document: | `module` | `a`, `b` (or —) |. */
export function parseLayering(markdown: string): Layering {
  const section = markdown.split(/^## Layering\s*$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('docs/architecture.md has no "## Layering" section');
  const rules: Layering = new Map();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const name = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!name) continue;
    rules.set(name, new Set([...(cells[2] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string)));
  }
  if (rules.size === 0) throw new Error('the Layering table of docs/architecture.md lists no module');
  return rules;
}

const rulesFor = (rules: Layering, module: string) => rules.get(module) ?? (isFamilyFolder(module) ? rules.get('families/*') : undefined);
const allows = (allowed: Set<string>, to: string) => allowed.has(to) || (isFamilyFolder(to) && allowed.has('families/*'));

/** Strongly connected groups of more than one module (Tarjan): each one is an import cycle. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * Every way the source under `src` breaks the layering: an arrow the table
 * does not allow, a module the table does not list, a cycle between modules,
 * and a family file other than its definition (family.ts) that imports its simulator.
 */
export async function architectureViolations(src: string, rules: Layering): Promise<string[]> {
  const out: string[] = [];
  const edges = new Map<string, Set<string>>();
  for (const [from, to] of await fileImports(src)) {
    const a = moduleOf(src, from);
    const b = moduleOf(src, to);
    const where = relative(src, from);
    if (a === b) {
      const inFamily = (path: string) => /^families\/[^/]+\/(.+)$/.exec(path)?.[1] ?? '';
      const mine = inFamily(where);
      if (mine && !mine.startsWith('simulator/') && mine !== 'family.ts' && inFamily(relative(src, to)).startsWith('simulator/'))
        out.push(`${where} imports its family's simulator (${relative(src, to)}); only the family's family.ts may`);
      continue;
    }
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)?.add(b);
    const allowed = rulesFor(rules, a);
    if (!allowed) out.push(`${where}: module ${a} is not in the Layering table of docs/architecture.md`);
    else if (!allows(allowed, b)) out.push(`${where} imports ${relative(src, to)}: ${a} may not import ${b}`);
  }
  for (const group of cycles(edges)) out.push(`import cycle between ${group.join(', ')}`);
  return [...new Set(out)];
}
