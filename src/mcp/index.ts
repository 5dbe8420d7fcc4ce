/**
 * The face of the MCP server: the service over the whole table (built by the
 * composition root once the table is joined), its Streamable HTTP mounts and
 * the server card route. `vigil mcp` loads the stdio transport directly
 * (src/mcp/stdio.ts) so the handshake does not wait for the app.
 */
export { createMcpService, type McpService } from "./server.js";
export { mcpRoutes } from "./routes.js";
export { buildMcpApp, mountMcp } from "./http.js";
