import { recordCodex } from '../codex/record-codex.js';
import { recordOpenCode } from '../opencode/record-opencode.js';
import type { Manifest } from '../probes/manifest.js';
import type { SuiteOptions } from '../probes/record-suite.js';
import { startMockModel } from '../simulator/model/index.js';
import { type PeerKind, type PeerServer, startPeer } from './start-peer.js';

/** Where real servers' recordings go by default: beside the simulator's, never over them. */
export const PEER_FOLDERS: Record<PeerKind, string> = { opencode: 'opencode-serve-real', codex: 'codex-app-server-real' };

export interface RecordPeerOptions extends Omit<SuiteOptions, 'server' | 'seed'> {
  /** The vendor binary to run. */
  binary: string;
  /** Called once the real server listens, with what it reported. */
  onStarted?: ((peer: PeerServer) => void) | undefined;
}

/**
 * Runs the real vendor server against tapedeck's mock model, isolated under a
 * temp folder, records its probe suite through the recording proxy, and stops
 * everything it started, whatever happens.
 */
export async function recordPeer(kind: PeerKind, options: RecordPeerOptions): Promise<Manifest> {
  const model = await startMockModel();
  try {
    const peer = await startPeer(kind, { binary: options.binary, modelBaseUrl: model.baseUrl });
    try {
      options.onStarted?.(peer);
      const suite = {
        ...options,
        server: peer.url,
        folder: options.folder ?? PEER_FOLDERS[kind],
        described: `${kind === 'opencode' ? 'opencode serve' : 'codex app-server'} ${peer.version.replace(/^\D+/, '')} (the real binary) against the tapedeck mock model`,
      };
      return kind === 'opencode' ? await recordOpenCode(suite) : await recordCodex(suite);
    } finally {
      await peer.close();
    }
  } finally {
    await model.close();
  }
}
