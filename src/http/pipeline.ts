/**
 * One call of a route, the same whichever transport carried it (HTTP:
 * router.ts; MCP: mcp/call.ts):
 *   validate the input → the route's rate limit → precheck → price →
 *   free: the handler; paid: the x402 paywall runs the handler inside its
 *   flow (x402/paywall.ts), with the payment in the handler's context.
 * One exception to "input first", HTTP's only: a probe (a paid route called
 * with nothing) whose input is required gets the 402 instead of the 400; the
 * transport says what a probe is (`RouteCall.probe`).
 *
 * The transport keeps its own part: it reads the raw input (dropping the
 * names the route does not read), says where the call was made and what
 * payment it carried, and turns the outcome into its answer (status and
 * headers over HTTP, a tool result over MCP). Refusals are thrown
 * ServiceErrors, which each transport shapes its own way. Both transports
 * build the paid call here, so they cannot drift.
 */
import type { z } from "zod";
import { inputIssues, ServiceError } from "../core/errors.js";
import type { Database } from "../db/types.js";
import type { PaidCall, PaidOutcome, Paywall, ResourceDescription } from "../x402/paywall.js";
import type { AnyRouteDef, RequestContext } from "./route-table.js";
import { enforceRouteLimit, type RateLimiters } from "./rate-limits.js";
import { storedAnswer } from "./respond.js";

export interface PipelineDeps {
  paywall: Paywall;
  db: Database;
  /** Public base URL, read per call (it is known only once the server listens). */
  site: { baseUrl: string };
  limiters: RateLimiters;
}

/** What a paid call names and carries on its transport. */
export interface PaymentSide {
  /** The resource a 402 describes: the request's URL over HTTP, `mcp://tool/<name>` over MCP. */
  resource: ResourceDescription;
  /** Protocol extensions of the 402: the bazaar declaration in the transport's form. */
  extensions: Record<string, unknown>;
  /** The payment header: PAYMENT-SIGNATURE (or X-PAYMENT) over HTTP, the `_meta` payload encoded as one over MCP. */
  header: string | undefined;
}

export interface RouteCall {
  route: AnyRouteDef;
  /** The schema the input is checked with: the route's, or over MCP its tool input (mcp-tools.ts). */
  schema: z.ZodType;
  /** The input as sent, the names the schema does not read already dropped. */
  raw: Record<string, unknown>;
  caller: Pick<RequestContext, "requestId" | "ip" | "log" | "surface">;
  /** Built only when a paid call or a probe needs it (the bazaar declaration costs a free call nothing). */
  payment: () => PaymentSide;
  /** The transport serves this priced route free (an `mcpFree` route over MCP). */
  free?: boolean;
  /** Whether a refused input is a probe: the price to quote, or undefined when the 400 stands (HTTP only). */
  probe?: (refusal: ServiceError) => Promise<bigint | undefined>;
}

/** A free answer, a paid one, or the 402 terms; with the validated input (none for a probe) and the route's success status. */
export type RouteOutcome = ({ kind: "free"; result: unknown } | PaidOutcome<unknown>) & { input: unknown; status: number };

/** How each transport names the input in its `invalid_input` message. */
const INVALID_INPUT_MESSAGE: Record<RequestContext["surface"], string> = {
  http: "The request input is invalid.",
  mcp: "The tool arguments are invalid.",
};

/** The input through its schema: what the handler takes, or a 400 `invalid_input` naming each issue. */
export function validateInput(schema: z.ZodType, raw: Record<string, unknown>, surface: RequestContext["surface"]): unknown {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ServiceError("invalid_input", INVALID_INPUT_MESSAGE[surface], { issues: inputIssues(parsed.error) });
  return parsed.data;
}

/** Resolves a route's price for an already-validated input. */
export function priceOf(route: AnyRouteDef, input: unknown): bigint | undefined {
  if (route.price === undefined) return undefined;
  return typeof route.price === "function" ? route.price(input as never) : route.price;
}

export async function callRoute(deps: PipelineDeps, call: RouteCall): Promise<RouteOutcome> {
  const { route, caller } = call;
  const status = route.successStatus ?? 200;
  let input: unknown;
  try {
    input = validateInput(call.schema, call.raw, caller.surface);
  } catch (refusal) {
    const probe = refusal instanceof ServiceError && call.probe ? await call.probe(refusal) : undefined;
    if (probe === undefined) throw refusal;
    await enforceRouteLimit(deps.limiters, route, caller.ip);
    // Nothing was sent, so nothing is checked or done: the 402 tells the caller what to pay and what to send.
    const { resource, extensions } = call.payment();
    return { ...deps.paywall.probe({ resource, amount: probe, extensions }), input: undefined, status };
  }
  await enforceRouteLimit(deps.limiters, route, caller.ip);
  const ctx: RequestContext = { requestId: caller.requestId, ip: caller.ip, db: deps.db, log: caller.log, baseUrl: deps.site.baseUrl, surface: caller.surface };
  if (route.precheck) await route.precheck(input, ctx);
  const price = call.free ? undefined : priceOf(route, input);
  if (price === undefined) return { kind: "free", result: await route.handler(input, ctx), input, status };
  const outcome = await deps.paywall.run(paidCall(route, input, price, ctx, call.payment()));
  return { ...outcome, input, status };
}

/** The paid call the paywall runs: the route's handler as its work, on the paywall's handle, with the payment in its context. */
function paidCall(route: AnyRouteDef, input: unknown, amount: bigint, ctx: RequestContext, payment: PaymentSide): PaidCall<unknown> {
  return {
    route: `${route.method} ${route.path}`,
    resource: payment.resource,
    amount,
    header: payment.header,
    input,
    work: (trx, paid) => route.handler(input, { ...ctx, db: trx, payment: paid }),
    codec: storedAnswer,
    successStatus: route.successStatus ?? 200,
    readOnly: route.readOnly,
    minValiditySeconds: route.minValiditySeconds,
    settleBeforeWork: route.settleBeforeWork,
    extensions: payment.extensions,
  };
}
