/**
 * The MCP tool list, derived from the table: every route that names an
 * `mcpTool`, plus the tool-only entries (the oracle dispatcher). A tool takes
 * the route's whole input object (path params and header-borne credentials
 * are fields of it) and answers the route's output. Its price is the HTTP
 * price unless the entry is free over MCP (`mcpFree`, or a tool-only entry).
 *
 * One difference from the route's input, forced by where the value travels:
 * a header-borne credential (`x-watch-token`) is optional in the route's
 * schema, so that a request without the header gets the route's 401, but a
 * tool has no headers: the field is an argument the call cannot do without,
 * so the tool lists it as required and a call without it is refused by
 * schema validation (400 invalid_input) before the operation runs.
 *
 * And one addition: an input that needs one of several fields (`seed` or
 * `phrase`; `checkoutKey` or `watchId` with `watchToken`) has none of them in
 * `required`, and a root `anyOf` of required lists is refused by the tool
 * APIs of Anthropic and OpenAI; so the route's `inputAlternatives` are
 * written out in the tool's description and in each named field's.
 */
import { z } from "zod";
import { jsonSchemaOf, type JsonSchema } from "./openapi.js";
import { isToolOnly, priceLabel, type InputAlternatives, type TableEntry } from "./route-table.js";

export interface McpToolDescriptor {
  name: string;
  /** The table entry it adapts. */
  operationId: string;
  description: string;
  /** What the tool's arguments are validated with (toolInput). */
  input: z.ZodType;
  /** Its JSON Schema, as tools/list publishes it. */
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** "free", or the price as people read it ("$0.10", "$0.10-$25.00"). */
  price: string;
  /** Atomic USDC when the price is fixed. */
  priceAtomic?: string;
}

/** The route's input with each header-borne credential required (the header's name in the message). */
export function toolInput(entry: TableEntry): z.ZodType {
  if (isToolOnly(entry) || !entry.headerInputs || Object.keys(entry.headerInputs).length === 0) return entry.input;
  const input = entry.input;
  if (!(input instanceof z.ZodObject)) throw new Error(`${entry.operationId}: a route with header inputs needs an object input schema`);
  const shape = input.shape as Record<string, z.ZodType>;
  const required: Record<string, z.ZodType> = {};
  for (const [header, field] of Object.entries(entry.headerInputs)) {
    const fieldSchema = shape[field];
    if (!fieldSchema) throw new Error(`${entry.operationId}: header ${header} maps to ${field}, which its input does not have`);
    required[field] = fieldSchema.nonoptional({ error: `${field} is required (over HTTP it is the ${header} header)` });
  }
  // safeExtend keeps the route's refinements and strictness.
  return input.safeExtend(required);
}

/** "Give exactly one of: `seed`, or `phrase`." for the description of a tool and of each field named. */
export function alternativesSentence(alt: InputAlternatives): string {
  const sets = alt.sets.map((set) => set.map((f) => `\`${f}\``).join(" with "));
  return alt.exactlyOne ? `Give exactly one of: ${sets.join(", or ")}.` : `Give at least one of: ${sets.join(", ")}.`;
}

/** The input schema with the alternatives stated in each field they name; the tool's description gets the same sentence. */
function withAlternatives(operationId: string, schema: JsonSchema, alt: InputAlternatives | undefined): JsonSchema {
  if (!alt) return schema;
  const sentence = alternativesSentence(alt);
  const properties = { ...(schema.properties ?? {}) };
  for (const field of new Set(alt.sets.flat())) {
    const p = properties[field];
    if (!p) throw new Error(`${operationId}: inputAlternatives names ${field}, which its input does not have`);
    if (schema.required?.includes(field)) throw new Error(`${operationId}: ${field} is an alternative and required at once`);
    properties[field] = { ...p, description: typeof p.description === "string" ? `${p.description.replace(/\.?$/, ".")} ${sentence}` : sentence };
  }
  return { ...schema, properties };
}

export function mcpTools(table: readonly TableEntry[]): McpToolDescriptor[] {
  const tools: McpToolDescriptor[] = [];
  for (const entry of table) {
    if (!entry.mcpTool) continue;
    const paid = !isToolOnly(entry) && !entry.mcpFree ? entry : undefined;
    const label = paid ? priceLabel(paid) : undefined;
    const input = toolInput(entry);
    const alternatives = isToolOnly(entry) ? undefined : entry.inputAlternatives;
    const text = entry.description ? `${entry.summary}. ${entry.description}` : entry.summary;
    tools.push({
      name: entry.mcpTool,
      operationId: entry.operationId,
      description: alternatives ? `${text.replace(/\.?$/, ".")} ${alternativesSentence(alternatives)}` : text,
      input,
      inputSchema: withAlternatives(entry.operationId, jsonSchemaOf(input, "input"), alternatives),
      outputSchema: jsonSchemaOf(entry.output, "output"),
      price: label ?? "free",
      ...(paid && typeof paid.price === "bigint" ? { priceAtomic: paid.price.toString() } : {}),
    });
  }
  const names = tools.map((t) => t.name);
  if (new Set(names).size !== names.length) throw new Error("MCP tool name declared twice");
  return tools;
}
