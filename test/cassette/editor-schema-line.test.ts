import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUntouchedSinceWritten } from '../../src/cassette/digest.js';
import { loadCassette, writeCassetteAtomic, writeCassetteStream } from '../../src/cassette/index.js';
import { jsonGet } from '../helpers/cassettes.js';
import { runBench } from '../helpers/cli.js';
import { userProject } from '../helpers/vitest-project.js';

let project: string;
beforeAll(async () => {
  project = await userProject('tapedeck-editor-line-');
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

const LINE = /^# yaml-language-server: \$schema=(\S+)$/;

/** The schema path a cassette's second line names, checked to be a file from the cassette's folder. */
async function namedSchema(file: string): Promise<string | undefined> {
  const second = (await readFile(file, 'utf8')).split('\n')[1] ?? '';
  const path = LINE.exec(second)?.[1];
  if (path) expect(existsSync(resolve(dirname(file), path)), path).toBe(true);
  return path;
}

describe('a cassette names its JSON Schema for editors', () => {
  it('on its second line, relative to itself, when the config names the schema; both ways of saving; still untouched', async () => {
    await writeFile(
      join(project, 'tapedeck.config.json'),
      JSON.stringify({ cassettes: { schema: 'node_modules/tapedeck-bench/cassettes/cassette.schema.json' } }),
    );
    const deep = join(project, 'cassettes', 'api', 'hello.yaml');
    await writeCassetteAtomic(deep, jsonGet('/hello', { hi: 1 }));
    expect(await namedSchema(deep)).toBe('../../node_modules/tapedeck-bench/cassettes/cassette.schema.json');
    const text = await readFile(deep, 'utf8');
    expect(isUntouchedSinceWritten(text)).toBe(true);
    expect((await loadCassette(deep)).interactions).toHaveLength(1);

    const streamed = join(project, 'top.yaml');
    const c = jsonGet('/hello', { hi: 1 });
    await writeCassetteStream(streamed, c.meta, () => c.interactions);
    expect(await namedSchema(streamed)).toBe('node_modules/tapedeck-bench/cassettes/cassette.schema.json');
    expect(isUntouchedSinceWritten(await readFile(streamed, 'utf8'))).toBe(true);
    // The commands read such a file as any other.
    const inspected = await runBench(['inspect', deep], { cwd: project });
    expect(inspected.code).toBe(0);
  });

  it('not at all when the config names none, and a one-line error for a section that is wrong', async () => {
    await writeFile(join(project, 'tapedeck.config.json'), '{}');
    const plain = join(project, 'plain.yaml');
    await writeCassetteAtomic(plain, jsonGet('/hello', { hi: 1 }));
    expect(await namedSchema(plain)).toBeUndefined();
    await writeFile(join(project, 'tapedeck.config.json'), JSON.stringify({ cassettes: { schema: 7 } }));
    await expect(writeCassetteAtomic(plain, jsonGet('/hello', { hi: 1 }))).rejects.toThrow(/cassettes\.schema: .*expected string/i);
  });
});
