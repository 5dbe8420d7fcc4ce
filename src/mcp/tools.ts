/**
 * The tools the MCP server publishes, from the one table (`mcpTools`): each
 * tool's input schema is its REST input, its output schema its REST output.
 *
 * Two adjustments, both forced by MCP clients, neither a second list:
 *   - MCP wants an object at the top of every schema (`type: "object"`); an
 *     output that is a union (the dispatcher's answers) is published as
 *     `{type: "object", anyOf: [...]}`, the same set of values.
 *   - A paid tool answers an unpaid call with the x402 PaymentRequired object
 *     as its structured content (x402 MCP transport). The SDK client checks
 *     structured content against the output schema even on `isError`, so a
 *     paid tool's output schema is `{type: "object", anyOf: [REST output,
 *     PaymentRequired]}`: the REST answer when paid, the terms when not.
 */
import { z } from "zod";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { jsonSchemaOf, type JsonSchema } from "../http/openapi.js";
import { mcpTools, type McpToolDescriptor } from "../http/mcp-tools.js";
import { isToolOnly, type TableEntry } from "../http/route-table.js";
import { schemeChoice, schemeNames } from "../http/payment-schemes.js";
import type { ChannelTerms } from "../x402/channel-terms.js";

/** The x402 v2 PaymentRequired object an unpaid call of a paid tool answers with. */
export const PaymentRequiredSchema = z.object({
  x402Version: z.literal(2),
  error: z.string().optional().describe("why the call was not paid for: payment_required, authorization_already_used, …"),
  resource: z.object({ url: z.string(), description: z.string(), mimeType: z.string() }),
  accepts: z.array(
    z.object({
      scheme: z.string(),
      network: z.string(),
      amount: z.string().describe("atomic USDC (6 decimals)"),
      asset: z.string(),
      payTo: z.string(),
      maxTimeoutSeconds: z.number(),
      extra: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

const paymentRequiredJson = jsonSchemaOf(PaymentRequiredSchema, "output");

/** A published tool: the MCP `Tool` plus what the server needs to run it. */
export interface PublishedTool {
  tool: Tool;
  entry: TableEntry;
  descriptor: McpToolDescriptor;
  /** True when a call must be paid for over MCP (paid route, not `mcpFree`). */
  paid: boolean;
}

function asObjectSchema(schema: JsonSchema): JsonSchema & { type: "object" } {
  if (schema.type === "object") return schema as JsonSchema & { type: "object" };
  return { type: "object", ...schema } as JsonSchema & { type: "object" };
}

/** MCP hints from what the route is: GET reads, DELETE removes, PATCH edits, POST acts (read-only when it writes nothing). */
function annotations(entry: TableEntry, title: string): NonNullable<Tool["annotations"]> {
  if (isToolOnly(entry)) return { title, readOnlyHint: true, idempotentHint: false, openWorldHint: true };
  switch (entry.method) {
    case "GET":
      return { title, readOnlyHint: true, idempotentHint: true, openWorldHint: false };
    case "DELETE":
      return { title, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
    case "PATCH":
      // An edit: the same body twice leaves the same state.
      return { title, readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    case "POST":
      return entry.readOnly
        ? { title, readOnlyHint: true, idempotentHint: true, openWorldHint: false }
        : { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  }
}

/**
 * How a paid tool is paid: the schemes its PaymentRequired offers and, when there are two, which suits whom.
 * A batch-settlement payload (a deposit with its voucher, or a voucher) goes in _meta["x402/payment"] as an exact one does.
 */
function paymentSentence(price: string, channel: ChannelTerms | undefined): string {
  const choice = schemeChoice(channel, "");
  return (
    `Costs ${price} in USDC (x402, ${schemeNames(channel, "")} scheme). Call it without payment to receive the PaymentRequired terms (isError, structuredContent), ` +
    `${choice ? "sign a payment for one of its accepts" : "sign an EIP-3009 authorisation for them"} and call again with the payment payload in _meta["x402/payment"].` +
    (choice ? ` Use ${choice}.` : "")
  );
}

/** What an agent needs to act: the price and how to pay, the REST twin, the credentials. */
function description(entry: TableEntry, d: McpToolDescriptor, paid: boolean, opts: PublishOptions): string {
  const parts = [d.description.replace(/\.?$/, ".")];
  if (paid) {
    parts.push(paymentSentence(d.price, opts.channel));
  } else if (isToolOnly(entry)) {
    parts.push(`Free over MCP (at most ${opts.freeDispatchPerMinute} calls per minute per client); over HTTP each answer is paid.`);
  } else {
    parts.push("Free.");
  }
  if (!isToolOnly(entry) && textAnswer(entry)) {
    // No output schema can describe text, so the description says what comes back.
    const mime = entry.mimeType ?? "text/plain";
    parts.push(`Returns ${mime === "text/csv" ? "CSV" : mime} text (${mime}) as the result's text content, with no structured content.`);
  }
  if (!isToolOnly(entry)) {
    parts.push(`REST: ${entry.method} ${entry.path.replace(/:([A-Za-z_]+)/g, "{$1}")}.`);
    const creds = Object.entries(entry.headerInputs ?? {});
    if (creds.length > 0) {
      const names = creds.map(([header, field]) => `${field} (REST header ${header})`).join(", ");
      parts.push(`Needs ${names}: the secret returned once at creation.`);
    }
  }
  return parts.join(" ");
}

export interface PublishOptions {
  /** The per-client limit of the free dispatcher, shown in its description. */
  freeDispatchPerMinute: number;
  /** The batch-settlement channel terms (PaymentTerms.channel); absent: paid tools take exact payments only. */
  channel?: ChannelTerms;
}

function textAnswer(entry: TableEntry): boolean {
  return !isToolOnly(entry) && (entry.mimeType ?? "application/json") !== "application/json";
}

export function publishedTools(table: readonly TableEntry[], opts: PublishOptions): PublishedTool[] {
  const byOperation = new Map(table.map((e) => [e.operationId, e]));
  return mcpTools(table).map((d) => {
    const entry = byOperation.get(d.operationId)!;
    const paid = d.price !== "free";
    const output = asObjectSchema(d.outputSchema);
    const tool: Tool = {
      name: d.name,
      title: entry.summary,
      description: description(entry, d, paid, opts),
      inputSchema: asObjectSchema(d.inputSchema),
      // A text answer (CSV) has no structured content, so it publishes no output schema.
      ...(textAnswer(entry) ? {} : { outputSchema: paid ? { type: "object", anyOf: [output, paymentRequiredJson] } : output }),
      annotations: annotations(entry, entry.summary),
      _meta: { "vigil/price": d.price, ...(d.priceAtomic ? { "vigil/price_atomic": d.priceAtomic } : {}) },
    };
    return { tool, entry, descriptor: d, paid };
  });
}
