import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cassette, loadCassette } from '../../../src/cassette/index.js';

export const tempDir = (prefix: string) => mkdtemp(join(tmpdir(), `tapedeck-${prefix}-`));

/** A cassette with every timing field removed: what must be identical across recordings of one seed. */
export function withoutTiming(c: Cassette): unknown {
  return {
    ...c,
    meta: { ...c.meta, recordedAt: '' },
    interactions: c.interactions.map(({ timing: _t, ...i }) => ({
      ...i,
      response: i.response && {
        ...i.response,
        stream: i.response.stream && { ...i.response.stream, events: i.response.stream.events.map(({ at: _at, ...e }) => e) },
        websocket: i.response.websocket && { ...i.response.websocket, frames: i.response.websocket.frames.map(({ at: _at, ...f }) => f) },
      },
    })),
  };
}

/** Every cassette under `dir/harness`, by file name, timing removed. */
export async function folderWithoutTiming(dir: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of (await readdir(dir)).sort()) {
    if (name === 'manifest.yaml') continue;
    out[name] = withoutTiming(await loadCassette(join(dir, name)));
  }
  return out;
}

export function streamOf(c: Cassette) {
  const i = c.interactions.find((x) => x.response?.stream);
  if (!i?.response?.stream) throw new Error('no stream in cassette');
  return i.response.stream.events;
}
