/** The MCP server card on the API (the Streamable HTTP endpoint itself is mounted by `http.ts`). */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { ServerCard, serverCard } from "./card.js";
import { MCP_PATH, SERVER_CARD_PATH } from "./http.js";
import type { McpService } from "./server.js";

/**
 * `service` is read per request: the service is built from the whole table,
 * which holds this route. `mcpUrl` is the MCP endpoint to advertise (the
 * API's /mcp unless an MCP port has its own public URL).
 */
export function mcpRoutes(service: () => McpService, site: { baseUrl: string }): AnyRouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: SERVER_CARD_PATH,
      operationId: "mcpServerCard",
      summary: "MCP server card: the Streamable HTTP endpoint and every tool with its price",
      tags: ["meta"],
      input: z.object({}).strict(),
      output: ServerCard,
      handler: async () => serverCard(service(), `${site.baseUrl}${MCP_PATH}`),
    }),
  ];
}
