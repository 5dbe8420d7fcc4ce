/**
 * `GET /metrics` and the per-request HTTP metrics, around the router's
 * fetch (so the router itself is untouched and every request is counted,
 * including 404s, the MCP endpoint and the 402s of the paywall).
 *
 * /metrics is served on the API port only when METRICS_TOKEN is set, and
 * then only to `Authorization: Bearer <token>` (compared in constant time);
 * on its own port (METRICS_PORT) it needs no token unless one is set.
 * Without either it is not served: the path is an ordinary 404.
 */
import { timingSafeEqual } from "node:crypto";
import { ServiceError, errorBody } from "../core/errors.js";
import { getPath } from "hono/utils/url";
import { METRICS_CONTENT_TYPE, routeLabeller, type Metrics } from "../core/metrics.js";
import { nodeHeaders } from "./middleware.js";

type Fetch = (req: Request, ...rest: any[]) => Response | Promise<Response>;

export const METRICS_PATH = "/metrics";

function tokenMatches(header: string | null, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function jsonError(err: ServiceError): Response {
  return new Response(JSON.stringify(errorBody(err)), {
    status: err.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...(err.headers ?? {}) },
  });
}

/** The /metrics answer: the exposition for a GET with the right token (when one is required), else the error. */
export async function serveMetrics(req: Request, metrics: Metrics, token: string | undefined): Promise<Response> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return jsonError(new ServiceError("method_not_allowed", `${req.method} is not allowed here; use GET.`, undefined, { Allow: "GET" }));
  }
  if (token !== undefined && !tokenMatches(req.headers.get("authorization"), token)) {
    const r = jsonError(new ServiceError("invalid_metrics_token", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>."));
    r.headers.set("www-authenticate", 'Bearer realm="metrics"');
    return r;
  }
  return new Response(req.method === "HEAD" ? null : await metrics.render(), {
    status: 200,
    headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" },
  });
}

/** Counts one answered request by its path: labelled with its route's pattern (routeLabeller), with its method, status and duration since `started` (performance.now()). */
export type RequestCounter = (path: string, method: string, status: number, started: number) => void;

/** The counter of the HTTP metrics, for the wrapped fetch and for what answers in front of it (standing-answers.ts). */
export function requestCounter(metrics: Metrics, routePatterns: readonly string[]): RequestCounter {
  const label = routeLabeller(routePatterns);
  return (path, method, status, started) => {
    const route = label(path);
    metrics.httpRequests.inc({ route, method, status: String(status) });
    metrics.httpDuration.observe({ route, method }, (performance.now() - started) / 1000);
    if (status === 402) metrics.paymentRequired.inc({ route });
  };
}

/** Wraps the app's fetch: counts every request, and answers /metrics when METRICS_TOKEN is set. */
export function instrumentFetch(fetch: Fetch, opts: { metrics: Metrics; routePatterns: readonly string[]; token: string | undefined; count?: RequestCounter }): Fetch {
  const count = opts.count ?? requestCounter(opts.metrics, opts.routePatterns);
  return async (req, ...rest) => {
    // The router's own reading of the path (no URL object per request).
    const path = getPath(req);
    if (opts.token !== undefined && path === METRICS_PATH) return serveMetrics(req, opts.metrics, opts.token);
    const started = performance.now();
    // Node's parsed headers when served over node:http (no web Headers object built for a free call).
    const headers = nodeHeaders(rest[0]);
    const paymentPresented = headers ? headers["payment-signature"] !== undefined || headers["x-payment"] !== undefined : req.headers.has("payment-signature") || req.headers.has("x-payment");
    const res = await fetch(req, ...rest);
    count(path, req.method, res.status, started);
    // Only a call that presented a payment can have settled one. A 402 carries PAYMENT-RESPONSE too
    // when its settlement failed or is still pending: only a success settled.
    if (paymentPresented) {
      if (res.status < 400 && res.headers.has("payment-response")) opts.metrics.settlements.inc({ outcome: "settled" });
      else if (res.status >= 400) opts.metrics.settlements.inc({ outcome: "failed" });
    }
    return res;
  };
}
