/**
 * One declaration per route. The router, the paywall, GET /v1/paywall, the
 * OpenAPI document, the discovery manifest and the MCP tool list are all
 * derived from RouteDef values; nothing lists routes by hand twice. The table
 * also holds tool-only entries (ToolOnlyDef): MCP tools with no HTTP route of
 * their own, which the router and the OpenAPI paths skip.
 */
import { z } from "zod";
import type { Logger } from "pino";
import type { Queryable } from "../db/types.js";
import type { PaymentInfo } from "../x402/paywall.js";
import { formatUsd } from "../core/money.js";

export type { PaymentInfo };

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

export interface RequestContext {
  requestId: string;
  /** Client IP (socket address, or X-Forwarded-For behind a trusted proxy). */
  ip: string;
  /** Use only this handle: inside a paid route it is the transaction that commits with settlement. */
  db: Queryable;
  log: Logger;
  /** Public base URL of the service, e.g. http://127.0.0.1:8402 */
  baseUrl: string;
  payment?: PaymentInfo;
  /** "http" or "mcp": which surface called. */
  surface: "http" | "mcp";
}

/** A non-JSON body (CSV, RSS, HTML). */
export class RawBody {
  constructor(
    readonly body: string,
    readonly contentType: string,
  ) {}
}

/**
 * A streamed non-JSON body (CSV feeds): `open` is called only when the
 * response is sent, so on a paid route after the payment settled, and a
 * refused or failed payment opens nothing. For free and `readOnly` routes:
 * the chunks are read after the handler returned, outside its transaction.
 */
export class StreamBody {
  constructor(
    readonly open: () => AsyncIterable<string>,
    readonly contentType: string,
  ) {}
}

export interface RouteRateLimit {
  /** Requests allowed per window per client IP. */
  points: number;
  windowSeconds: number;
}

/**
 * S is the input schema, O the output schema: the handler must return what O
 * accepts (z.input<O>), so a route cannot drift from the shape that OpenAPI
 * and MCP publish for it. RawBody is for non-JSON answers (CSV, RSS, HTML).
 */
export interface RouteDef<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  method: HttpMethod;
  /** Hono path syntax: /v1/private/watch/:id */
  path: string;
  /** Short operation id, unique; also used in OpenAPI. */
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  /**
   * Input, one object: for GET/DELETE from the query string, for POST/PATCH
   * from the JSON body; path params and mapped headers are merged in on top.
   */
  input: S;
  /** Header name (lower case) → input field, e.g. {"x-watch-token": "watchToken"}. */
  headerInputs?: Record<string, string>;
  /** Response schema (for OpenAPI and MCP); the handler's return type follows from it. */
  output: O;
  /** Atomic USDC (6 decimals); absent = free. A function prices from the validated input. */
  price?: bigint | ((input: z.infer<S>) => bigint);
  /** Lowest and highest price, for dynamic prices (shown in the catalogue). */
  priceRange?: { min: bigint; max: bigint };
  mimeType?: string;
  successStatus?: 200 | 201;
  rateLimit?: RouteRateLimit;
  /**
   * Free reads whose answer clients poll (boards, feeds): the answer carries a
   * strong ETag of its bytes, and a matching If-None-Match gets 304 with no body.
   */
  etag?: boolean;
  /**
   * The paid work writes nothing to the database: the paywall then runs it
   * outside a transaction (no connection held during slow upstream calls)
   * and simply withholds the answer if settlement fails.
   */
  readOnly?: boolean;
  /**
   * Seconds a payment authorisation must still be valid when it arrives: at
   * least the work's time budget, so slow work is never done for an
   * authorisation that has expired by settlement time. Default 6.
   */
  minValiditySeconds?: number;
  /**
   * The paid work cannot be undone (a transaction handed to builders): the
   * paywall settles the payment first and does the work only once it has
   * settled, so a failed settlement costs the service no free work. Every
   * refusal must then be in `precheck` (run before verification), and the
   * handler must answer what happened rather than refuse. A retry never
   * repeats the work.
   */
  settleBeforeWork?: boolean;
  /**
   * An example call for catalogues and agents (the bazaar extension of the
   * 402, llms.txt): a valid input and the answer it gets, with realistic
   * values. Every paid route declares one (test/http/route-examples.test.ts);
   * elsewhere, when absent, both are sampled from the schemas (src/http/discovery.ts).
   */
  example?: { input?: z.input<S>; output?: z.input<O> };
  /** MCP tool name when the operation is also a tool. */
  mcpTool?: string;
  /**
   * Fields of which a call needs one set, when the schema cannot put them in
   * `required` (either will do): e.g. `seed` or `phrase`. JSON Schema would
   * say it with an `anyOf` of `required` lists at the root, which the tool
   * APIs of Anthropic and OpenAI refuse in a tool's input schema, so the MCP
   * tool says it in words, in its description and in each named field's
   * (src/http/mcp-tools.ts). The input schema itself enforces it (a 400).
   */
  inputAlternatives?: InputAlternatives;
  /** Set when the MCP tool is free even though the HTTP route is paid (a free dispatcher with no route of its own is a ToolOnlyDef instead). */
  mcpFree?: boolean;
  /**
   * Refusals that can be decided before payment (bad keys, wrong token):
   * runs after validation and before the 402, so nobody pays for a 400.
   */
  precheck?: (input: z.infer<S>, ctx: RequestContext) => Promise<void>;
  handler: (input: z.infer<S>, ctx: RequestContext) => Promise<z.input<O> | RawBody | StreamBody>;
  /**
   * Set by defineStandingRoute: the route's JSON answer as it stands now, made
   * without waiting and from nothing of the request (a free GET with no input).
   * The handler answers the same; the HTTP server may serve it before the
   * framework (src/http/standing-answers.ts).
   */
  standingAnswer?: () => z.input<O>;
}

/** Sets of fields of which a call needs one (`exactlyOne`: and no more than one). */
export interface InputAlternatives {
  sets: readonly (readonly string[])[];
  exactlyOne: boolean;
}

/** Any route, whatever its schemas (the table is a list of these). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRouteDef = RouteDef<any, any>;

/** Identity helper that keeps the input type flowing into the handler and the output type out of it. */
export function defineRoute<S extends z.ZodType, O extends z.ZodType>(def: RouteDef<S, O>): RouteDef<S, O> {
  return def;
}

/** No input at all: an empty query string (a name sent is refused by the strict object, as every route's unknown names are dropped first). */
const NoInput = z.object({}).strict();

/**
 * A free GET whose JSON answer depends on nothing of the request: no input, no
 * caller, no price, no route limit, no ETag. `answer` gives the answer as it
 * stands now (a fixed answer from respond.ts is sent as its kept bytes); the
 * handler is derived from it, so MCP, the router and the fast path
 * (src/http/standing-answers.ts) cannot answer differently.
 */
export function defineStandingRoute<O extends z.ZodType>(
  def: Omit<RouteDef<typeof NoInput, O>, "method" | "input" | "handler" | "standingAnswer" | "price" | "priceRange" | "rateLimit" | "etag" | "precheck" | "mimeType" | "headerInputs"> & {
    answer: () => z.input<O>;
  },
): RouteDef<typeof NoInput, O> {
  const { answer, ...rest } = def;
  return { ...rest, method: "GET", input: NoInput, handler: async () => answer(), standingAnswer: answer };
}

/**
 * An MCP tool with no HTTP route (the oracle dispatcher `service_q`). It has
 * no price: a tool that HTTP sells is a route with `mcpTool` instead.
 */
export interface ToolOnlyDef<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  kind: "tool";
  /** Unique among operation ids of routes and tools. */
  operationId: string;
  mcpTool: string;
  summary: string;
  description?: string;
  tags?: string[];
  input: S;
  output: O;
  handler: (input: z.infer<S>, ctx: RequestContext) => Promise<z.input<O>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolOnlyDef = ToolOnlyDef<any, any>;

/** One line of the table: an HTTP route (maybe also an MCP tool) or a tool-only entry. */
export type TableEntry = AnyRouteDef | AnyToolOnlyDef;

export function defineTool<S extends z.ZodType, O extends z.ZodType>(def: Omit<ToolOnlyDef<S, O>, "kind">): ToolOnlyDef<S, O> {
  return { kind: "tool", ...def };
}

export function isToolOnly(entry: TableEntry): entry is AnyToolOnlyDef {
  return "kind" in entry && entry.kind === "tool";
}

/** The entries that are HTTP routes, in table order. */
export function httpRoutes(table: readonly TableEntry[]): AnyRouteDef[] {
  return table.filter((e): e is AnyRouteDef => !isToolOnly(e));
}

/** The price as people read it: "$0.10", "$0.10-$25.00" for a range, undefined when free. */
export function priceLabel(route: Pick<RouteDef, "price" | "priceRange">): string | undefined {
  if (route.price === undefined) return undefined;
  if (typeof route.price === "bigint") return formatUsd(route.price);
  if (route.priceRange) return `${formatUsd(route.priceRange.min)}-${formatUsd(route.priceRange.max)}`;
  return "dynamic";
}

export { usdCents } from "../core/money.js";
