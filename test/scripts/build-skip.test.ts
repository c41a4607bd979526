import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = new URL('../..', import.meta.url).pathname;

/** A project of one source file beside a copy of scripts/build.js, compiled with the repository's TypeScript. */
function project(): { root: string; build(): number; write(text: string): void; built(): string } {
  const root = mkdtempSync(join(tmpdir(), 'tapedeck-build-'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'scripts'));
  cpSync(join(REPO, 'scripts', 'build.js'), join(root, 'scripts', 'build.js'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'package-lock.json'), '{}');
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', outDir: 'dist', types: [] } }),
  );
  writeFileSync(
    join(root, 'tsconfig.build.json'),
    JSON.stringify({ extends: './tsconfig.json', compilerOptions: { rootDir: 'src', outDir: 'dist' }, include: ['src'] }),
  );
  writeFileSync(join(root, 'src', 'index.ts'), 'export const answer: number = 1;\n');
  return {
    root,
    build: () => spawnSync(process.execPath, [join(root, 'scripts', 'build.js')], { cwd: root, stdio: 'ignore' }).status ?? -1,
    write: (text) => writeFileSync(join(root, 'src', 'index.ts'), text),
    built: () => readFileSync(join(root, 'dist', 'index.js'), 'utf8'),
  };
}

describe('npm run build', () => {
  it('never skips a compile after one that failed but wrote its output: dist always comes from the sources it is stamped for', () => {
    const p = project();
    expect(p.build()).toBe(0);
    expect(p.built()).toContain('answer = 1');
    // A type error: tsc still writes dist, and fails.
    p.write('export const answer: number = "two" as unknown as string;\n');
    expect(p.build()).not.toBe(0);
    expect(p.built()).toContain('"two"');
    // Back to the sources the first build compiled: dist must be theirs again, not the failed build's.
    p.write('export const answer: number = 1;\n');
    expect(p.build()).toBe(0);
    expect(p.built()).toContain('answer = 1');
  }, 60_000);
});
