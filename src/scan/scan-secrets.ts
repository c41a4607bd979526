import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import {
  type Body,
  type Cassette,
  contentEncodingOf,
  currentFolders,
  decodeContent,
  encodeBody,
  type Headers,
  type Interaction,
  MAX_STORED_BODY,
  type MachineFolders,
  machineNamesIn,
  makeRedactor,
  parseCassette,
  type RedactionConfig,
  type Redactor,
  readCanonicalYaml,
  refuseTooBig,
  refuseTooDeep,
  unreadableCoding,
} from '../cassette/index.js';
import { walkFiles } from '../fs/list-files.js';

export interface SecretFinding {
  file: string;
  line: number;
  kind: string;
  /** The start of the value only, enough to find it. */
  preview: string;
}

export interface ScanReport {
  findings: SecretFinding[];
  /** Files that look like cassettes but are not valid ones: scanned all the same, as text and YAML. */
  warnings: string[];
  files: number;
  /** Every file read, in order. */
  scanned: string[];
}

/**
 * Every file under a path, hidden folders and any name included (a secret
 * hides in `.backup/`, `x.yaml.bak` or a journal as well); only `.git` and
 * `node_modules` are passed over, and no link is followed out of the path.
 */
const everyFile = (path: string) =>
  walkFiles(path, { keep: () => true, skip: (name) => name === '.git' || name === 'node_modules', leaveRoot: false });

/** The line of the first place a value stands in the text, as written or in any escaped form a YAML or JSON writer uses. */
function lineOf(text: string, value: string): number | undefined {
  const forms = [value, JSON.stringify(value).slice(1, -1), value.replace(/'/g, "''"), encodeURIComponent(value)];
  for (const needle of forms) {
    const at = needle ? text.indexOf(needle) : -1;
    if (at !== -1) return text.slice(0, at).split('\n').length;
  }
  return undefined;
}

/** Every string in a parsed document, keys included. */
function* stringsOf(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const v of value) yield* stringsOf(v);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      yield k;
      yield* stringsOf(v);
    }
}

/** What a base64 body or frame stands for, as text a shape can be found in. */
function* decodedBase64(value: unknown): Generator<string> {
  if (Array.isArray(value)) for (const v of value) yield* decodedBase64(v);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === 'base64' && typeof v === 'string') yield Buffer.from(v, 'base64').toString('latin1');
      else yield* decodedBase64(v);
    }
}

const codingOf = (headers: Headers) => {
  const v = headers['content-encoding'];
  return Array.isArray(v) ? v.join(', ') : v;
};

/**
 * Compressed bodies kept as their bytes though tapedeck decodes their coding
 * (a request recorded before decision 0015): each as an interaction holding
 * its content instead, to be searched as any body is, with the base64 that stands for it in the file.
 */
function* compressedBodies(cassette: Cassette): Generator<{ inside: Interaction; base64: string }> {
  for (const i of cassette.interactions) {
    const sides = [
      [i.request.body, i.request.headers, i.request.encoding, (body: Body) => ({ ...i, request: { ...i.request, body } })],
      [
        i.response?.body,
        i.response?.headers ?? {},
        i.response?.encoding,
        (body: Body) => ({ ...i, response: { ...(i.response as NonNullable<Interaction['response']>), body } }),
      ],
    ] as const;
    for (const [body, headers, recorded, withBody] of sides) {
      const coding = contentEncodingOf(codingOf(headers));
      if (!body || !('base64' in body) || !coding || recorded) continue;
      const content = decodeContent(Buffer.from(body.base64, 'base64'), coding, MAX_STORED_BODY);
      const decoded = content && encodeBody(content);
      if (decoded) yield { inside: withBody(decoded), base64: body.base64 };
    }
  }
}

/** Bodies kept as their bytes in a content coding tapedeck cannot decode: nothing in them was redacted or can be searched. */
function* unreadableBodies(cassette: Cassette): Generator<string> {
  const coded = (headers: Headers) => unreadableCoding(codingOf(headers));
  for (const i of cassette.interactions) {
    const parts = [
      ['request', i.request.headers, i.request.body],
      ['response', i.response?.headers ?? {}, i.response?.body],
    ] as const;
    for (const [which, headers, body] of parts) {
      const coding = coded(headers);
      if (coding && body && !('omitted' in body))
        yield `#${i.seq}'s ${which} body is in ${coding}, a content coding tapedeck cannot decode: it was neither redacted nor searched; check it by hand, or record it again with the client asking for gzip or br`;
    }
  }
}

/** The document as YAML (or JSON, or JSON lines) would read it: escapes and quoting undone. */
function parsedDocuments(text: string): unknown[] {
  // A file as tapedeck writes it is read by the canonical reader, many times faster; it refuses anything else (a
  // duplicated key included), which the full parser then reads, keys repeated or not.
  const canonical = readCanonicalYaml(text);
  if (canonical) return [canonical];
  try {
    return [parseYaml(text, { uniqueKeys: false, logLevel: 'silent' })];
  } catch {
    // JSON lines (a journal) or not structured at all.
    return text.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
  }
}

/**
 * Looks for anything secret in files, as the safety net for CI: credential
 * shapes in the text, in every string of the file as YAML or JSON reads it
 * (escapes, quoting) and in decoded base64; in cassettes, values of secret
 * headers, query parameters and JSON fields that were not redacted, and
 * this machine's host name or folders where a recording puts a placeholder.
 * `exempt` only applies with `honourExempt`: a CI check should not be
 * silenced by the config it checks.
 */
export async function scanForSecrets(
  paths: readonly string[],
  config?: RedactionConfig,
  options: { honourExempt?: boolean } = {},
): Promise<ScanReport> {
  const rules = config && !options.honourExempt ? { ...config, exempt: [] } : config;
  const redactor = makeRedactor(rules);
  const folders = currentFolders();
  const findings: SecretFinding[] = [];
  const warnings: string[] = [];
  const files = (await Promise.all(paths.map(everyFile))).flat();
  for (const file of files) {
    refuseTooBig(file);
    const bytes = await readFile(file);
    if (bytes.includes(0)) continue;
    const text = bytes.toString('utf8');
    // Structure deeper than any recording holds would overflow the walks below: refused, naming its line.
    refuseTooDeep(text, file);
    const found = scanText(text, file, redactor, folders);
    findings.push(...found.findings);
    warnings.push(...found.warnings);
  }
  findings.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { findings, warnings, files: files.length, scanned: files };
}

/** What a scan finds in one file's text (`file` names it in findings and warnings). */
export function scanText(
  text: string,
  file: string,
  redactor: Redactor,
  folders: MachineFolders,
): { findings: SecretFinding[]; warnings: string[] } {
  const findings: SecretFinding[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  const add = (value: string, kind: string) => {
    // A value the file spells some other way than any form we search still counts: at line 1.
    const line = lineOf(text, value) ?? 1;
    const key = `${line} ${value}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({ file, line, kind, preview: `${value.slice(0, 6)}…` });
  };
  const shapesIn = (s: string) => {
    for (const { value, kind } of redactor.findShapes(s)) add(value, kind);
  };
  for (const line of text.split('\n')) shapesIn(line);
  const documents = parsedDocuments(text);
  for (const doc of documents) {
    for (const s of stringsOf(doc)) shapesIn(s);
    for (const s of decodedBase64(doc)) shapesIn(s);
  }
  let cassette: Cassette | undefined;
  try {
    cassette = parseCassette(text, file);
  } catch (err) {
    const looksLikeOne = documents.find((d) => d !== null && typeof d === 'object' && 'interactions' in d);
    if (looksLikeOne) {
      warnings.push(`${(err as Error).message.split('\n')[0]}; scanned as text all the same`);
      // Its secret fields are still worth a look, as far as its shape allows.
      try {
        for (const { value, kind } of redactor.findSecrets(looksLikeOne as Cassette)) add(value, kind);
      } catch {
        // Too broken for a field walk: the shapes above are what there is.
      }
    }
  }
  for (const { value, kind } of cassette ? redactor.findSecrets(cassette) : []) add(value, kind);
  for (const w of cassette ? unreadableBodies(cassette) : []) warnings.push(`${file}: ${w}`);
  // Inside a compressed body the file spells nothing: a finding stands at the line of the body's base64.
  for (const { inside, base64 } of cassette ? compressedBodies(cassette) : []) {
    const one: Cassette = { version: 1, meta: { recorder: '', target: '', recordedAt: '' }, interactions: [inside] };
    const line = lineOf(text, base64.slice(0, 60)) ?? 1;
    const found = [
      ...redactor.findSecrets(one),
      ...[inside.request.body, inside.response?.body].flatMap((b) => (b && 'text' in b ? redactor.findShapes(b.text) : [])),
    ];
    for (const { value, kind } of found) {
      const key = `${line} ${value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push({ file, line, kind, preview: `${value.slice(0, 6)}…` });
    }
  }
  // A committed cassette is portable: this machine's host name and folders stand as placeholders.
  for (const name of cassette ? machineNamesIn(cassette, folders) : [])
    add(name, name === folders.host ? "this machine's host name" : 'a folder of this machine');
  return { findings, warnings };
}
