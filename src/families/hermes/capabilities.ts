import { z } from 'zod';

/** What a gateway says it has (`GET /v1/capabilities`); older and newer builds list different features and endpoints. */
const capabilitiesSchema = z.looseObject({
  features: z.record(z.string(), z.unknown()).default({}),
  endpoints: z.record(z.string(), z.looseObject({ path: z.string() })).default({}),
});
export type HermesCapabilities = z.infer<typeof capabilitiesSchema>;

/**
 * The server's own list, or undefined when it has none to give (no such
 * route, as in our simulator, or an answer of another shape): every probe is
 * then expected to work.
 */
export async function fetchCapabilities(server: string, apiKey: string): Promise<HermesCapabilities | undefined> {
  try {
    const res = await fetch(`${server}/v1/capabilities`, { headers: { authorization: `Bearer ${apiKey}` } });
    if (!res.ok) return undefined;
    const parsed = capabilitiesSchema.safeParse(await res.json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const hasPath = (c: HermesCapabilities, path: string) => Object.values(c.endpoints).some((e) => e.path.startsWith(path));
const feature = (c: HermesCapabilities, name: string) => {
  const value = c.features[name];
  return value === true || (typeof value === 'object' && value !== null && (value as { supported?: unknown }).supported === true);
};

/** Per probe, what of the newer gateway it needs, and how to tell from the list that a server lacks it. */
const NEEDS: Record<string, (c: HermesCapabilities) => string | undefined> = {
  chat_stream_reasoning: (c) => (feature(c, 'reasoning_streaming') ? undefined : 'its /v1/capabilities has no reasoning_streaming feature'),
  idempotent_retry: (c) => (feature(c, 'runs_idempotency') ? undefined : 'its /v1/capabilities has no runs_idempotency feature'),
  run_clarify: (c) =>
    hasPath(c, '/v1/runs/{run_id}/clarify') ? undefined : 'its /v1/capabilities lists no /v1/runs/{run_id}/clarify endpoint',
  room_grant_revoked: (c) => (hasPath(c, '/v1/room-members') ? undefined : 'its /v1/capabilities lists no /v1/room-members endpoints'),
};

/** Why the server cannot be asked for this probe's feature, going by its own list; undefined when it can. */
export function lacks(c: HermesCapabilities, probe: string): string | undefined {
  const reason = NEEDS[probe]?.(c);
  return reason && `the gateway does not have it: ${reason}`;
}
