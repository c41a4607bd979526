import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { renderJunitXml } from '../../src/report/index.js';

// XML 1.0 cannot carry these; anything else must come back as it went in.
const carried = (s: string) => s.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');

it('any text in names, messages and bodies reaches a real XML parser (Python ElementTree) unchanged, but for what XML cannot carry', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-junit-'));
  try {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    const cases = fc.sample(fc.record({ name: text, message: text, body: text, output: text }), { numRuns: 300 });
    const xml = renderJunitXml('property', [
      {
        name: 'suite <&>',
        cases: cases.map((c, i) => ({
          classname: `c${i}`,
          name: c.name,
          failure: { type: 'failed', message: c.message, body: c.body },
          output: c.output,
        })),
      },
    ]);
    const file = join(dir, 'r.xml');
    await writeFile(file, xml);
    const script = [
      'import json, sys, xml.etree.ElementTree as E',
      'root = E.parse(sys.argv[1]).getroot()',
      'out = [{"name": c.get("name"), "message": c.find("failure").get("message"), "body": c.find("failure").text or "",',
      '        "output": c.find("system-out").text if c.find("system-out") is not None else ""} for c in root.iter("testcase")]',
      'print(json.dumps({"suite": root.find("testsuite").get("name"), "cases": out}))',
    ].join('\n');
    const parsed = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8', maxBuffer: 1 << 26 }));
    expect(parsed.suite).toBe('suite <&>');
    // XML parsers turn a CR or CRLF in element text into LF; attributes keep theirs, escaped.
    const element = (s: string) => carried(s).replace(/\r\n?/g, '\n');
    expect(parsed.cases).toEqual(
      cases.map((c) => ({
        name: carried(c.name),
        message: carried(c.message),
        body: element(c.body),
        output: c.output ? element(c.output) : '',
      })),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
