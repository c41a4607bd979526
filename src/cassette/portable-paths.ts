import { homedir, hostname, tmpdir } from 'node:os';
import type { Body, Cassette, Headers, Interaction, SseItem } from './schema.js';

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

/** Maps the strings of recorded data: `text` for whole texts, `value` for a JSON string under a key, `key` for a JSON key. */
export interface PlaceholderMapper {
  text(s: string): string;
  value(s: string, key: string | undefined): string;
  key(k: string): string;
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
  const base = (s: string) => {
    let r = paths(escapePlaceholders(s));
    if (host && inUrl && r.includes(host) && r.includes('://')) r = r.replace(inUrl, '<host>');
    return r;
  };
  return {
    text: (s) => {
      const r = base(s);
      return host && inJsonText && r.includes(host) ? r.replace(inJsonText, '$1<host>') : r;
    },
    value: (s, key) => (host && s === host && key !== undefined && HOST_KEY.test(key) ? '<host>' : base(s)),
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

function mapJson(value: unknown, m: PlaceholderMapper, key?: string): unknown {
  if (typeof value === 'string') return m.value(value, key);
  if (Array.isArray(value)) return value.map((v) => mapJson(v, m, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [m.key(k), mapJson(v, m, k)]));
  }
  return value;
}

function mapHeaders(headers: Headers, f: (s: string) => string): Headers {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.map(f) : f(v)]));
}

function mapBody(body: Body | undefined, m: PlaceholderMapper): Body | undefined {
  if (!body) return body;
  if ('json' in body) return { ...body, json: mapJson(body.json, m) };
  if ('text' in body) return { ...body, text: m.text(body.text) };
  return body;
}

/** An SSE item's data, and its wire text when kept, through the same mapping (so restoring gives both back). */
function mapEvent(e: SseItem, m: PlaceholderMapper): SseItem {
  if (e.data === undefined && e.raw === undefined) return e;
  return { ...e, ...(e.data !== undefined ? { data: m.text(e.data) } : {}), ...(e.raw !== undefined ? { raw: m.text(e.raw) } : {}) };
}

function mapInteraction(i: Interaction, m: PlaceholderMapper): Interaction {
  const requestBody = mapBody(i.request.body, m);
  const request = {
    ...i.request,
    headers: mapHeaders(i.request.headers, m.text),
    ...(requestBody ? { body: requestBody } : {}),
  };
  if (!i.response) return { ...i, request };
  const { body, stream, websocket, ...head } = i.response;
  const responseBody = mapBody(body, m);
  const response = {
    ...head,
    headers: mapHeaders(i.response.headers, m.text),
    ...(responseBody ? { body: responseBody } : {}),
    ...(stream ? { stream: { ...stream, events: stream.events.map((e) => mapEvent(e, m)) } } : {}),
    ...(websocket
      ? {
          websocket: {
            ...websocket,
            frames: websocket.frames.map((fr) =>
              fr.json !== undefined ? { ...fr, json: mapJson(fr.json, m) } : fr.text !== undefined ? { ...fr, text: m.text(fr.text) } : fr,
            ),
          },
        }
      : {}),
  };
  return { ...i, request, response };
}

/** `makePortable` for one interaction at a time. */
export function portableInteraction(folders: MachineFolders = currentFolders()): (i: Interaction) => Interaction {
  const m = placeholderMapper(folders);
  return (i) => mapInteraction(i, m);
}

/**
 * Replaces the recording machine's folders and host name with placeholders.
 * Applied once, when a recording is captured: a loaded cassette is portable already.
 */
export function makePortable(cassette: Cassette, folders: MachineFolders = currentFolders()): Cassette {
  const m = placeholderMapper(folders);
  return { ...cassette, interactions: cassette.interactions.map((i) => mapInteraction(i, m)) };
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

/** Response bytes with folder placeholders restored; binary bodies are never touched. */
export function restoreBody(bytes: Buffer, body: Body | undefined, restore: (s: string) => string): Buffer {
  if (!body || 'base64' in body || 'omitted' in body) return bytes;
  if ('json' in body) return Buffer.from(JSON.stringify(restoreJson(body.json, restore)));
  return Buffer.from(restore(body.text));
}

function restoreJson(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => restoreJson(v, f));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), restoreJson(v, f)]));
  return value;
}
