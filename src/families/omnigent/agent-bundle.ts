import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { loadOnUse } from '../../fs/load-on-use.js';
import { MOCK_MODEL } from '../../mock-model/index.js';

// YAML is written only when a peer starts: loaded then, not by every command that reads the registry.
const yaml = loadOnUse<typeof import('yaml')>('yaml');

/** The builtin the full-server tool and policy probes provoke: read-only, dispatched and gated by the server. */
export const BENCH_TOOL = 'list_files';

/** The agent spec the bench registers for a full-server harness, as `spec_version: 1` YAML. */
export function benchAgentConfig(harness: string): Record<string, unknown> {
  return {
    spec_version: 1,
    name: `bench-${harness}`,
    prompt: 'You are a helpful assistant used for capability testing.',
    // No auth: the runner's OPENAI_BASE_URL and OPENAI_API_KEY reach the model, which is the mock's.
    executor: { type: 'omnigent', model: MOCK_MODEL, config: { harness } },
    tools: { builtins: [BENCH_TOOL] },
  };
}

/** One file in a tar archive: node-tar's ustar header, the bytes, padding to 512. */
function tarEntry(name: string, bytes: Buffer): Buffer {
  // mtime 0 and no owner: the same config gives the same bundle bytes, so a recording replays by content.
  const header = new Header({ path: name, mode: 0o644, size: bytes.length, mtime: new Date(0), type: 'File', uid: 0, gid: 0 });
  header.encode();
  return Buffer.concat([header.block as Buffer, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512)]);
}

/** The agent bundle the server takes: a gzipped tar holding `config.yaml`, byte-for-byte deterministic. */
export function agentBundle(config: Record<string, unknown>): Buffer {
  const tar = Buffer.concat([tarEntry('config.yaml', Buffer.from(yaml().stringify(config))), Buffer.alloc(1024)]);
  return gzipSync(tar, { level: 9 });
}

/** A fixed boundary: the same registration is the same request, which replay matches by content. */
const BOUNDARY = 'tapedeck-bench-agent-bundle';

/** The multipart body of `POST /v1/sessions` that registers an agent bundle. */
export function bundleUpload(bundle: Buffer): { body: Buffer; contentType: string } {
  const part = (headers: string, content: Buffer | string) =>
    Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]);
  return {
    body: Buffer.concat([
      part('Content-Disposition: form-data; name="metadata"', '{}'),
      part('Content-Disposition: form-data; name="bundle"; filename="agent.tar.gz"\r\nContent-Type: application/gzip', bundle),
      Buffer.from(`--${BOUNDARY}--\r\n`),
    ]),
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
  };
}
