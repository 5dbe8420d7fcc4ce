/**
 * Turns the route table into a Hono app: input parsing and validation, the
 * paywall on priced routes, per-IP rate limits, the one error shape, request
 * ids, 404/405/413 and invalid JSON.
 */
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { bodyLimit } from "hono/body-limit";
import { getConnInfo } from "@hono/node-server/conninfo";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Logger } from "pino";
import { ServiceError, errorBody } from "../core/errors.js";
import type { RateLimiter } from "../core/rate-limit.js";
import type { Database } from "../db/types.js";
import type { Paywall } from "../x402/paywall.js";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { RawBody, type RouteDef, type RequestContext } from "./route-table.js";

export const MAX_BODY_BYTES = 64 * 1024;

export interface RouterDeps {
  routes: readonly RouteDef[];
  paywall: Paywall;
  db: Database;
  log: Logger;
  /** Public base URL used in 402 resources (read per request: it is known only once the server listens). */
  site: { baseUrl: string };
  trustProxyHops: number;
  generalLimiter: RateLimiter;
  /** One limiter per route operationId that declares rateLimit. */
  routeLimiters: Map<string, RateLimiter>;
}

type Env = { Variables: { requestId: string; ip: string; log: Logger } };

/** Resolves a route's price for an already-validated input. */
export function priceOf(route: RouteDef, input: unknown): bigint | undefined {
  if (route.price === undefined) return undefined;
  return typeof route.price === "function" ? route.price(input as never) : route.price;
}

function clientIp(c: Context, trustProxyHops: number): string {
  let socketIp = "unknown";
  try {
    socketIp = getConnInfo(c).remote.address ?? "unknown";
  } catch {
    // app.request() in tests has no socket.
  }
  if (trustProxyHops > 0) {
    const chain = (c.req.header("x-forwarded-for") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    // The last `hops` entries were appended by our own proxies; the one before them is the client.
    const idx = chain.length - trustProxyHops;
    if (idx >= 0 && chain[idx]) return chain[idx];
  }
  return socketIp;
}

function errorResponse(c: Context, err: ServiceError): Response {
  const headers: Record<string, string> = { "Cache-Control": "no-store", ...(err.headers ?? {}) };
  return c.json(errorBody(err), err.status as 400, headers);
}

function zodDetails(error: z.ZodError): Record<string, unknown> {
  return {
    issues: error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
  };
}

/** Builds a regex for a Hono-style path, to answer 405 for known paths with another method. */
function pathPattern(path: string): RegExp {
  const re = path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+");
  return new RegExp(`^${re}/?$`);
}

export function buildRouter(deps: RouterDeps): Hono<Env> {
  const app = new Hono<Env>();
  const patterns = deps.routes.map((r) => ({ method: r.method, re: pathPattern(r.path) }));

  app.use("*", async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    c.set("ip", clientIp(c, deps.trustProxyHops));
    c.set("log", deps.log.child({ requestId }));
    const started = performance.now();
    await next();
    c.res.headers.set("X-Request-Id", requestId);
    c.get("log").debug(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) },
      "request",
    );
  });

  // CORS. Preflights go through hono's cors(); on every other request the two
  // headers it would add are set with c.header() before the handler runs.
  // (cors() writes them through c.res, which makes an empty placeholder
  // response; Hono then rebuilds the handler's response on top of it, reading
  // its body as a stream, so @hono/node-server loses its fast write path.)
  const corsOptions = {
    origin: "*",
    allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
    allowHeaders: ["Content-Type", "PAYMENT-SIGNATURE", "X-PAYMENT", "x-watch-token", "Access-Control-Expose-Headers"],
    exposeHeaders: ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE", "Retry-After", "X-Request-Id"],
  };
  const corsPreflight = cors(corsOptions);
  const exposeHeaders = corsOptions.exposeHeaders.join(",");
  app.use("*", async (c, next) => {
    if (c.req.method === "OPTIONS") return corsPreflight(c, next);
    c.header("Access-Control-Allow-Origin", corsOptions.origin);
    c.header("Access-Control-Expose-Headers", exposeHeaders);
    await next();
  });

  // General per-IP limit, before any work.
  app.use("*", async (c, next) => {
    if (c.req.method === "OPTIONS") return next();
    const r = await deps.generalLimiter.consume(c.get("ip"));
    if (!r.allowed) {
      return errorResponse(
        c,
        new ServiceError(429, "rate_limited", `Too many requests: at most ${r.limit} per minute per IP.`, { limit: r.limit }, {
          "Retry-After": String(r.retryAfterSeconds),
        }),
      );
    }
    return next();
  });

  // Bodies over 64 KB are refused while streaming, whether or not Content-Length is sent.
  // GET and HEAD never carry a body; they skip the check, because reading
  // `c.req.raw.body` makes @hono/node-server build a full Request (AbortController,
  // stream) for every request: about a fifth of the CPU of a free GET.
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => errorResponse(c, new ServiceError(413, "payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`)),
  });
  app.use("*", (c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next)));

  for (const route of deps.routes) {
    app.on(route.method, route.path, async (c) => {
      const log = c.get("log");
      // Input: query (GET/DELETE) or JSON body (POST), then path params and mapped headers on top.
      let raw: Record<string, unknown> = {};
      if (route.method === "POST") {
        const text = await c.req.text();
        if (text.trim() !== "") {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            throw new ServiceError(400, "invalid_json", "The request body is not valid JSON.");
          }
          if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
            throw new ServiceError(400, "invalid_json", "The request body must be a JSON object.");
          raw = parsed as Record<string, unknown>;
        }
      } else {
        raw = { ...c.req.query() };
      }
      Object.assign(raw, c.req.param());
      for (const [header, field] of Object.entries(route.headerInputs ?? {})) {
        // Header-borne credentials come only from their header, never from a URL that proxies log.
        delete raw[field];
        const v = c.req.header(header);
        if (v !== undefined) raw[field] = v;
      }
      const parsed = route.input.safeParse(raw);
      if (!parsed.success) {
        throw new ServiceError(400, "invalid_input", "The request input is invalid.", zodDetails(parsed.error));
      }
      const input = parsed.data;

      if (route.rateLimit) {
        const limiter = deps.routeLimiters.get(route.operationId);
        const r = limiter ? await limiter.consume(c.get("ip")) : undefined;
        if (r && !r.allowed) {
          throw new ServiceError(
            429,
            "rate_limited",
            `Too many requests to this route: at most ${route.rateLimit.points} per ${route.rateLimit.windowSeconds} s per IP.`,
            { limit: route.rateLimit.points, window_seconds: route.rateLimit.windowSeconds },
            { "Retry-After": String(r.retryAfterSeconds) },
          );
        }
      }

      const ctx: RequestContext = {
        requestId: c.get("requestId"),
        ip: c.get("ip"),
        db: deps.db,
        log,
        baseUrl: deps.site.baseUrl,
        surface: "http",
      };
      const status = route.successStatus ?? 200;
      if (route.precheck) await route.precheck(input, ctx);
      const price = priceOf(route, input);
      if (price === undefined) {
        return render(c, await route.handler(input, ctx), status, {});
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
        work: (trx, payment) => route.handler(input, { ...ctx, db: trx, payment }),
        readOnly: route.readOnly,
        minValiditySeconds: route.minValiditySeconds,
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
    });
  }

  app.notFound((c) => {
    const allowed = [...new Set(patterns.filter((p) => p.re.test(c.req.path)).map((p) => p.method))];
    if (allowed.length > 0) {
      return errorResponse(
        c,
        new ServiceError(405, "method_not_allowed", `${c.req.method} is not allowed here; use ${allowed.join(", ")}.`, undefined, {
          Allow: allowed.join(", "),
        }),
      );
    }
    return errorResponse(c, new ServiceError(404, "not_found", `No route ${c.req.method} ${c.req.path}.`));
  });

  app.onError((err, c) => {
    if (err instanceof ServiceError) return errorResponse(c, err);
    c.get("log")?.error({ err: { message: err.message, stack: err.stack } }, "unhandled error");
    return errorResponse(c, new ServiceError(500, "internal_error", "An internal error occurred.", { requestId: c.get("requestId") }));
  });

  return app;
}

function render(c: Context, result: unknown, status: number, headers: Record<string, string>): Response {
  if (result instanceof RawBody) {
    return c.body(result.body, status as 200, { ...headers, "Content-Type": result.contentType });
  }
  return c.json(result as object, status as 200, headers);
}
