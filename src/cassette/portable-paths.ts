import { homedir, hostname, tmpdir } from 'node:os';
import { decodeBody } from './body.js';
import type { Body, Cassette, Interaction } from './schema.js';
import { type InteractionVisitor, mapJsonStrings, visitInteraction } from './visit.js';

/** The folders of the recording machine that cassettes name by placeholder instead. */
export interface MachineFolders {
  workspace: string;
  home: string;
  tmp: string;
  /** The machine's host name, written `<host>` where it stands as a host (a URL's authority, a host-named field). */
  host?: string | undefined;
}

export function currentFolders(): MachineFolders {
  return { workspace: process.cwd(), home: homedir(), tmp: tmpdir(), host: hostname() };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A placeholder as it may already stand in recorded data, with any number of angle brackets. */
const PLACEHOLDER_RUN = /(<+)(workspace|home|tmp|host)(>+)/g;

/**
 * Recorded data that already reads like a placeholder gets one more bracket
 * on each side (`<tmp>` → `<<tmp>>`), so restoring gives back exactly what was
 * recorded (decision 0006).
 */
function escapePlaceholders(s: string): string {
  if (!s.includes('<')) return s;
  return s.replace(PLACEHOLDER_RUN, (m, open: string, name: string, close: string) =>
    open.length === close.length ? `<${open}${name}${close}>` : m,
  );
}

/** Field names under which a server reports the machine it runs on. */
const HOST_KEYS = 'host|hostname|host_name|server_?name|machine|machine_?name|node_?name|computer_?name';
const HOST_KEY = new RegExp(`^(?:${HOST_KEYS})$`, 'i');
/** A machine's own name, in an object that is one: `{"hosts":[{"name":"vm"}]}` (omnigent's `/v1/hosts`). */
const NAME_KEY = /^(?:name|display_?name)$/i;
const HOST_OWNER = /^(?:hosts?|machines?|nodes?|computers?)$/i;

/** Whether a JSON string under `key`, in an object held by `owner`, stands for a machine. */
const namesAHost = (key: string | undefined, owner: string | undefined) =>
  key !== undefined && (HOST_KEY.test(key) || (NAME_KEY.test(key) && owner !== undefined && HOST_OWNER.test(owner)));

/** Maps the strings of recorded data: `text` for whole texts, `value` for a JSON string under a key (in an object held by `owner`), `key` for a JSON key. */
export interface PlaceholderMapper {
  text(s: string): string;
  value(s: string, key: string | undefined, owner?: string): string;
  key(k: string): string;
}

/** A JSON text's strings that stand for a machine named `host`, found by reading the text (a text is mapped as text, to keep its bytes). */
function hostNamedInJson(s: string, host: string): boolean {
  const t = s.trimStart();
  if (t[0] !== '{' && t[0] !== '[') return false;
  let doc: unknown;
  try {
    doc = JSON.parse(s);
  } catch {
    return false;
  }
  let found = false;
  mapJsonStrings(doc, {
    value: (v, key, owner) => {
      if (v === host && NAME_KEY.test(key ?? '') && HOST_OWNER.test(owner ?? '')) found = true;
      return v;
    },
  });
  return found;
}

/**
 * Replaces what is provably the recording machine's by `<workspace>`, `<home>`,
 * `<tmp>` or `<host>` (decision 0006): absolute paths under those folders
 * (longest first, whole path prefixes only), and the host name only where it
 * stands as a host: a URL's authority, or the whole value of a host-named JSON
 * field. Request paths are never given to it. Restoring with the same folders
 * gives back the recorded bytes.
 */
export function placeholderMapper(folders: MachineFolders): PlaceholderMapper {
  const paths = pathReplacer(folders);
  const host = validHost(folders.host);
  const inUrl = host ? new RegExp(`(?<=://(?:[^@/\\s"'<>]*@)?)${escapeRegExp(host)}(?=[:/?#"'\\s]|$)`, 'g') : undefined;
  const inJsonText = host ? new RegExp(`("(?:${HOST_KEYS})"\\s*:\\s*")${escapeRegExp(host)}(?=")`, 'gi') : undefined;
  // A name field is the host only inside a host's object, which only reading the JSON tells.
  const nameInJsonText = host ? new RegExp(`("(?:name|display_?name)"\\s*:\\s*")${escapeRegExp(host)}(?=")`, 'gi') : undefined;
  const base = (s: string) => {
    let r = paths(escapePlaceholders(s));
    if (host && inUrl && r.includes(host) && r.includes('://')) r = r.replace(inUrl, '<host>');
    return r;
  };
  return {
    text: (s) => {
      let r = base(s);
      if (!host || !inJsonText || !nameInJsonText || !r.includes(host)) return r;
      r = r.replace(inJsonText, '$1<host>');
      return r.includes(host) && hostNamedInJson(s, host) ? r.replace(nameInJsonText, '$1<host>') : r;
    },
    value: (s, key, owner) => (host && s === host && namesAHost(key, owner) ? '<host>' : base(s)),
    key: base,
  };
}

/** The host name worth a placeholder; none for `localhost`, addresses and one-letter names, which identify no machine. */
function validHost(host: string | undefined): string | undefined {
  if (!host || host.length < 2 || host === 'localhost' || !/^[A-Za-z0-9][\w.-]*$/.test(host) || /^[\d.]+$/.test(host)) return undefined;
  return host;
}

function pathReplacer(folders: MachineFolders): (s: string) => string {
  const entries = Object.entries({ workspace: folders.workspace, home: folders.home, tmp: folders.tmp })
    .map(([name, path]) => [name, path.replace(/\/+$/, '')] as const)
    .filter(([, path]) => path.split('/').filter(Boolean).length >= 1 && path.length > 1)
    .sort((a, b) => b[1].length - a[1].length);
  if (entries.length === 0) return (s) => s;
  // Not after `<`, nor before `>`: a placeholder written here never touches a bracket, so it cannot be read as an escaped one.
  const pattern = new RegExp(`(?<![\\w.<-])(${entries.map(([, p]) => escapeRegExp(p)).join('|')})(?=[/\\\\"'\\s:;,)\\]}]|$)`, 'g');
  const byPath = new Map(entries.map(([name, path]) => [path, `<${name}>`]));
  return (s) => (s.includes('/') ? s.replace(pattern, (m) => byPath.get(m) ?? m) : s);
}

const mapJson = (value: unknown, m: PlaceholderMapper) => mapJsonStrings(value, { value: m.value, key: m.key });

/** The portable-paths pass: headers, bodies, frames and SSE data (and its wire text, so restoring gives both back); never the request path. */
function portableVisitor(m: PlaceholderMapper): InteractionVisitor {
  return {
    origin: m.text,
    header: (_name, value) => m.text(value),
    body: (body) =>
      'json' in body ? { ...body, json: mapJson(body.json, m) } : 'text' in body ? { ...body, text: m.text(body.text) } : body,
    event: (e) =>
      e.data === undefined && e.raw === undefined
        ? e
        : { ...e, ...(e.data !== undefined ? { data: m.text(e.data) } : {}), ...(e.raw !== undefined ? { raw: m.text(e.raw) } : {}) },
  };
}

/** The portable-paths pass as a visitor, with the mapping of whole texts (to learn a secret in the form it will take). */
export function portablePass(folders: MachineFolders = currentFolders()): { visitor: InteractionVisitor; text: (s: string) => string } {
  const m = placeholderMapper(folders);
  return { visitor: portableVisitor(m), text: m.text };
}

/**
 * The names of this machine (its host name, its workspace, home and temp
 * folders) that a cassette still spells out where `makePortable` would have
 * put a placeholder: what a committed cassette must not hold.
 */
export function machineNamesIn(cassette: Cassette, folders: MachineFolders = currentFolders()): string[] {
  const m = placeholderMapper(folders);
  const found = new Set<string>();
  // Recorded text that read like a placeholder comes out with more brackets: a single-bracketed one is a name the pass replaced.
  const watch =
    <A extends unknown[]>(f: (s: string, ...rest: A) => string) =>
    (s: string, ...rest: A) => {
      const r = f(s, ...rest);
      if (r !== s)
        for (const [, open, name, close] of r.matchAll(PLACEHOLDER_RUN))
          if (open?.length === 1 && close?.length === 1) found.add(folders[name as keyof MachineFolders] ?? String(name));
      return s;
    };
  const visitor = portableVisitor({ text: watch(m.text), value: watch(m.value), key: watch(m.key) });
  for (const i of cassette.interactions) visitInteraction(i, visitor);
  return [...found];
}

/** `makePortable` for one interaction at a time. */
export function portableInteraction(folders: MachineFolders = currentFolders()): (i: Interaction) => Interaction {
  const visitor = portableVisitor(placeholderMapper(folders));
  return (i) => visitInteraction(i, visitor);
}

/**
 * Replaces the recording machine's folders and host name with placeholders.
 * Applied once, when a recording is captured: a loaded cassette is portable already.
 */
export function makePortable(cassette: Cassette, folders: MachineFolders = currentFolders()): Cassette {
  const visitor = portableVisitor(placeholderMapper(folders));
  return { ...cassette, interactions: cassette.interactions.map((i) => visitInteraction(i, visitor)) };
}

/** The inverse of `placeholderMapper`: `<tmp>` becomes this machine's temp folder, `<<tmp>>` the recorded text `<tmp>`. */
export function folderRestorer(folders: MachineFolders): (s: string) => string {
  const map = new Map(
    Object.entries(folders)
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .map(([name, path]) => [name, name === 'host' ? path : path.replace(/\/+$/, '')]),
  );
  return (s) =>
    s.includes('<')
      ? s.replace(PLACEHOLDER_RUN, (m, open: string, name: string, close: string) => {
          if (open.length !== close.length) return m;
          if (open.length > 1) return `${open.slice(1)}${name}${close.slice(1)}`;
          return map.get(name) ?? m;
        })
      : s;
}

/** A recorded body's bytes with folder placeholders restored; binary bodies are never touched. */
export function restoreBody(body: Body | undefined, restore: (s: string) => string): Buffer {
  if (!body || !('json' in body)) return body && 'text' in body ? Buffer.from(restore(body.text)) : decodeBody(body);
  const text = JSON.stringify(body.json);
  // Every placeholder holds a `<`: a body without one is written once, not walked.
  return Buffer.from(text.includes('<') ? JSON.stringify(mapJsonStrings(body.json, { value: restore, key: restore })) : text);
}
