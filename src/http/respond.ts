/**
 * What every part of the HTTP app shares: the per-request variables set by
 * the first middleware, the one error envelope, and how a handler's result
 * becomes a response (JSON, or a RawBody with its own content type).
 */
import type { Context } from "hono";
import type { Logger } from "pino";
import { ServiceError, errorBody } from "../core/errors.js";
import { RawBody } from "./route-table.js";

export type HttpEnv = { Variables: { requestId: string; ip: string; log: Logger } };

export function errorResponse(c: Context, err: ServiceError): Response {
  // no-store: an error is about this request only, never something a proxy may replay.
  const headers: Record<string, string> = { "Cache-Control": "no-store", ...(err.headers ?? {}) };
  return c.json(errorBody(err), err.status as 400, headers);
}

export function render(c: Context, result: unknown, status: number, headers: Record<string, string>): Response {
  if (result instanceof RawBody) {
    return c.body(result.body, status as 200, { ...headers, "Content-Type": result.contentType });
  }
  return c.json(result as object, status as 200, headers);
}
