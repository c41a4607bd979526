import { renderJunitXml } from './junit.js';
import { markdownTable } from './markdown.js';

/** One thing a command checked (a probe replayed, a cassette fuzzed, a file scanned) and how it came out. */
export interface CheckRow {
  /** What it belongs to: a harness folder, a file's folder. */
  group: string;
  name: string;
  ok: boolean;
  /** One line: the verdict, or what went wrong. */
  summary: string;
  /** The whole story of a failure (a counterexample, the findings). */
  detail?: string;
}

/** JUnit with one testsuite per group (in first-seen order) and one testcase per row. */
export function checkRowsJunit(title: string, rows: readonly CheckRow[]): string {
  const groups = [...new Set(rows.map((r) => r.group))];
  return renderJunitXml(
    title,
    groups.map((group) => ({
      name: group,
      cases: rows
        .filter((r) => r.group === group)
        .map((r) => ({
          classname: group,
          name: r.name,
          ...(r.ok ? {} : { failure: { type: 'failed', message: r.summary, body: r.detail ?? r.summary } }),
        })),
    })),
  );
}

/** A job summary: a heading that counts, then a row for each failure (a clean run needs no table). */
export function checkRowsMarkdown(title: string, rows: readonly CheckRow[], noun = 'checked'): string {
  const failed = rows.filter((r) => !r.ok);
  const lines = [
    `## ${title}: ${failed.length === 0 ? '✅' : '❌'} ${rows.length - failed.length} passed, ${failed.length} failed`,
    '',
    `${rows.length} ${noun}.`,
  ];
  if (failed.length > 0)
    lines.push(
      '',
      markdownTable(
        ['', 'name', 'what'],
        failed.map((r) => [r.group, r.name, r.summary]),
      ),
    );
  return `${lines.join('\n')}\n`;
}
