import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './check-architecture.js';

/** The limits the layout keeps: a file's lines, and a function's, closure's or class's. */
export const MAX_FILE_LINES = 300;
export const MAX_UNIT_LINES = 80;

/** An oversized file (`unit` absent) or unit: where, what, and how many lines. */
export interface Oversize {
  file: string;
  unit?: string;
  lines: number;
}

const UNIT_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.ClassExpression,
]);

/** A unit's name as a reader finds it: its own, or the variable or property it is assigned to, with its line. */
function unitName(node: ts.Node, source: ts.SourceFile): string {
  const own = (node as { name?: ts.Node }).name;
  const parent = node.parent;
  const assigned =
    parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
      ? parent.name
      : undefined;
  const name = own?.getText(source) ?? assigned?.getText(source) ?? '(anonymous)';
  return `${name}@${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
}

/** The units of one TypeScript text longer than `max` lines, nested ones counted on their own too. */
export function oversizedUnits(file: string, text: string, max = MAX_UNIT_LINES): Oversize[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Oversize[] = [];
  const visit = (node: ts.Node) => {
    if (UNIT_KINDS.has(node.kind)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > max) out.push({ file, unit: unitName(node, source), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every file under `src` over the file limit and every unit over the unit limit. */
export async function oversized(src: string): Promise<Oversize[]> {
  const out: Oversize[] = [];
  for (const path of await sourceFiles(src)) {
    const file = relative(src, path);
    const text = await readFile(path, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) out.push({ file, lines });
    out.push(...oversizedUnits(file, text));
  }
  return out;
}

/** The key an allowlist entry is known by: the file, and the unit's name without its line (lines move). */
export const keyOf = (o: Oversize) => (o.unit ? `${o.file} ${o.unit.replace(/@\d+$/, '')}` : o.file);
