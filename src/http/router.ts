/**
 * Turns the route table into a Hono app. Each HTTP route is mounted as one
 * flow: input (request-input.ts) → route rate limit → precheck → price →
 * free: handler; paid: the x402 paywall runs the handler inside its flow →
 * render. Around it: the shared middleware (middleware.ts: request id, CORS,
 * general limit, body limit) and the fallbacks (fallbacks.ts: 404, 405, the
 * one error envelope). Tool-only table entries never reach this module.
 */
import { Hono, type Context } from "hono";
import type { Logger } from "pino";
import type { Database } from "../db/types.js";
import type { Paywall } from "../x402/paywall.js";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { AnyRouteDef, RequestContext } from "./route-table.js";
import { installMiddleware } from "./middleware.js";
import { installFallbacks } from "./fallbacks.js";
import { requestInput } from "./request-input.js";
import { createRateLimiters, enforceRouteLimit, type RateLimiters, type RateLimitSettings } from "./rate-limits.js";
import { render, storedAnswer, type HttpEnv } from "./respond.js";
import { bazaarForHttp } from "./discovery.js";

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

/** Resolves a route's price for an already-validated input. */
export function priceOf(route: AnyRouteDef, input: unknown): bigint | undefined {
  if (route.price === undefined) return undefined;
  return typeof route.price === "function" ? route.price(input as never) : route.price;
}

export function buildRouter(deps: RouterDeps): Hono<HttpEnv> {
  // strict: false — a trailing slash names the same route (`/v1/q/xmr/height/` is `/v1/q/xmr/height`).
  const app = new Hono<HttpEnv>({ strict: false });
  const limiters = createRateLimiters(deps.routes, deps.rateLimits);
  installMiddleware(app, {
    log: deps.log,
    trustProxyHops: deps.trustProxyHops,
    generalLimiter: limiters.general,
    allowed: { limiter: limiters.allowed, list: limiters.allowList },
  });
  for (const route of deps.routes) {
    // Without strict matching Hono drops a request's trailing slash, so a path declared with one is mounted without it.
    const mounted = route.path.length > 1 ? route.path.replace(/\/+$/, "") : route.path;
    app.on(route.method, mounted, (c) => serveRoute(c, route, deps, limiters));
  }
  installFallbacks(app, deps.routes);
  return app;
}

async function serveRoute(c: Context<HttpEnv>, route: AnyRouteDef, deps: RouterDeps, limiters: RateLimiters): Promise<Response> {
  const input = await requestInput(c, route);
  await enforceRouteLimit(limiters, route, c.get("ip"));

  const ctx: RequestContext = {
    requestId: c.get("requestId"),
    ip: c.get("ip"),
    db: deps.db,
    log: c.get("log"),
    baseUrl: deps.site.baseUrl,
    surface: "http",
  };
  const status = route.successStatus ?? 200;
  if (route.precheck) await route.precheck(input, ctx);
  const price = priceOf(route, input);
  if (price === undefined) {
    const conditional = route.etag ? { ifNoneMatch: c.req.header("if-none-match") } : undefined;
    return render(c, await route.handler(input, ctx), status, {}, conditional);
  }

  const url = new URL(c.req.url);
  const outcome = await deps.paywall.run({
    route: `${route.method} ${route.path}`,
    resource: {
      url: `${deps.site.baseUrl}${url.pathname}${url.search}`,
      description: route.summary,
      mimeType: route.mimeType ?? "application/json",
    },
    amount: price,
    header: c.req.header("payment-signature") ?? c.req.header("x-payment"),
    input,
    work: (trx, payment) => route.handler(input, { ...ctx, db: trx, payment }),
    codec: storedAnswer,
    successStatus: status,
    readOnly: route.readOnly,
    minValiditySeconds: route.minValiditySeconds,
    settleBeforeWork: route.settleBeforeWork,
    extensions: bazaarForHttp(route, url.pathname),
  });
  if (outcome.kind === "payment_required") {
    const headers: Record<string, string> = {
      "PAYMENT-REQUIRED": encodePaymentRequiredHeader(outcome.paymentRequired),
      "Cache-Control": "no-store",
    };
    if (outcome.settleResponse) {
      const h = encodePaymentResponseHeader(outcome.settleResponse);
      headers["PAYMENT-RESPONSE"] = h;
      headers["X-PAYMENT-RESPONSE"] = h;
    }
    return c.json(outcome.paymentRequired, 402, headers);
  }
  // no-store: a paid answer may carry secrets shown once (a new watch's token and webhook secret).
  return render(c, outcome.result, status, { ...outcome.headers, "Cache-Control": "no-store" });
}
