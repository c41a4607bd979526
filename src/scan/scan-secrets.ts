import { readFile } from 'node:fs/promises';
import { makeRedactor, parseCassette, type RedactionConfig } from '../cassette/index.js';
import { listFiles } from '../fs/list-files.js';

export interface SecretFinding {
  file: string;
  line: number;
  kind: string;
  /** The start of the value only, enough to find it. */
  preview: string;
}

function lineOf(text: string, value: string): number {
  // Values sit in the YAML as written, or JSON-escaped inside a quoted scalar.
  for (const needle of [value, JSON.stringify(value).slice(1, -1)]) {
    const at = text.indexOf(needle);
    if (at !== -1) return text.slice(0, at).split('\n').length;
  }
  return 0;
}

/**
 * Looks for anything secret in files: credential shapes anywhere, and, in
 * cassettes, values of secret headers, query parameters and JSON fields that
 * were not redacted.
 */
export async function scanForSecrets(paths: readonly string[], config?: RedactionConfig): Promise<SecretFinding[]> {
  const redactor = makeRedactor(config);
  const findings: SecretFinding[] = [];
  for (const file of (await Promise.all(paths.map((p) => listFiles(p, (name) => /\.(ya?ml|json|har|txt)$/.test(name))))).flat()) {
    const text = await readFile(file, 'utf8');
    const seen = new Set<string>();
    const add = (value: string, kind: string) => {
      const line = lineOf(text, value);
      const key = `${line} ${value}`;
      if (seen.has(key) || line === 0) return;
      seen.add(key);
      findings.push({ file, line, kind, preview: `${value.slice(0, 6)}…` });
    };
    text.split('\n').forEach((line) => {
      for (const { value, kind } of redactor.findShapes(line)) add(value, kind);
    });
    let cassette: ReturnType<typeof parseCassette> | undefined;
    try {
      cassette = parseCassette(text, file);
    } catch {
      cassette = undefined; // not a cassette: shapes only
    }
    for (const { value, kind } of cassette ? redactor.findSecrets(cassette) : []) add(value, kind);
  }
  return findings.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
}
