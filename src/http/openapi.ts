/**
 * OpenAPI 3.1 generated from the route table (JSON Schema via zod 4's own
 * converter). Only HTTP routes have paths; tool-only entries are skipped by
 * the caller. OpenApiDocument is the shape GET /v1/openapi.json publishes.
 */
import { z } from "zod";
import { priceLabel, type AnyRouteDef } from "./route-table.js";

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

const JsonObject = z.record(z.string(), z.unknown());

const PaymentInfoExtension = z.object({
  protocol: z.literal("x402"),
  scheme: z.literal("exact"),
  network: z.string(),
  price: z.string(),
  pricingMode: z.enum(["fixed", "range"]),
  amount: z.string().optional(),
  minAmount: z.string().optional(),
  maxAmount: z.string().optional(),
  payTo: z.string().optional(),
});

export const OpenApiOperation = z.object({
  operationId: z.string(),
  summary: z.string(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  parameters: z.array(JsonObject).optional(),
  requestBody: JsonObject.optional(),
  responses: z.record(z.string(), JsonObject),
  "x-payment-info": PaymentInfoExtension.optional(),
  /** `[]` on free operations: no payment or credential needed. */
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  "x-mcp-tool": z.string().optional(),
});
export type OpenApiOperation = z.infer<typeof OpenApiOperation>;

export const OpenApiDocument = z.object({
  openapi: z.literal("3.1.0"),
  info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
  servers: z.array(z.object({ url: z.string() })),
  "x-discovery": z.object({ llmsTxtUrl: z.string(), x402: z.string() }).optional(),
  /** OpenAPI path → lower-case method → operation. */
  paths: z.record(z.string(), z.record(z.string(), OpenApiOperation)),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocument>;

/** JSON Schema of a zod schema as it is read (input) or written (output); {} when not representable. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  try {
    const s = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
    delete s.$schema;
    return s;
  } catch {
    return {};
  }
}

const ErrorSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" }, details: { type: "object" } },
    },
  },
};

export function buildOpenApi(routes: readonly AnyRouteDef[], opts: { baseUrl: string; network: string; payTo?: string }): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  for (const r of routes) {
    const pathParams = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const headerFields = r.headerInputs ?? {};
    const skip = new Set([...pathParams, ...Object.values(headerFields)]);
    const input = jsonSchemaOf(r.input, "input");
    const props = { ...(input.properties ?? {}) };
    const required = new Set(input.required ?? []);
    for (const k of skip) delete props[k];

    const parameters: Record<string, unknown>[] = [
      ...pathParams.map((name) => ({ name, in: "path", required: true, schema: input.properties?.[name] ?? { type: "string" } })),
      ...Object.entries(headerFields).map(([header, field]) => ({
        name: header,
        in: "header",
        required: required.has(field),
        schema: input.properties?.[field] ?? { type: "string" },
      })),
    ];
    const op: OpenApiOperation = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      ...(r.tags ? { tags: r.tags } : {}),
      responses: {},
    };
    if (r.method === "POST" || r.method === "PATCH") {
      op.requestBody = {
        required: true,
        content: {
          "application/json": {
            schema: { ...input, properties: props, required: [...required].filter((k) => !skip.has(k)) },
          },
        },
      };
    } else {
      for (const [name, schema] of Object.entries(props)) {
        parameters.push({ name, in: "query", required: required.has(name), schema });
      }
    }
    if (parameters.length) op.parameters = parameters;
    const ok = String(r.successStatus ?? 200);
    const mime = r.mimeType ?? "application/json";
    const responses: OpenApiOperation["responses"] = {
      [ok]: {
        description: "Success",
        content: { [mime]: { schema: mime === "application/json" ? jsonSchemaOf(r.output, "output") : { type: "string" } } },
      },
      "4XX": { description: "Client error", content: { "application/json": { schema: ErrorSchema } } },
      "5XX": { description: "Upstream or server error", content: { "application/json": { schema: ErrorSchema } } },
    };
    const label = priceLabel(r);
    if (label) {
      responses["402"] = {
        description: "Payment required (x402 v2): the PAYMENT-REQUIRED header carries the requirements.",
        headers: { "PAYMENT-REQUIRED": { schema: { type: "string" }, description: "base64 JSON PaymentRequired" } },
      };
      const fixed = typeof r.price === "bigint" ? r.price : undefined;
      op["x-payment-info"] = {
        protocol: "x402",
        scheme: "exact",
        network: opts.network,
        price: label,
        ...(fixed !== undefined
          ? { pricingMode: "fixed", amount: fixed.toString() }
          : {
              pricingMode: "range",
              ...(r.priceRange ? { minAmount: r.priceRange.min.toString(), maxAmount: r.priceRange.max.toString() } : {}),
            }),
        ...(opts.payTo ? { payTo: opts.payTo } : {}),
      };
    } else {
      op.security = [];
    }
    if (r.mcpTool) op["x-mcp-tool"] = r.mcpTool;
    op.responses = responses;
    const oasPath = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    (paths[oasPath] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Vigil",
      version: "1.0.0",
      description:
        "Pay-per-call API for privacy chains: view-key payment watching with signed webhooks, checkout invoices and chain data. Paid routes use x402 v2 (exact, USDC).",
    },
    servers: [{ url: opts.baseUrl }],
    "x-discovery": { llmsTxtUrl: `${opts.baseUrl}/llms.txt`, x402: `${opts.baseUrl}/.well-known/x402` },
    paths,
  };
}
