/** One test case of a JUnit report; a failure makes it red, output is kept beside it. */
export interface JunitCase {
  classname: string;
  name: string;
  /** Seconds, when the command measured it. */
  time?: number;
  failure?: { type: string; message: string; body: string };
  output?: string;
}

export interface JunitSuite {
  name: string;
  cases: JunitCase[];
}

// XML 1.0 has no escape for most control characters; a stray one (a recorded
// terminal byte, say) would make the whole report unreadable to CI.
const ILLEGAL = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const ENTITY: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };

/** Text fit for an XML element or attribute: entities escaped, characters XML cannot carry replaced. */
export function xmlText(s: string): string {
  return s.replace(ILLEGAL, '\uFFFD').replace(/[<>&"']/g, (ch) => ENTITY[ch] as string);
}

// Attribute values lose their line breaks and tabs to normalisation unless escaped.
const attr = (s: string) => xmlText(s).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');

function renderCase(c: JunitCase): string {
  const time = c.time === undefined ? '' : ` time="${c.time.toFixed(3)}"`;
  const head = `    <testcase classname="${attr(c.classname)}" name="${attr(c.name)}"${time}`;
  const failure = c.failure
    ? `\n      <failure type="${attr(c.failure.type)}" message="${attr(c.failure.message)}">${xmlText(c.failure.body)}</failure>`
    : '';
  const output = c.output ? `\n      <system-out>${xmlText(c.output)}</system-out>` : '';
  return failure || output ? `${head}>${failure}${output}\n    </testcase>` : `${head}/>`;
}

/** A JUnit XML document (the dialect GitHub, GitLab and Jenkins read): one testsuite per group, counts filled in. */
export function renderJunitXml(name: string, suites: readonly JunitSuite[]): string {
  const failures = (cases: readonly JunitCase[]) => cases.filter((c) => c.failure).length;
  const body = suites.map(
    (s) =>
      `  <testsuite name="${attr(s.name)}" tests="${s.cases.length}" failures="${failures(s.cases)}" errors="0">\n${s.cases.map(renderCase).join('\n')}\n  </testsuite>`,
  );
  const all = suites.flatMap((s) => s.cases);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${attr(name)}" tests="${all.length}" failures="${failures(all)}">\n${body.join('\n')}\n</testsuites>\n`;
}
