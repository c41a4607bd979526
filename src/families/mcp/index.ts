// The MCP family: its probes, client and pack, for a user's own tests and packs.
export { McpClient, type McpMessage, type McpReply } from './client.js';
export { mcpFamily } from './family.js';
export { mcpStreamableHttp } from './packs.js';
export { MCP_PROBES, type McpProbe } from './probes.js';
