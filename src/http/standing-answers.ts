/**
 * Standing answers served before the framework. A route made with
 * defineStandingRoute (the catalogue, the payment metadata, the OpenAPI
 * document, the discovery manifest, the index) answers a GET with JSON that
 * depends on nothing of the request. For those, node's request listener
 * answers itself, and @hono/node-server, Hono, the router and the pipeline
 * are never entered: under load they cost a free GET more than half of its
 * CPU (bench/README.md, http).
 *
 * Nothing the middleware does is skipped; its own functions do it here (the
 * request id, the client IP, the CORS headers, the general limit and the
 * allow-list), and the request is counted in the HTTP metrics as the wrapped
 * fetch counts it. Everything this path does not take is left to the
 * framework, untouched: another method (HEAD, OPTIONS), a query string or a
 * trailing slash, a payment header, debug logging (the middleware logs a line
 * per request), and a limit this process cannot decide without waiting (a
 * claim from PostgreSQL) or that refuses. A point is spent only when this
 * path answers, so a request it leaves to the framework is counted once,
 * there.
 *
 * The answer is byte for byte the framework's, bar the Date and a new request
 * id: test/http/standing-answers.test.ts sends the same requests both ways.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { AnyRouteDef } from "./route-table.js";
import { CORS_ALLOW_ORIGIN, CORS_EXPOSE_HEADERS, clientIpOf, generalLimitOf, joinedHeader, requestIdOf, type MiddlewareDeps } from "./middleware.js";
import { ALLOW_TOKEN_HEADER } from "./rate-limits.js";
import { jsonPayload } from "./respond.js";
import type { RequestCounter } from "./metrics-http.js";

export interface StandingAnswers {
  /** `next` with the standing routes answered in front of it. */
  listener(next: RequestListener, count: RequestCounter): RequestListener;
  /** How many requests this path answered (the rest went to the framework). */
  readonly served: number;
}

export function standingAnswers(routes: readonly AnyRouteDef[], deps: MiddlewareDeps & { log: Logger }): StandingAnswers {
  const answers = new Map<string, () => unknown>();
  for (const r of routes) if (r.standingAnswer && r.method === "GET") answers.set(r.path, r.standingAnswer);
  let served = 0;

  /** True when this path answered the request. */
  const serve = (req: IncomingMessage, res: ServerResponse, count: RequestCounter): boolean => {
    if (req.method !== "GET") return false;
    const path = req.url;
    const answer = path === undefined ? undefined : answers.get(path);
    if (!answer) return false;
    const h = req.headers;
    if (h["payment-signature"] !== undefined || h["x-payment"] !== undefined) return false;
    if (deps.log.isLevelEnabled("debug")) return false;
    const started = performance.now();
    const ip = clientIpOf(req.socket.remoteAddress, deps.trustProxyHops > 0 ? joinedHeader(h["x-forwarded-for"]) : undefined, deps.trustProxyHops);
    const { limiter, key } = generalLimitOf(deps, ip, deps.allowed?.list.enabled ? joinedHeader(h[ALLOW_TOKEN_HEADER]) : undefined);
    const decided = limiter.trySpend(key);
    if (!decided?.allowed) return false;
    let body: string | Uint8Array | undefined;
    try {
      body = jsonPayload(answer());
    } catch {
      body = undefined;
    }
    // An answer that threw (or is no JSON value): the framework answers, with the route's handler giving the same
    // answer, so its error envelope too; the point spent here is lost.
    if (body === undefined) return false;
    // The framework's headers, in its order: the web Headers' names sorted, then Content-Length.
    res.writeHead(200, {
      "access-control-allow-origin": CORS_ALLOW_ORIGIN,
      "access-control-expose-headers": CORS_EXPOSE_HEADERS,
      "content-type": "application/json",
      "x-request-id": requestIdOf(joinedHeader(h["x-request-id"])),
      "Content-Length": typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
    });
    res.end(body);
    served++;
    count(path!, "GET", 200, started);
    return true;
  };

  return {
    listener: (next, count) => (req, res) => {
      if (!serve(req, res, count)) next(req, res);
    },
    get served() {
      return served;
    },
  };
}
