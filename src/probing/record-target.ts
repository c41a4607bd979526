import { UsageError } from '../errors.js';
import { type Family, families, mockModelRules, type PeerSpec } from '../families/index.js';
import type { Manifest } from '../manifest/index.js';
import { type MockModel, startMockModel } from '../mock-model/index.js';
import type { RecordFamilyOptions } from './options.js';
import { recordFamily } from './record-family.js';
import { type PeerServer, startPeer } from './start-peer.js';
import { RecordingStopped, unlessStopped } from './stopped.js';

export interface RecordTargetOptions extends RecordFamilyOptions {
  /** A real vendor binary to run against the mock model and record (suites with a peer). */
  peer?: string | undefined;
  /** Called once a peer listens, with what it reported. */
  onPeerStarted?: ((peer: PeerServer) => void) | undefined;
}

/** The real server `--peer` starts for a family, or for one of its variants (a harness). */
export function peerSpecFor(suite: Family, variant: string | undefined): PeerSpec | undefined {
  return (variant !== undefined ? suite.peerOf?.(variant) : undefined) ?? suite.peer;
}

/**
 * Records a family: against `server`, against its real vendor binary (`peer`,
 * started isolated against tapedeck's mock model and stopped whatever
 * happens), or against its embedded simulator.
 */
export async function recordTarget(suite: Family, options: RecordTargetOptions): Promise<Manifest> {
  if (!options.peer) return recordFamily(suite, options);
  const spec = peerSpecFor(suite, options.variant);
  if (!spec)
    throw new UsageError(
      `--peer runs a real vendor server, which the ${suite.id} target has none of; use it with --target ${families()
        .filter((s) => s.peer)
        .map((s) => s.id)
        .join(' or --target ')}`,
    );
  if (options.server) throw new UsageError('--peer starts the server itself; give --peer or --server, not both');
  const model = await startFamilyMockModel();
  try {
    const starting = startPeer(suite.id, spec, { binary: options.peer, modelBaseUrl: model.baseUrl });
    const peer = await unlessStopped(starting, options.signal).catch(async (err: unknown) => {
      // Stopped while the server came up: it is stopped once up, never left running in its own process group.
      if (err instanceof RecordingStopped)
        await starting.then(
          (p) => p.close(),
          () => {},
        );
      throw err;
    });
    try {
      options.onPeerStarted?.(peer);
      return await recordFamily(suite, {
        ...options,
        server: peer.url,
        apiKey: options.apiKey ?? peer.apiKey,
        folder: options.folder ?? spec.folder,
        described: `${spec.title} ${peer.version.replace(/^\D+/, '')} (the real binary) against the tapedeck mock model`,
      });
    } finally {
      await peer.close();
    }
  } finally {
    await model.close();
  }
}

/** The mock model, scripted for every registered family's probes: what a peer runs against. */
export function startFamilyMockModel(options: { port?: number; host?: string } = {}): Promise<MockModel> {
  return startMockModel({ ...options, rules: mockModelRules() });
}
