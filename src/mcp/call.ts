/**
 * One MCP tool call, through the same pipeline as one HTTP request
 * (http/pipeline.ts): drop the argument names the tool does not read (listed
 * in the result's `_meta["vigil/ignored_input"]`, as HTTP lists them in
 * `Vigil-Ignored-Input`) → validate the arguments with the tool's input
 * schema → rate limit (the route's own limit; the free dispatcher's
 * per-client limit) → precheck → free: run; paid: the same paywall as HTTP,
 * with the x402 payload taken from the request's `_meta["x402/payment"]` →
 * the tool result. This file keeps MCP's part: the arguments and `_meta`,
 * the tool-only dispatcher, and the shape of results.
 *
 * Results: the REST answer as structured content (and as JSON text);
 * errors as `isError` with the REST error envelope as JSON text (no
 * structured content, which clients would check against the output schema);
 * an unpaid call as `isError` with the PaymentRequired object as structured
 * content and text (x402 MCP transport), plus the REST endpoint to pay at
 * instead. The paywall's nonce rows are shared by both transports, so an
 * authorisation is settled once across HTTP and MCP.
 */
import type { z } from "zod";
import type { Logger } from "pino";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ServiceError, errorBody } from "../core/errors.js";
import { databaseOutageAnswer } from "../db/unavailable.js";
import type { RateLimiter } from "../core/rate-limit.js";
import type { PaymentRequiredOutcome } from "../x402/paywall.js";
import { isToolOnly, RawBody, StreamBody, type AnyRouteDef, type AnyToolOnlyDef, type RequestContext } from "../http/route-table.js";
import { callRoute, validateInput, type PaymentSide, type PipelineDeps } from "../http/pipeline.js";
import { bazaarForMcp } from "../http/discovery.js";
import { dropUnknownKeys } from "../http/request-input.js";
import type { PublishedTool } from "./tools.js";

/** `_meta` key of the signed payment (a PaymentPayload object; a base64 header string is accepted too). */
export const PAYMENT_META_KEY = "x402/payment";
/** `_meta` key of the argument names a call carried that the tool does not read (sorted). */
export const IGNORED_INPUT_META_KEY = "vigil/ignored_input";
/** `_meta` key of the settlement answer on a paid result. */
export const PAYMENT_RESPONSE_META_KEY = "x402/payment-response";

export interface CallDeps extends PipelineDeps {
  /** Per-client limit of the free dispatcher (tool-only entries). */
  dispatchLimiter: RateLimiter;
  dispatchPerMinute: number;
}

export interface CallerInfo {
  requestId: string;
  /** Client IP (HTTP), or "stdio" for a local client. */
  ip: string;
  log: Logger;
}

function errorResult(err: ServiceError): CallToolResult {
  const body = errorBody(err);
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], _meta: { "vigil/status": err.status } };
}

async function okResult(result: unknown, meta?: Record<string, unknown>): Promise<CallToolResult> {
  // A streamed answer (CSV) is read whole for a tool result: its route bounds it (`limit`).
  if (result instanceof StreamBody) {
    let text = "";
    for await (const chunk of result.open()) text += chunk;
    return { content: [{ type: "text", text }], ...(meta ? { _meta: meta } : {}) };
  }
  if (result instanceof RawBody) return { content: [{ type: "text", text: result.body }], ...(meta ? { _meta: meta } : {}) };
  return {
    content: [{ type: "text", text: JSON.stringify(result) }],
    structuredContent: result as Record<string, unknown>,
    ...(meta ? { _meta: meta } : {}),
  };
}

/** The payment header the paywall reads, from the request's `_meta`. */
function paymentHeader(meta: Record<string, unknown> | undefined): string | undefined {
  const p = meta?.[PAYMENT_META_KEY];
  if (p === undefined || p === null) return undefined;
  if (typeof p === "string") return p;
  // Any other shape goes to the paywall too, which refuses it with a reason (invalid_payment_payload).
  return encodePaymentSignatureHeader(p as PaymentPayload);
}

export async function callTool(
  deps: CallDeps,
  published: PublishedTool,
  args: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
  caller: CallerInfo,
): Promise<CallToolResult> {
  // As over HTTP, names the tool does not read are dropped, not refused, and listed with the result.
  const raw = { ...(args ?? {}) };
  const ignored = dropUnknownKeys(published.descriptor.input, raw);
  const result = await runTool(deps, published, raw, meta, caller);
  return ignored.length === 0 ? result : { ...result, _meta: { ...result._meta, [IGNORED_INPUT_META_KEY]: ignored } };
}

async function runTool(
  deps: CallDeps,
  published: PublishedTool,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  caller: CallerInfo,
): Promise<CallToolResult> {
  try {
    const entry = published.entry;
    // The tool's input: the route's, with header-borne credentials required (mcp-tools.ts).
    const schema = published.descriptor.input;
    if (isToolOnly(entry)) return await dispatch(deps, entry, schema, args, caller);
    const outcome = await callRoute(deps, {
      route: entry,
      schema,
      raw: args,
      caller: { requestId: caller.requestId, ip: caller.ip, log: caller.log, surface: "mcp" },
      payment: () => paymentSide(entry, published.tool.name, meta),
      free: !published.paid,
    });
    if (outcome.kind === "payment_required") return paymentRequiredResult(deps, entry, outcome);
    return await okResult(outcome.result, outcome.kind === "paid" ? { [PAYMENT_RESPONSE_META_KEY]: outcome.settleResponse } : undefined);
  } catch (e) {
    if (e instanceof ServiceError) return errorResult(e);
    const outage = databaseOutageAnswer(e);
    if (outage) return errorResult(outage);
    caller.log.error({ err: { message: (e as Error).message, stack: (e as Error).stack }, tool: published.tool.name }, "unhandled error in MCP tool");
    return errorResult(new ServiceError("internal_error", "An internal error occurred.", { requestId: caller.requestId }));
  }
}

/** A tool-only entry (the free dispatcher): its arguments, the per-client limit, its handler; no precheck, no price. */
async function dispatch(deps: CallDeps, entry: AnyToolOnlyDef, schema: z.ZodType, args: Record<string, unknown>, caller: CallerInfo): Promise<CallToolResult> {
  const ctx: RequestContext = { requestId: caller.requestId, ip: caller.ip, db: deps.db, log: caller.log, baseUrl: deps.site.baseUrl, surface: "mcp" };
  const input = validateInput(schema, args, "mcp");
  await limitDispatch(deps, caller.ip);
  return okResult(await entry.handler(input, ctx));
}

/** What a paid call names over MCP: the tool, the bazaar declaration in its MCP form, the payload from `_meta`. */
function paymentSide(entry: AnyRouteDef, name: string, meta: Record<string, unknown> | undefined): PaymentSide {
  return {
    resource: { url: `mcp://tool/${name}`, description: entry.summary, mimeType: entry.mimeType ?? "application/json" },
    extensions: bazaarForMcp(entry, name),
    header: paymentHeader(meta),
  };
}

/** The unpaid result: the terms as structured content, how to pay over MCP, and the REST endpoint to pay at instead. */
function paymentRequiredResult(deps: CallDeps, entry: AnyRouteDef, outcome: PaymentRequiredOutcome & { input: unknown }): CallToolResult {
  const input = outcome.input as Record<string, unknown>;
  const path = entry.path.replace(/:([A-Za-z_]+)/g, (_m: string, k: string) => encodeURIComponent(String(input[k] ?? `:${k}`)));
  const rest = { method: entry.method, url: `${deps.site.baseUrl}${path}` };
  return {
    isError: true,
    structuredContent: outcome.paymentRequired as unknown as Record<string, unknown>,
    content: [
      { type: "text", text: JSON.stringify(outcome.paymentRequired) },
      {
        type: "text",
        text: `Payment required (${outcome.paymentRequired.error ?? "payment_required"}): sign the terms above and call again with the payload in _meta["${PAYMENT_META_KEY}"], or use the REST endpoint ${rest.method} ${rest.url} with x402.`,
      },
    ],
    _meta: {
      "vigil/status": 402,
      "vigil/rest": rest,
      ...(outcome.settleResponse ? { [PAYMENT_RESPONSE_META_KEY]: outcome.settleResponse } : {}),
    },
  };
}

async function limitDispatch(deps: CallDeps, ip: string): Promise<void> {
  const r = await deps.dispatchLimiter.consume(ip);
  if (!r.allowed) {
    throw new ServiceError(
      "rate_limited",
      `Too many free oracle questions over MCP: at most ${deps.dispatchPerMinute} per minute per client. Each question is also sold over HTTP (GET /v1/q/...).`,
      { limit: deps.dispatchPerMinute, window_seconds: 60, retry_after_seconds: r.retryAfterSeconds },
    );
  }
}
