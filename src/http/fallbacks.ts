/**
 * What answers when no route does, or a route throws: 405 with Allow for a
 * known path asked with another method, 404 otherwise, the ServiceError's own
 * status and envelope, a 503 database_unavailable when the database could not
 * be reached (src/db/unavailable.ts), and for anything else a 500 that carries
 * the request id but never the error's message or stack (those go to the log).
 */
import type { Hono } from "hono";
import { ServiceError } from "../core/errors.js";
import { databaseOutageAnswer } from "../db/unavailable.js";
import { errorResponse, type HttpEnv } from "./respond.js";
import type { AnyRouteDef } from "./route-table.js";

/** Builds a regex for a Hono-style path, to answer 405 for known paths with another method. */
function pathPattern(path: string): RegExp {
  const re = (path.length > 1 ? path.replace(/\/+$/, "") : path).replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z_]+/g, "[^/]+");
  return new RegExp(`^${re}/?$`);
}

export function installFallbacks(app: Hono<HttpEnv>, routes: readonly AnyRouteDef[]): void {
  const patterns = routes.map((r) => ({ method: r.method, re: pathPattern(r.path) }));

  app.notFound((c) => {
    const allowed = [...new Set(patterns.filter((p) => p.re.test(c.req.path)).map((p) => p.method))];
    // A 405 names only other methods: a path whose own method fell through here is a 404, never "use GET" to a GET.
    if (allowed.length > 0 && !allowed.includes(c.req.method as AnyRouteDef["method"])) {
      return errorResponse(
        c,
        new ServiceError("method_not_allowed", `${c.req.method} is not allowed here; use ${allowed.join(", ")}.`, undefined, {
          Allow: allowed.join(", "),
        }),
      );
    }
    return errorResponse(c, new ServiceError("not_found", `No route ${c.req.method} ${c.req.path}.`));
  });

  app.onError((err, c) => {
    if (err instanceof ServiceError) return errorResponse(c, err);
    const outage = databaseOutageAnswer(err);
    if (outage) {
      // An outage or a full disk, not a bug: one line without a stack (the connection's own warning says why).
      c.get("log")?.warn({ err: err.message, code: outage.code }, "database cannot serve the request");
      return errorResponse(c, outage);
    }
    c.get("log")?.error({ err: { message: err.message, stack: err.stack } }, "unhandled error");
    return errorResponse(c, new ServiceError("internal_error", "An internal error occurred.", { requestId: c.get("requestId") }));
  });
}
