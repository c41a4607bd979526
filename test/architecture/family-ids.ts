import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './check-architecture.js';

/** The built-in families' ids: the folders under src/families/ that are one family's (not the kit, not what they share). */
export async function familyIds(src: string): Promise<string[]> {
  const entries = await readdir(join(src, 'families'), { withFileTypes: true });
  return entries.filter((e) => e.isDirectory() && !['kit', 'shared'].includes(e.name)).map((e) => e.name);
}

/** The words of a token: split at anything not a letter or digit and at camelCase humps, lower-cased. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

const CODE_TOKENS = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.PrivateIdentifier,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

/**
 * Every code token or string of a TypeScript text (comments skipped) that has
 * one of `ids` as a word, with its line. Template literals are read part by part.
 */
export function familyMentions(text: string, ids: readonly string[]): { line: number; token: string }[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
  const found: { line: number; token: string }[] = [];
  const visit = (node: ts.Node) => {
    if (CODE_TOKENS.has(node.kind)) {
      const token = node.getText(source);
      if (wordsOf(token).some((w) => ids.includes(w)))
        found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, token });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `file:line token` for every family id in code or a string under `src`, outside `src/families/`. */
export async function familyIdsOutsideFamilies(src: string, ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const file of await sourceFiles(src)) {
    const where = relative(src, file);
    if (where.startsWith('families/')) continue;
    for (const m of familyMentions(await readFile(file, 'utf8'), ids)) out.push(`${where}:${m.line} ${m.token}`);
  }
  return out.sort();
}
