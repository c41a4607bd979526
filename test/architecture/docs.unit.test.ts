import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userDocs } from '../helpers/docs.js';

const ROOT = join(import.meta.dirname, '..', '..');
const lines = async (file: string) => (await readFile(join(ROOT, file), 'utf8')).split('\n').length;

/** A heading's anchor as GitHub makes it: lower case, punctuation but dashes dropped, spaces as dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replaceAll(' ', '-');

/** The anchors of a Markdown text: its headings outside code blocks. */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let code = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) code = !code;
    const heading = !code && /^#{1,6} (.*)$/.exec(line);
    if (heading) out.add(slug(heading[1] as string));
  }
  return out;
}

/** Every relative link of a Markdown text outside code blocks: [path, anchor]. */
function links(text: string): [string, string | undefined][] {
  const prose = text.replace(/^```[\s\S]*?^```$/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((l) => !/^[a-z]+:/.test(l))
    .map((l) => {
      const [path, anchor] = l.split('#');
      return [path as string, anchor];
    });
}

describe('the docs a user finds their way in', () => {
  it('the README stays under 300 lines and the architecture map under 150', async () => {
    expect(await lines('README.md')).toBeLessThan(300);
    expect(await lines('docs/architecture.md')).toBeLessThan(150);
  });

  it('every link of the README and the guides leads to a file and heading that exist, and ships in the tarball', async () => {
    const { files } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    const shipped = (path: string) =>
      ['README.md', 'LICENSE', 'package.json'].includes(path) || files.some((f) => path === f || path.startsWith(`${f}/`));
    const broken: string[] = [];
    for (const { file, text } of await userDocs()) {
      for (const [path, anchor] of links(text)) {
        const target = path === '' ? file : normalize(join(dirname(file), path));
        const where = `${file} -> ${path}${anchor ? `#${anchor}` : ''}`;
        if (!existsSync(join(ROOT, target))) broken.push(`${where}: no such file`);
        else if (!shipped(relative('.', target).replace(/\/$/, ''))) broken.push(`${where}: not in package.json files`);
        else if (anchor && target.endsWith('.md') && !anchors(await readFile(join(ROOT, target), 'utf8')).has(anchor))
          broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the link check fails on a missing heading and a missing file', () => {
    expect(links('see [a](docs/guide/x.md#nope) and [b](#here)\n```\n[c](skipped.md)\n```')).toEqual([
      ['docs/guide/x.md', 'nope'],
      ['', 'here'],
    ]);
    expect(anchors('# Set up a clone: the two commands\n```\n# not a heading\n```').has('set-up-a-clone-the-two-commands')).toBe(true);
  });
});
