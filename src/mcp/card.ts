/**
 * The MCP server card (SEP-1649 style static card at
 * /.well-known/mcp/server-card.json): who the server is, where its
 * Streamable HTTP endpoint is, and each tool's name, description, price and
 * annotations, all from the published tools.
 */
import { z } from "zod";
import type { McpService } from "./server.js";
import { MCP_SERVER_NAME } from "./server.js";

export const ServerCard = z.object({
  serverInfo: z.object({ name: z.string(), title: z.string(), version: z.string() }),
  authentication: z.object({ required: z.literal(false), note: z.string() }),
  transport: z.object({ type: z.literal("streamable-http"), url: z.string() }),
  capabilities: z.object({ tools: z.object({ listChanged: z.boolean() }) }),
  tools: z.array(
    z.object({
      name: z.string(),
      title: z.string(),
      description: z.string(),
      price: z.string().describe('"free", or the USDC price ("$0.10")'),
      annotations: z.record(z.string(), z.unknown()),
    }),
  ),
  resources: z.array(z.never()),
  prompts: z.array(z.never()),
});
export type ServerCard = z.infer<typeof ServerCard>;

export function serverCard(service: McpService, mcpUrl: string): ServerCard {
  return {
    serverInfo: { name: MCP_SERVER_NAME, title: "Vigil", version: service.version },
    authentication: { required: false, note: 'No accounts: paid tools take an x402 payment in _meta["x402/payment"].' },
    transport: { type: "streamable-http", url: mcpUrl },
    capabilities: { tools: { listChanged: false } },
    tools: service.tools.map((t) => ({
      name: t.tool.name,
      title: t.tool.title ?? t.tool.name,
      description: t.tool.description ?? "",
      price: t.descriptor.price,
      annotations: { ...(t.tool.annotations ?? {}) },
    })),
    resources: [],
    prompts: [],
  };
}
