import { homedir, hostname, tmpdir } from 'node:os';
import type { Body, Cassette, Headers, Interaction } from './schema.js';

/** The folders of the recording machine that cassettes name by placeholder instead. */
export interface MachineFolders {
  workspace: string;
  home: string;
  tmp: string;
  /** The machine's host name, written `<host>` (real servers report it, e.g. codex's `serverName`). */
  host?: string | undefined;
}

export function currentFolders(): MachineFolders {
  return { workspace: process.cwd(), home: homedir(), tmp: tmpdir(), host: hostname() };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A function replacing each folder by `<workspace>`, `<home>` or `<tmp>`,
 * longest first, and only as a whole path prefix (`/tmp` is not in `/var/tmp`);
 * the host name, as a whole token, by `<host>`.
 */
export function folderReplacer(folders: MachineFolders): (s: string) => string {
  const paths = pathReplacer(folders);
  const host = hostPattern(folders.host);
  if (!host) return paths;
  const name = folders.host as string;
  return (s) => {
    const r = paths(s);
    return r.includes(name) ? r.replace(host, '<host>') : r;
  };
}

/** A host name as a whole token; none for `localhost`, addresses and one-letter names, which identify no machine. */
function hostPattern(host: string | undefined): RegExp | undefined {
  if (!host || host.length < 2 || host === 'localhost' || !/^[A-Za-z0-9][\w.-]*$/.test(host) || /^[\d.]+$/.test(host)) return undefined;
  return new RegExp(`(?<![\\w./-])${escapeRegExp(host)}(?![\\w-])`, 'g');
}

function pathReplacer(folders: MachineFolders): (s: string) => string {
  const entries = Object.entries({ workspace: folders.workspace, home: folders.home, tmp: folders.tmp })
    .map(([name, path]) => [name, path.replace(/\/+$/, '')] as const)
    .filter(([, path]) => path.split('/').filter(Boolean).length >= 1 && path.length > 1)
    .sort((a, b) => b[1].length - a[1].length);
  if (entries.length === 0) return (s) => s;
  const pattern = new RegExp(`(?<![\\w.-])(${entries.map(([, p]) => escapeRegExp(p)).join('|')})(?=[/\\\\"'\\s:;,)\\]}]|$)`, 'g');
  const byPath = new Map(entries.map(([name, path]) => [path, `<${name}>`]));
  return (s) => (s.includes('/') ? s.replace(pattern, (m) => byPath.get(m) ?? m) : s);
}

function mapJson(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapJson(v, f));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), mapJson(v, f)]));
  }
  return value;
}

function mapHeaders(headers: Headers, f: (s: string) => string): Headers {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.map(f) : f(v)]));
}

function mapBody(body: Body | undefined, f: (s: string) => string): Body | undefined {
  if (!body) return body;
  if ('json' in body) return { json: mapJson(body.json, f) };
  if ('text' in body) return { text: f(body.text) };
  return body;
}

function mapInteraction(i: Interaction, f: (s: string) => string): Interaction {
  const requestBody = mapBody(i.request.body, f);
  const request = {
    ...i.request,
    path: f(i.request.path),
    headers: mapHeaders(i.request.headers, f),
    ...(requestBody ? { body: requestBody } : {}),
  };
  if (!i.response) return { ...i, request };
  const { body, stream, websocket, ...head } = i.response;
  const responseBody = mapBody(body, f);
  const response = {
    ...head,
    headers: mapHeaders(i.response.headers, f),
    ...(responseBody ? { body: responseBody } : {}),
    ...(stream ? { stream: { ...stream, events: stream.events.map((e) => (e.data === undefined ? e : { ...e, data: f(e.data) })) } } : {}),
    ...(websocket
      ? {
          websocket: {
            ...websocket,
            frames: websocket.frames.map((fr) =>
              fr.json !== undefined ? { ...fr, json: mapJson(fr.json, f) } : fr.text !== undefined ? { ...fr, text: f(fr.text) } : fr,
            ),
          },
        }
      : {}),
  };
  return { ...i, request, response };
}

/** Replaces the recording machine's folders in every string of the cassette with placeholders. */
export function makePortable(cassette: Cassette, folders: MachineFolders = currentFolders()): Cassette {
  const f = folderReplacer(folders);
  return { ...cassette, interactions: cassette.interactions.map((i) => mapInteraction(i, f)) };
}

/** The inverse of `folderReplacer`: `<tmp>` becomes this machine's temp folder, and so on. */
export function folderRestorer(folders: MachineFolders): (s: string) => string {
  const map = new Map(
    Object.entries(folders)
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .map(([name, path]) => [`<${name}>`, name === 'host' ? path : path.replace(/\/+$/, '')]),
  );
  return (s) => (s.includes('<') ? s.replace(/<(workspace|home|tmp|host)>/g, (m) => map.get(m) ?? m) : s);
}

/** Response bytes with folder placeholders restored; binary bodies are never touched. */
export function restoreBody(bytes: Buffer, body: Body | undefined, restore: (s: string) => string): Buffer {
  if (!body || 'base64' in body) return bytes;
  if ('json' in body) return Buffer.from(JSON.stringify(mapJson(body.json, restore)));
  return Buffer.from(restore(body.text));
}
