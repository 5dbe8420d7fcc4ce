/**
 * What an x402 catalogue reads from a paid route's 402: the bazaar discovery
 * extension (`@x402/extensions/bazaar`), derived from the route table. The
 * input schema is the route's zod input schema (minus path parameters and
 * header-borne fields, which the extension carries elsewhere or not at all);
 * the example input and output are the route's own `example`. Every paid
 * route declares one, a realistic call (test/http/route-examples.test.ts
 * holds them to it): a sample generated from the schemas is only the fallback
 * of the rest (free MCP tools), and it never uses the bounds zod writes for
 * a plain integer (±2^53−1). Nothing here is written per route: a route
 * added to the table is described the same way. The extension describes a
 * route's input and answer, not its payment: the 402's `accepts` beside it
 * names the schemes. Also here: the resources and instructions of
 * GET /.well-known/x402.
 */
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { AnyRouteDef } from "./route-table.js";
import { jsonSchemaOf, type JsonSchema } from "./openapi.js";
import { schemeChoice, schemeNames } from "./payment-schemes.js";
import type { ChannelTerms } from "../x402/channel-terms.js";

/** The route's input split the way HTTP carries it: path parameters, header fields, and the rest (query or JSON body). */
export function inputParts(route: AnyRouteDef): { pathParams: string[]; headerFields: string[]; rest: JsonSchema } {
  const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
  const headerFields = Object.values(route.headerInputs ?? {});
  const skip = new Set([...pathParams, ...headerFields]);
  const input = jsonSchemaOf(route.input, "input");
  const properties = Object.fromEntries(Object.entries(input.properties ?? {}).filter(([k]) => !skip.has(k)));
  const required = (input.required ?? []).filter((k) => !skip.has(k));
  const rest: JsonSchema = { type: "object", properties, ...(required.length ? { required } : {}) };
  if (input.additionalProperties === false) rest.additionalProperties = false;
  return { pathParams, headerFields, rest };
}

/** Values tried for a string with a pattern, in order; the first one the pattern and length accept is used. */
const PATTERN_CANDIDATES = [
  "1000",
  "150000",
  `0x${"ab".repeat(20)}`,
  `0x${"ab".repeat(32)}`,
  "ab".repeat(32),
  "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
  "example",
  "EXAMPLE",
  "example-1",
  "1",
  "0",
];

/**
 * A value the JSON schema accepts, for documentation: `examples`, `default`,
 * `const` and `enum` first, then a plain value of the type. Best effort: a
 * pattern no candidate matches yields a string that does not match it (the
 * route then declares `example` itself; test/http/discovery.test.ts checks).
 */
export function sampleOf(schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema || typeof schema !== "object" || depth > 12) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ("default" in s) return s.default;
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length) {
      const pick = (options as JsonSchema[]).find((o) => o.type !== "null") ?? options[0];
      return sampleOf(pick as JsonSchema, depth + 1);
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length) {
    return Object.assign({}, ...(s.allOf as JsonSchema[]).map((p) => sampleOf(p, depth + 1) as object));
  }
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : (s.type as string | undefined);
  switch (type) {
    case "object":
    case undefined: {
      if (type === undefined && !s.properties) return null;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries((s.properties as Record<string, JsonSchema>) ?? {})) out[k] = sampleOf(v, depth + 1);
      return out;
    }
    case "array": {
      const n = Math.min(Math.max(1, Number(s.minItems ?? 1)), 64);
      const item = sampleOf(s.items as JsonSchema, depth + 1);
      return Array.from({ length: n }, () => item);
    }
    case "integer":
    case "number": {
      // zod bounds every integer by ±(2^53 − 1): that is a limit of the type, not a value anyone would see.
      const bound = (v: unknown) => (typeof v === "number" && Math.abs(v) < Number.MAX_SAFE_INTEGER ? v : undefined);
      const min = bound(s.minimum);
      const exclusiveMin = bound(s.exclusiveMinimum);
      const max = bound(s.maximum);
      if (min !== undefined) return min;
      if (exclusiveMin !== undefined) return type === "integer" ? exclusiveMin + 1 : exclusiveMin + 0.5;
      if (max !== undefined && max < 1) return max;
      return 1;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    case "string": {
      switch (s.format) {
        case "uuid":
          return "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
        case "date-time":
          return "2026-01-01T00:00:00.000Z";
        case "date":
          return "2026-01-01";
        case "uri":
        case "url":
          return "https://example.com/vigil-webhook";
        case "email":
          return "ops@example.com";
      }
      const min = Number(s.minLength ?? 0);
      const max = Number(s.maxLength ?? Infinity);
      const fits = (v: string) => v.length >= min && v.length <= max;
      if (typeof s.pattern === "string") {
        let re: RegExp | undefined;
        try {
          re = new RegExp(s.pattern, "u");
        } catch {
          re = undefined;
        }
        const hit = re && PATTERN_CANDIDATES.find((c) => re!.test(c) && fits(c));
        if (hit) return hit;
      }
      const base = "example";
      return base.length >= min ? base.slice(0, Math.min(base.length, max)) : base.padEnd(min, "x");
    }
    default:
      return null;
  }
}

/** The example input of a route (its own, or one sampled from its schema), without path parameters and header fields. */
export function exampleInput(route: AnyRouteDef): { rest: Record<string, unknown>; pathParams: Record<string, string> } {
  const { pathParams, headerFields, rest } = inputParts(route);
  const whole = (route.example?.input as Record<string, unknown> | undefined) ?? (sampleOf(jsonSchemaOf(route.input, "input")) as Record<string, unknown>) ?? {};
  const skip = new Set([...pathParams, ...headerFields]);
  const restValue = Object.fromEntries(Object.entries(whole).filter(([k]) => !skip.has(k) && k in (rest.properties ?? {})));
  const params = Object.fromEntries(pathParams.map((p) => [p, String(whole[p] ?? `{${p}}`)]));
  return { rest: restValue, pathParams: params };
}

/** The example output: the route's own, or one sampled from its output schema (a string for non-JSON answers). */
export function exampleOutput(route: AnyRouteDef): unknown {
  if (route.example && "output" in route.example) return route.example.output;
  return sampleOf(jsonSchemaOf(route.output, "output"));
}

/**
 * The resources of GET /.well-known/x402: the URL of every paid route a
 * crawler can call as it is. A route with path parameters (a notice's boost,
 * /v1/board/{board}/{id}/boost) is a template, not a resource anyone can pay
 * for, so it is left out (listing every live notice's boost would be an
 * unbounded, changing list); the instructions say where the ids come from,
 * and OpenAPI lists the template.
 */
export function discoveryResources(routes: readonly AnyRouteDef[], baseUrl: string): string[] {
  return routes.filter((r) => r.price !== undefined && !r.path.includes(":")).map((r) => `${baseUrl}${r.path}`);
}

/**
 * What the manifest tells a crawler to do with its resources: what the router does with a probe (src/http/router.ts),
 * and which of the offered schemes a payer should pick (payment-schemes.ts).
 */
export function discoveryInstructions(channel: ChannelTerms | undefined): string {
  const choice = schemeChoice(channel, "");
  return (
    `Each resource answers a call without payment and without input with HTTP 402 and its PAYMENT-REQUIRED header (x402 v2, scheme ${schemeNames(channel, "")}, USDC): ` +
    "GET it with no query string, or POST it with no body or {}. The 402's bazaar extension describes the input (query parameters or JSON body) and an example answer. " +
    (choice ? `Pay with ${choice}. ` : "") +
    "Input that is sent is checked first: invalid input is a 400 before any 402, and nothing is charged for it. " +
    "Routes with path parameters are templates and are not listed: a notice's boost is POST /v1/board/{board}/{id}/boost with the ids GET /v1/board/{board} lists. " +
    "Prices: GET /v1/paywall. Schemas: GET /openapi.json. Guide for agents: GET /llms.txt."
  );
}

const isJson = (route: AnyRouteDef) => (route.mimeType ?? "application/json") === "application/json";

type Declaration = Record<string, unknown> & {
  info: { input: Record<string, unknown>; output?: Record<string, unknown> };
  schema: { properties: Record<string, Record<string, unknown>> };
};

/** The bazaar declaration of a paid route's HTTP surface, before the per-request enrichment (method, path parameters). */
function httpDeclaration(route: AnyRouteDef): Declaration {
  const { rest } = inputParts(route);
  const example = exampleInput(route);
  const output = exampleOutput(route);
  const inputSchema = { properties: rest.properties ?? {}, ...(rest.required ? { required: rest.required } : {}) };
  const body = route.method === "POST" || route.method === "PATCH";
  const declared = declareDiscoveryExtension(
    body
      ? { bodyType: "json", input: example.rest, inputSchema, output: isJson(route) ? { example: output } : undefined }
      : { input: example.rest, inputSchema, output: isJson(route) ? { example: output } : undefined },
  );
  const ext = structuredClone(declared.bazaar) as unknown as Declaration;
  if (!isJson(route)) {
    // A text answer (CSV): the example is a string, typed so in the extension's own schema.
    ext.info.output = { type: "text", format: route.mimeType, example: typeof output === "string" ? output : "" };
    ext.schema.properties.output = {
      type: "object",
      properties: { type: { type: "string" }, format: { type: "string" }, example: { type: "string" } },
      required: ["type"],
    };
  }
  return ext;
}

const declarations = new WeakMap<AnyRouteDef, Declaration>();

/**
 * `extensions.bazaar` for the 402 of a paid HTTP call: the route's
 * declaration enriched by the official server extension with the method and,
 * for a path with parameters, the route template and this request's values.
 */
export function bazaarForHttp(route: AnyRouteDef, requestPath: string): Record<string, unknown> {
  let decl = declarations.get(route);
  if (!decl) declarations.set(route, (decl = httpDeclaration(route)));
  const enriched = bazaarResourceServerExtension.enrichDeclaration!(decl, {
    method: route.method,
    routePattern: route.path,
    adapter: { getPath: () => requestPath },
  } as never);
  return { bazaar: enriched };
}

const mcpDeclarations = new WeakMap<AnyRouteDef, Record<string, unknown>>();

/** `extensions.bazaar` for the unpaid result of a paid MCP tool: the tool's name, input schema and examples. */
export function bazaarForMcp(route: AnyRouteDef, toolName: string): Record<string, unknown> {
  let ext = mcpDeclarations.get(route);
  if (!ext) {
    const example = route.example?.input ?? sampleOf(jsonSchemaOf(route.input, "input"));
    const output = exampleOutput(route);
    const declared = declareDiscoveryExtension({
      toolName,
      description: route.summary,
      transport: "streamable-http",
      inputSchema: jsonSchemaOf(route.input, "input"),
      example: (example ?? {}) as Record<string, unknown>,
      ...(isJson(route) ? { output: { example: output } } : {}),
    });
    ext = declared.bazaar as unknown as Record<string, unknown>;
    mcpDeclarations.set(route, ext);
  }
  return { bazaar: ext };
}
