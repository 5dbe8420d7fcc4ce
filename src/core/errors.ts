/**
 * One error type for every layer. Each surface (HTTP, MCP, CLI) maps it once:
 * HTTP answers `{"error": {"code", "message", "details"}}` with `status`.
 */
export type ErrorDetails = Record<string, unknown>;

export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: ErrorDetails | undefined;
  /** Extra response headers (e.g. Retry-After on 429). */
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, code: string, message: string, details?: ErrorDetails, headers?: Record<string, string>) {
    super(message);
    this.name = "ServiceError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (code: string, message: string, details?: ErrorDetails) =>
  new ServiceError(400, code, message, details);
export const unauthorized = (code: string, message: string) => new ServiceError(401, code, message);
export const forbidden = (code: string, message: string) => new ServiceError(403, code, message);
export const notFound = (code: string, message: string) => new ServiceError(404, code, message);
export const conflict = (code: string, message: string, details?: ErrorDetails) =>
  new ServiceError(409, code, message, details);
/** An upstream (node, facilitator, relay) answered badly or not at all. */
export const upstreamFailed = (code: string, message: string, details?: ErrorDetails) =>
  new ServiceError(502, code, message, details);
/** A dependency is absent or down; the request may work later. */
export const unavailable = (code: string, message: string, details?: ErrorDetails) =>
  new ServiceError(503, code, message, details);

export function errorBody(err: ServiceError): { error: { code: string; message: string; details?: ErrorDetails } } {
  return { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
}
