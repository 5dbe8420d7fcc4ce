/**
 * The middleware every request passes, in order: request id, client IP and a
 * child logger (plus one debug line per request); CORS; the general per-IP
 * limit; the body limit. They run before any route, so even a 404 carries a
 * request id and CORS headers, and a flood is refused before any parsing.
 */
import type { Context, Hono, Next } from "hono";
import { cors } from "hono/cors";
import { bodyLimit } from "hono/body-limit";
import { getConnInfo } from "@hono/node-server/conninfo";
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Logger } from "pino";
import { ServiceError } from "../core/errors.js";
import type { RateLimiter, RateLimitResult } from "../core/rate-limit.js";
import { ALLOW_TOKEN_HEADER, type AllowList } from "./rate-limits.js";
import { errorResponse, type HttpEnv } from "./respond.js";

export const MAX_BODY_BYTES = 64 * 1024;

export interface MiddlewareDeps {
  log: Logger;
  /** Proxies of our own in front of the service: X-Forwarded-For entries to skip from the right. */
  trustProxyHops: number;
  generalLimiter: RateLimiter;
  /** Allow-listed callers count against this limiter instead (absent: nobody is allow-listed). */
  allowed?: { limiter: RateLimiter; list: AllowList };
}

/** Node's own parsed request headers, when @hono/node-server serves the request (its bindings hold the IncomingMessage). */
export function nodeHeaders(env: unknown): IncomingHttpHeaders | undefined {
  return (env as { incoming?: { headers?: IncomingHttpHeaders } } | undefined)?.incoming?.headers;
}

/**
 * A request header (name in lower case), read from Node's parsed headers when
 * served over node:http: reading it through the Request makes
 * @hono/node-server build a web Headers object of every header, which a free
 * GET that reads one or two headers does not need. Repeated headers are
 * joined with ", " as the Headers object joins them.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const headers = nodeHeaders(c.env);
  return headers ? joinedHeader(headers[name]) : c.req.header(name);
}

/** One of Node's parsed request headers as one value: repeated ones joined with ", ", as the Headers object joins them. */
export const joinedHeader = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(", ") : v);

/** The client's IP: the socket's address, or behind `trustProxyHops` proxies of our own the X-Forwarded-For entry the outermost of them appended (the `trustProxyHops`-th from the right). */
export function clientIpOf(socketIp: string | undefined, forwardedFor: string | undefined, trustProxyHops: number): string {
  if (trustProxyHops > 0) {
    const chain = (forwardedFor ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    // The last `hops` entries were appended by our own proxies; the one before them is the client.
    const idx = chain.length - trustProxyHops;
    if (idx >= 0 && chain[idx]) return chain[idx];
  }
  return socketIp ?? "unknown";
}

function clientIp(c: Context, trustProxyHops: number): string {
  let socketIp: string | undefined;
  try {
    socketIp = getConnInfo(c).remote.address;
  } catch {
    // app.request() in tests has no socket.
  }
  return clientIpOf(socketIp, trustProxyHops > 0 ? requestHeader(c, "x-forwarded-for") : undefined, trustProxyHops);
}

/** The request id: the caller's X-Request-Id when it is a safe token (1 to 64 of A-Z a-z 0-9 . _ -), else a new UUID. */
export function requestIdOf(sent: string | undefined): string {
  return sent && /^[A-Za-z0-9._-]{1,64}$/.test(sent) ? sent : randomUUID();
}

/** CORS on every answer that is not a preflight: any origin, and the headers a browser client may read. */
export const CORS_ALLOW_ORIGIN = "*";
export const CORS_EXPOSE_HEADERS = ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE", "Retry-After", "X-Request-Id", "ETag", "Vigil-Ignored-Input", "Mcp-Session-Id", "Mcp-Protocol-Version"].join(",");

/** Which limiter counts a request, and under which key: the allow-list's for a listed caller, else the general one per IP. */
export function generalLimitOf(deps: Pick<MiddlewareDeps, "generalLimiter" | "allowed">, ip: string, allowToken: string | undefined): { limiter: RateLimiter; key: string; listed: string | undefined } {
  const listed = deps.allowed?.list.enabled ? deps.allowed.list.keyOf(ip, allowToken) : undefined;
  return listed ? { limiter: deps.allowed!.limiter, key: listed, listed } : { limiter: deps.generalLimiter, key: ip, listed };
}

/** The target of a lazy child logger: its parent, its bindings, and the child once made. */
interface LazyTarget {
  parent: Logger;
  bindings: Record<string, unknown>;
  child: Logger | undefined;
}
const childOf = (t: LazyTarget): Logger => (t.child ??= t.parent.child(t.bindings));

/** One handler for every lazy logger (a request makes a target and a proxy, no closures). */
const lazyHandler: ProxyHandler<LazyTarget> = {
  get(target, prop) {
    const logger = childOf(target);
    const v = Reflect.get(logger, prop, logger) as unknown;
    return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(logger) : v;
  },
  set(target, prop, value) {
    return Reflect.set(childOf(target), prop, value);
  },
  has(target, prop) {
    return Reflect.has(childOf(target), prop);
  },
};

/**
 * A child logger with the request's bindings, made on its first use: most
 * requests log nothing, and pino's child() (bindings serialized, redaction
 * set up) was a few per cent of a free GET's CPU.
 */
export function lazyChildLogger(parent: Logger, bindings: Record<string, unknown>): Logger {
  return new Proxy<LazyTarget>({ parent, bindings, child: undefined }, lazyHandler) as unknown as Logger;
}

export function installMiddleware(app: Hono<HttpEnv>, deps: MiddlewareDeps): void {
  // CORS. Preflights go through hono's cors(); on every other request the two
  // headers it would add are set with c.header() before the handler runs.
  // (cors() writes them through c.res, which makes an empty placeholder
  // response; Hono then rebuilds the handler's response on top of it, reading
  // its body as a stream, so @hono/node-server loses its fast write path.)
  const corsOptions = {
    origin: CORS_ALLOW_ORIGIN,
    allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
    // Mcp-*: browser agents on the MCP endpoint (Streamable HTTP) send and read these.
    allowHeaders: [
      "Content-Type",
      "PAYMENT-SIGNATURE",
      "x-allow-token",
      "X-PAYMENT",
      "x-watch-token",
      "x-notice-token",
      "If-None-Match",
      "Access-Control-Expose-Headers",
      "Mcp-Protocol-Version",
      "Mcp-Session-Id",
      "Last-Event-ID",
    ],
    exposeHeaders: CORS_EXPOSE_HEADERS.split(","),
  };
  const corsPreflight = cors(corsOptions);

  // Bodies over 64 KB are refused while streaming, whether or not Content-Length is sent.
  // GET and HEAD never carry a body; they skip the check, because reading
  // `c.req.raw.body` makes @hono/node-server build a full Request (AbortController,
  // stream) for every request: about a fifth of the CPU of a free GET.
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => errorResponse(c, new ServiceError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`)),
  });

  /** The general per-IP limit (or the allow-list's), before any work; a refusal is the answer. */
  const limited = (r: RateLimitResult, listed: string | undefined, c: Context<HttpEnv>): Response | undefined =>
    r.allowed
      ? undefined
      : errorResponse(
          c,
          new ServiceError("rate_limited", `Too many requests: at most ${r.limit} per minute${listed ? " for this allow-list entry" : " per IP"}.`, { limit: r.limit }, {
            "Retry-After": String(r.retryAfterSeconds),
          }),
        );

  /** What follows the limit: the body limit on requests that may carry one, then the route. */
  const afterLimit = (c: Context<HttpEnv>, next: Next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next));

  /** Everything after the request id: CORS, the limit, the body limit, the route. */
  const guarded = (c: Context<HttpEnv>, next: Next): Promise<Response | void> | Response | void => {
    if (c.req.method === "OPTIONS") return corsPreflight(c, next);
    c.header("Access-Control-Allow-Origin", CORS_ALLOW_ORIGIN);
    c.header("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    const { limiter, key, listed } = generalLimitOf(deps, c.get("ip"), deps.allowed?.list.enabled ? requestHeader(c, ALLOW_TOKEN_HEADER) : undefined);
    // Most requests are answered from the points this process already holds, without waiting.
    const now = limiter.trySpend(key);
    if (now) return limited(now, listed, c) ?? afterLimit(c, next);
    return limiter.consume(key).then((r) => limited(r, listed, c) ?? afterLimit(c, next));
  };

  // One middleware, not one per concern: each layer of Hono's chain is an async step on every
  // request, and these always run together, in this order.
  app.use("*", async (c, next) => {
    const requestId = requestIdOf(requestHeader(c, "x-request-id"));
    c.set("requestId", requestId);
    c.set("ip", clientIp(c, deps.trustProxyHops));
    c.set("log", lazyChildLogger(deps.log, { requestId }));
    // Prepared on the context before the handler, as the CORS headers are: every answer made
    // through the context carries it, and the handler's response is not rebuilt to add it.
    c.header("X-Request-Id", requestId);
    if (!deps.log.isLevelEnabled("debug")) return guarded(c, next);
    const started = performance.now();
    const res = await guarded(c, next);
    c.get("log").debug(
      // A refusal made here is the middleware's answer (Hono sets it on c.res after this returns); otherwise the route's is on c.res.
      { method: c.req.method, path: c.req.path, status: res instanceof Response ? res.status : c.res.status, ms: Math.round(performance.now() - started) },
      "request",
    );
    return res;
  });
}
