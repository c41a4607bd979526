import type { Body, MachineFolders } from '../cassette/index.js';

/** The inverse of the recorder's folder placeholders: `<tmp>` becomes this machine's temp folder, and so on. */
export function folderRestorer(folders: MachineFolders): (s: string) => string {
  const map = new Map(Object.entries(folders).map(([name, path]) => [`<${name}>`, path.replace(/\/+$/, '')]));
  return (s) => (s.includes('<') ? s.replace(/<(workspace|home|tmp)>/g, (m) => map.get(m) ?? m) : s);
}

function mapJson(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapJson(v, f));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapJson(v, f)]));
  return value;
}

/** The response bytes with placeholders restored; binary bodies are never touched. */
export function restoreBody(bytes: Buffer, body: Body | undefined, restore: (s: string) => string): Buffer {
  if (!body || 'base64' in body) return bytes;
  if ('json' in body) return Buffer.from(JSON.stringify(mapJson(body.json, restore)));
  return Buffer.from(restore(body.text));
}
