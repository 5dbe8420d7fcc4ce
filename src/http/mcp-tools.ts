/**
 * The MCP tool list, derived from the table: every route that names an
 * `mcpTool`, plus the tool-only entries (the oracle dispatcher). A tool takes
 * the route's whole input object (path params and header-borne credentials
 * are fields of it) and answers the route's output. Its price is the HTTP
 * price unless the entry is free over MCP (`mcpFree`, or a tool-only entry).
 */
import { jsonSchemaOf, type JsonSchema } from "./openapi.js";
import { isToolOnly, priceLabel, type TableEntry } from "./route-table.js";

export interface McpToolDescriptor {
  name: string;
  /** The table entry it adapts. */
  operationId: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** "free", or the price as people read it ("$0.10", "$0.10-$25.00"). */
  price: string;
  /** Atomic USDC when the price is fixed. */
  priceAtomic?: string;
}

export function mcpTools(table: readonly TableEntry[]): McpToolDescriptor[] {
  const tools: McpToolDescriptor[] = [];
  for (const entry of table) {
    if (!entry.mcpTool) continue;
    const paid = !isToolOnly(entry) && !entry.mcpFree ? entry : undefined;
    const label = paid ? priceLabel(paid) : undefined;
    tools.push({
      name: entry.mcpTool,
      operationId: entry.operationId,
      description: entry.description ? `${entry.summary}. ${entry.description}` : entry.summary,
      inputSchema: jsonSchemaOf(entry.input, "input"),
      outputSchema: jsonSchemaOf(entry.output, "output"),
      price: label ?? "free",
      ...(paid && typeof paid.price === "bigint" ? { priceAtomic: paid.price.toString() } : {}),
    });
  }
  const names = tools.map((t) => t.name);
  if (new Set(names).size !== names.length) throw new Error("MCP tool name declared twice");
  return tools;
}
