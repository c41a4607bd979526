/** Types for server.mjs, so family.ts type-checks. */
export function startEchoAgent(options?: {
  port?: number;
  host?: string;
  latencyMs?: number;
  changed?: boolean;
}): Promise<{ url: string; close(): Promise<void> }>;
