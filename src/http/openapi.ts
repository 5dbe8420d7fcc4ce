/**
 * OpenAPI 3.1 generated from the route table (JSON Schema via zod 4's own
 * converter). Only HTTP routes have paths; tool-only entries are skipped by
 * the caller. OpenApiDocument is the shape GET /v1/openapi.json publishes.
 *
 * What independent tools hold it to (test/http/openapi-lint.test.ts): the
 * Redocly `recommended` rules with no error, and ajv in strict mode accepting
 * every free answer of a running service against its response schema. So:
 * the x402 payment is a security scheme every paid operation names; paths
 * have no trailing slash (the router treats `/pay/` and `/pay` alike); JSON
 * Schema `format` is only a standard one (zod's own, e.g. `starts_with`, go:
 * zod already states them as `pattern`); JSON-typed answers (`+json`, the
 * JSON Feed) carry their schema, other media types are strings.
 */
import { z } from "zod";
import { priceLabel, type AnyRouteDef } from "./route-table.js";
import { minDepositAtomic, offeredSchemes, schemeChoice, schemeNames, SCHEME_NAMES } from "./payment-schemes.js";
import type { ChannelTerms } from "../x402/channel-terms.js";

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

const JsonObject = z.record(z.string(), z.unknown());

const PaymentInfoExtension = z.object({
  protocol: z.literal("x402"),
  /** The scheme the pricing below is for; `schemes` lists every scheme the 402 offers. */
  scheme: z.literal("exact"),
  schemes: z.array(z.enum(SCHEME_NAMES)),
  network: z.string(),
  price: z.string(),
  pricingMode: z.enum(["fixed", "range"]),
  amount: z.string().optional(),
  minAmount: z.string().optional(),
  maxAmount: z.string().optional(),
  /** batch-settlement offered and a fixed price: the smallest deposit the 402 asks for (atomic USDC). */
  minDeposit: z.string().optional(),
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
  info: z.object({
    title: z.string(),
    version: z.string(),
    description: z.string(),
    license: z.object({ name: z.string(), identifier: z.string().optional(), url: z.string().optional() }),
  }),
  servers: z.array(z.object({ url: z.string() })),
  components: z.object({ securitySchemes: z.record(z.string(), JsonObject) }),
  "x-discovery": z.object({ llmsTxtUrl: z.string(), x402: z.string() }).optional(),
  /** OpenAPI path → lower-case method → operation. */
  paths: z.record(z.string(), z.record(z.string(), OpenApiOperation)),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocument>;

/**
 * The `format` values a JSON Schema validator knows: JSON Schema 2020-12's and
 * OpenAPI's. zod names some checks with formats of its own (`starts_with`,
 * `ends_with`, `includes`, `lowercase`, …) that strict validators reject; it
 * states each of them as a `pattern` too, so dropping the format loses nothing.
 */
const STANDARD_FORMATS = new Set([
  "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
  "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
  "int32", "int64", "float", "double", "byte", "binary", "password",
]);

/** Drops non-standard `format` values from a JSON Schema, in place, at every depth. */
function standardFormatsOnly(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) standardFormatsOnly(n);
    return;
  }
  if (!node || typeof node !== "object") return;
  const o = node as Record<string, unknown>;
  if (typeof o.format === "string" && !STANDARD_FORMATS.has(o.format) && (o.type === "string" || o.type === undefined)) delete o.format;
  for (const v of Object.values(o)) standardFormatsOnly(v);
}

/** JSON Schema of a zod schema as it is read (input) or written (output); {} when not representable. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  try {
    const s = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
    delete s.$schema;
    standardFormatsOnly(s);
    return s;
  } catch {
    return {};
  }
}

/** The package's licence (package.json `license`), as an SPDX identifier. */
const LICENSE = { name: "MIT", identifier: "MIT" };

/**
 * The x402 payment as OpenAPI security: the signed payment travels in a
 * header, PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (the name the contract and
 * v1 clients use); the router reads either (src/http/router.ts). Free
 * operations say `security: []`. The description names the schemes offered.
 */
export function securitySchemes(channel: ChannelTerms | undefined) {
  const exact = "a signed EIP-3009 transferWithAuthorization for the amount the 402's PAYMENT-REQUIRED header quotes";
  const payload = channel
    ? `scheme exact, ${exact} (a one-off call: no deposit); or scheme batch-settlement, a cumulative voucher on the payer's channel, ` +
      "with an ERC-3009 deposit into the escrow on the first call (repeated calls: one deposit, then vouchers that settle nothing on chain)"
    : `scheme exact, ${exact}`;
  return {
    x402PaymentSignature: {
      type: "apiKey",
      in: "header",
      name: "PAYMENT-SIGNATURE",
      description: `x402 v2 payment: base64 JSON PaymentPayload for one of the 402's accepts, in USDC: ${payload}. Not an account key: each call carries its own payment.`,
    },
    x402Payment: {
      type: "apiKey",
      in: "header",
      name: "X-PAYMENT",
      description: "The same x402 payment under the header name x402 v1 clients send; either header is accepted.",
    },
  } as const;
}

/** The security schemes' names: each paid operation accepts either header (alternatives, not both). */
export const SECURITY_SCHEME_NAMES = Object.keys(securitySchemes(undefined));
const PAID_SECURITY = SECURITY_SCHEME_NAMES.map((name) => ({ [name]: [] as string[] }));

/** A route's path as OpenAPI writes it: `{param}` for `:param`, and no trailing slash (the router ignores it). */
export function openApiPath(path: string): string {
  const p = path.replace(/:([A-Za-z_]+)/g, "{$1}");
  return p.length > 1 ? p.replace(/\/+$/, "") : p;
}

/** Whether a media type is JSON (application/json, or a `+json` type such as the JSON Feed's). */
const isJsonMedia = (mime: string) => mime === "application/json" || /^application\/[\w.-]+\+json$/.test(mime);

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

export interface OpenApiOptions {
  baseUrl: string;
  network: string;
  payTo?: string;
  /** The batch-settlement channel terms; absent: only exact is offered. */
  channel?: ChannelTerms;
}

/** A paid operation's `x-payment-info`: the exact price, the schemes offered, the deposit a fixed price asks for. */
function paymentInfo(r: AnyRouteDef, label: string, opts: OpenApiOptions): z.input<typeof PaymentInfoExtension> {
  const fixed = typeof r.price === "bigint" ? r.price : undefined;
  const minDeposit = minDepositAtomic(opts.channel, r.price);
  return {
    protocol: "x402",
    scheme: "exact",
    schemes: offeredSchemes(opts.channel),
    network: opts.network,
    price: label,
    ...(fixed !== undefined
      ? { pricingMode: "fixed", amount: fixed.toString() }
      : {
          pricingMode: "range",
          ...(r.priceRange ? { minAmount: r.priceRange.min.toString(), maxAmount: r.priceRange.max.toString() } : {}),
        }),
    ...(minDeposit !== undefined ? { minDeposit } : {}),
    ...(opts.payTo ? { payTo: opts.payTo } : {}),
  };
}

export function buildOpenApi(routes: readonly AnyRouteDef[], opts: OpenApiOptions): OpenApiDocument {
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
        content: { [mime]: { schema: isJsonMedia(mime) ? jsonSchemaOf(r.output, "output") : { type: "string" } } },
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
      op["x-payment-info"] = paymentInfo(r, label, opts);
      op.security = PAID_SECURITY;
    } else {
      op.security = [];
    }
    if (r.mcpTool) op["x-mcp-tool"] = r.mcpTool;
    op.responses = responses;
    (paths[openApiPath(r.path)] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Vigil",
      version: "1.0.0",
      description:
        "Pay-per-call API for privacy chains: view-key payment watching with signed webhooks, checkout invoices and chain data. " +
        `Paid routes use x402 v2 (${schemeNames(opts.channel, "")}, USDC)${opts.channel ? `: ${schemeChoice(opts.channel, "")}` : ""}.`,
      license: LICENSE,
    },
    servers: [{ url: opts.baseUrl }],
    components: { securitySchemes: securitySchemes(opts.channel) },
    "x-discovery": { llmsTxtUrl: `${opts.baseUrl}/llms.txt`, x402: `${opts.baseUrl}/.well-known/x402` },
    paths,
  };
}
