import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The names a module's text exports: its export specifiers and exported declarations. */
function exportedNames(text: string): string[] {
  const source = ts.createSourceFile('index.ts', text, ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (!statement.exportClause) names.push(`* from ${statement.moduleSpecifier?.getText(source)}`);
      else if (ts.isNamedExports(statement.exportClause)) names.push(...statement.exportClause.elements.map((e) => e.name.text));
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const name = (statement as { name?: ts.Identifier }).name;
      names.push(name?.text ?? '(declaration)');
    }
  }
  return names;
}

describe('the package root is small and named by user task', () => {
  it('src/index.ts exports at most 35 names, one by one (no export *)', async () => {
    const names = exportedNames(await readFile(join(ROOT, 'src', 'index.ts'), 'utf8'));
    expect(names.filter((n) => n.startsWith('* from'))).toEqual([]);
    expect(names.length).toBeLessThanOrEqual(35);
    expect(names).toEqual(expect.arrayContaining(['defineFamily', 'verifyPaths', 'loadCassette', 'UnmatchedRequestError']));
  });

  it('the count fails past 35, export * included', () => {
    const many = Array.from({ length: 36 }, (_, i) => `export const n${i} = ${i};`).join('\n');
    expect(exportedNames(many)).toHaveLength(36);
    expect(exportedNames("export * from './x.js';\nexport { a, type B } from './y.js';")).toEqual(["* from './x.js'", 'a', 'B']);
  });
});
