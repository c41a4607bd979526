import { readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type Cassette, parseCassette } from '../cassette/index.js';

/** A cassette without when it was recorded: the offsets of its requests, events and frames, and `recordedAt`. */
function timeless(c: Cassette): unknown {
  const { recordedAt: _r, ...meta } = c.meta;
  return {
    ...c,
    meta,
    interactions: c.interactions.map(({ timing: _t, ...i }) => {
      const r = i.response;
      if (!r) return i;
      return {
        ...i,
        response: {
          ...r,
          ...(r.stream ? { stream: { ...r.stream, events: r.stream.events.map(({ at: _a, ...e }) => e) } } : {}),
          ...(r.websocket ? { websocket: { ...r.websocket, frames: r.websocket.frames.map(({ at: _a, ...f }) => f) } } : {}),
        },
      };
    }),
  };
}

async function readText(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}

/** Whether two files say the same but for when they were recorded: cassettes by their content, manifests but for `recordedAt`. */
async function sameButWhen(staged: string, existing: string): Promise<boolean> {
  const [a, b] = await Promise.all([readText(staged), readText(existing)]);
  if (a === undefined || b === undefined) return false;
  try {
    if (staged.endsWith('manifest.yaml')) {
      const strip = (text: string) => {
        const { recordedAt: _r, ...rest } = parseYaml(text) as Record<string, unknown>;
        return JSON.stringify(rest);
      };
      return strip(a) === strip(b);
    }
    return JSON.stringify(timeless(parseCassette(a, staged))) === JSON.stringify(timeless(parseCassette(b, existing)));
  } catch {
    // An existing file that is no valid cassette is replaced.
    return false;
  }
}

/**
 * Moves a finished recording from its staging folder into place, file by
 * file; a file that differs from the one already there only in its timings
 * and `recordedAt` is left as it was, so re-recording an unchanged server
 * changes nothing on disk. The staging folder is removed.
 */
export async function settleRecording(
  stage: string,
  dir: string,
  files: readonly string[],
): Promise<{ written: string[]; unchanged: string[] }> {
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const name of files) {
    const staged = join(stage, name);
    if (await sameButWhen(staged, join(dir, name))) unchanged.push(name);
    else {
      await rename(staged, join(dir, name));
      written.push(name);
    }
  }
  await rm(stage, { recursive: true, force: true });
  return { written, unchanged };
}
