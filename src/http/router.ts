/**
 * Turns the route table into a Hono app. Each HTTP route is mounted as one
 * call of the shared pipeline (pipeline.ts: input → route rate limit →
 * precheck → price → free: handler; paid: the x402 paywall runs the handler
 * inside its flow); this file keeps HTTP's part: reading the input
 * (request-input.ts), the payment header and the resource URL, what a probe
 * is, and the answer (render, the 402 and its headers). The probe of a paid
 * route (no payment header and no input at all) whose input is required
 * answers the paywall's 402 instead of the 400 (`probeOf`, x402/paywall.ts).
 * Around it: the shared middleware (middleware.ts: request id, CORS, general
 * limit, body limit) and the fallbacks (fallbacks.ts: 404, 405, the one error
 * envelope). Tool-only table entries never reach this module.
 */
import { Hono, type Context } from "hono";
import type { Logger } from "pino";
import type { Database } from "../db/types.js";
import type { Paywall, PaymentRequiredOutcome } from "../x402/paywall.js";
import type { ServiceError } from "../core/errors.js";
import { base64OfJson, encodeX402Header } from "../x402/header-codec.js";
import type { AnyRouteDef } from "./route-table.js";
import { installMiddleware } from "./middleware.js";
import { installFallbacks } from "./fallbacks.js";
import { standingAnswers, type StandingAnswers } from "./standing-answers.js";
import { FixedPathRouter } from "./fixed-path-router.js";
import { sentInput } from "./request-input.js";
import { createRateLimiters, type RateLimitSettings } from "./rate-limits.js";
import { render, type HttpEnv } from "./respond.js";
import { bazaarForHttp } from "./discovery.js";
import { callRoute, type PaymentSide, type PipelineDeps } from "./pipeline.js";

export { MAX_BODY_BYTES } from "./middleware.js";

export interface RouterDeps {
  routes: readonly AnyRouteDef[];
  paywall: Paywall;
  db: Database;
  log: Logger;
  /** Public base URL used in 402 resources (read per request: it is known only once the server listens). */
  site: { baseUrl: string };
  trustProxyHops: number;
  /** Where the limiters keep their counts and the general per-IP limit; route limits come from the table. */
  rateLimits: RateLimitSettings;
}

export function buildRouter(deps: RouterDeps): Hono<HttpEnv> {
  return buildHttpApp(deps).hono;
}

/** The Hono app, and the standing answers served in front of it (standing-answers.ts) with the same limiters. */
export function buildHttpApp(deps: RouterDeps): { hono: Hono<HttpEnv>; standing: StandingAnswers } {
  // strict: false — a trailing slash names the same route (`/v1/q/xmr/height/` is `/v1/q/xmr/height`).
  // The trie router, with each fixed path's match kept (fixed-path-router.ts).
  const app = new Hono<HttpEnv>({ strict: false, router: new FixedPathRouter() });
  const limiters = createRateLimiters(deps.routes, deps.rateLimits);
  const middleware = {
    log: deps.log,
    trustProxyHops: deps.trustProxyHops,
    generalLimiter: limiters.general,
    allowed: { limiter: limiters.allowed, list: limiters.allowList },
  };
  installMiddleware(app, middleware);
  const pipeline: PipelineDeps = { paywall: deps.paywall, db: deps.db, site: deps.site, limiters };
  for (const route of deps.routes) {
    // Without strict matching Hono drops a request's trailing slash, so a path declared with one is mounted without it.
    const mounted = route.path.length > 1 ? route.path.replace(/\/+$/, "") : route.path;
    app.on(route.method, mounted, (c) => serveRoute(c, route, pipeline));
  }
  installFallbacks(app, deps.routes);
  return { hono: app, standing: standingAnswers(deps.routes, middleware) };
}

/** The payment header of a request (x402 v2 PAYMENT-SIGNATURE, or the v1 X-PAYMENT the spec names). */
const paymentHeader = (c: Context<HttpEnv>) => c.req.header("payment-signature") ?? c.req.header("x-payment");

/** The price a probe quotes: the fixed price, or the lowest of a caller-priced route (its body names the amount). */
function probePrice(route: AnyRouteDef): bigint | undefined {
  return typeof route.price === "bigint" ? route.price : route.priceRange?.min;
}

/** Whether the request sent no input of its own: no query string (GET/DELETE), no body or `{}` (POST/PATCH). */
async function sentNoInput(c: Context<HttpEnv>, route: AnyRouteDef): Promise<boolean> {
  if (route.method === "POST" || route.method === "PATCH") {
    const text = (await c.req.text()).trim();
    return text === "" || /^\{\s*\}$/.test(text);
  }
  return new URL(c.req.url).search.length <= 1;
}

/**
 * A probe: a paid route called with no payment and no input, whose input
 * check failed only for fields nobody sent (a path parameter that was sent
 * and is wrong is still a 400). Returns the price to quote, or undefined when
 * the request is not a probe and its 400 stands.
 */
async function probeOf(c: Context<HttpEnv>, route: AnyRouteDef, refusal: ServiceError): Promise<bigint | undefined> {
  const price = probePrice(route);
  if (price === undefined || paymentHeader(c)) return undefined;
  if (refusal.code !== "invalid_input") return undefined;
  if (!(await sentNoInput(c, route))) return undefined;
  const params = c.req.param() as Record<string, string>;
  const issues = (refusal.details?.issues ?? []) as { path: string }[];
  return issues.every((i) => !(i.path.split(".")[0]! in params)) ? price : undefined;
}

/** What a paid call names over HTTP: the request's URL, the bazaar declaration of its path, its payment header. */
function paymentSide(c: Context<HttpEnv>, route: AnyRouteDef, baseUrl: string): PaymentSide {
  const url = new URL(c.req.url);
  return {
    resource: { url: `${baseUrl}${url.pathname}${url.search}`, description: route.summary, mimeType: route.mimeType ?? "application/json" },
    extensions: bazaarForHttp(route, url.pathname),
    header: paymentHeader(c),
  };
}

async function serveRoute(c: Context<HttpEnv>, route: AnyRouteDef, deps: PipelineDeps): Promise<Response> {
  const outcome = await callRoute(deps, {
    route,
    schema: route.input,
    raw: await sentInput(c, route),
    caller: { requestId: c.get("requestId"), ip: c.get("ip"), log: c.get("log"), surface: "http" },
    payment: () => paymentSide(c, route, deps.site.baseUrl),
    probe: (refusal) => probeOf(c, route, refusal),
  });
  if (outcome.kind === "payment_required") return paymentRequired(c, outcome);
  if (outcome.kind === "free") {
    const conditional = route.etag ? { ifNoneMatch: c.req.header("if-none-match") } : undefined;
    return render(c, outcome.result, outcome.status, {}, conditional);
  }
  // no-store: a paid answer may carry secrets shown once (a new watch's token and webhook secret).
  return render(c, outcome.result, outcome.status, { ...outcome.headers, "Cache-Control": "no-store" });
}

/** The 402: the requirements in the body and in PAYMENT-REQUIRED, and the settlement's answer when one failed. */
function paymentRequired(c: Context<HttpEnv>, outcome: PaymentRequiredOutcome): Response {
  // One serialization for the body and the header.
  const json = JSON.stringify(outcome.paymentRequired);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "PAYMENT-REQUIRED": base64OfJson(json),
    "Cache-Control": "no-store",
  };
  if (outcome.settleResponse) {
    const h = encodeX402Header(outcome.settleResponse);
    headers["PAYMENT-RESPONSE"] = h;
    headers["X-PAYMENT-RESPONSE"] = h;
  }
  return c.body(json, 402, headers);
}
