/** What the MCP SDK client saw of the probes' flows (see mcp-probe-flows.mjs). */
export interface ProbeFlowsView {
  failed?: string;
  terminated?: boolean;
  progress?: { progress: { progress: number; total?: number; message?: string }[]; content: unknown };
  cancel?: string;
  errors: string[];
  [step: string]: unknown;
}

export function mcpProbeFlows(url: string, options?: { fetch?: typeof fetch; connectTimeoutMs?: number }): Promise<ProbeFlowsView>;
