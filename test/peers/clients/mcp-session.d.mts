/** What the MCP SDK client saw of one session (see mcp-session.mjs). */
export interface McpView {
  failed?: string;
  terminated?: boolean;
  logArrived?: boolean;
  longRunning?: { content: unknown; progress: { progress: number; total?: number }[] };
  logs: string[];
  logCount: number;
  answers: unknown[];
  errors: string[];
  [step: string]: unknown;
}

export function mcpSession(url: string): Promise<McpView>;
