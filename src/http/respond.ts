/**
 * What every part of the HTTP app shares: the per-request variables set by
 * the first middleware, the one error envelope, and how a handler's result
 * becomes a response (JSON, or a RawBody with its own content type).
 */
import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { Logger } from "pino";
import { ServiceError, errorBody } from "../core/errors.js";
import { RawBody, StreamBody } from "./route-table.js";

export type HttpEnv = { Variables: { requestId: string; ip: string; log: Logger } };

/**
 * An answer that never changes once built (a catalogue, the payment metadata):
 * deep-frozen, so no code can change it after its JSON is kept, and `render`
 * serializes it once instead of on every request.
 */
export function fixedAnswer<T extends object>(value: T): T {
  deepFreeze(value);
  return value;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/** A fixed answer's JSON, kept with it: the text, its UTF-8 bytes (sent as they are), and its ETag once asked for. */
interface FixedJson {
  text: string;
  bytes: Uint8Array<ArrayBuffer>;
  etag?: string;
}
const serialized = new WeakMap<object, FixedJson>();
const utf8 = new TextEncoder();

/** A fixed (frozen) answer's JSON, made once; undefined for any other answer. */
function fixedJsonOf(result: unknown): FixedJson | undefined {
  if (typeof result !== "object" || result === null || !Object.isFrozen(result)) return undefined;
  let fixed = serialized.get(result);
  if (fixed === undefined) {
    const text = JSON.stringify(result);
    fixed = { text, bytes: utf8.encode(text) };
    serialized.set(result, fixed);
  }
  return fixed;
}

/** A JSON answer's body as sent: a fixed answer's kept bytes, any other value serialized now (undefined, as JSON.stringify gives, for no JSON value). */
export function jsonPayload(result: unknown): string | Uint8Array<ArrayBuffer> | undefined {
  return fixedJsonOf(result)?.bytes ?? (JSON.stringify(result) as string | undefined);
}

/** A strong ETag of a body's bytes. */
function etagOf(body: string): string {
  return `"${createHash("sha256").update(body, "utf8").digest("base64url").slice(0, 32)}"`;
}

export function errorResponse(c: Context, err: ServiceError): Response {
  // no-store: an error is about this request only, never something a proxy may replay.
  const headers: Record<string, string> = { "Cache-Control": "no-store", ...(err.headers ?? {}) };
  return c.json(errorBody(err), err.status as 400, headers);
}

/**
 * `conditional`: the route answers with a strong ETag of the body's bytes, and
 * a request whose If-None-Match names it (or `*`) gets 304 with no body.
 */
export function render(c: Context, result: unknown, status: number, headers: Record<string, string>, conditional?: { ifNoneMatch: string | undefined }): Response {
  if (result instanceof StreamBody) return c.body(webStream(result), status as 200, { ...headers, "Content-Type": result.contentType });
  const raw = result instanceof RawBody;
  const fixed = raw ? undefined : fixedJsonOf(result);
  const body = raw ? result.body : (fixed?.text ?? JSON.stringify(result));
  // A fixed answer goes out as its kept bytes: no UTF-8 length scan or encoding per request.
  const payload: string | Uint8Array<ArrayBuffer> = fixed ? fixed.bytes : body;
  const contentType = raw ? result.contentType : "application/json";
  if (!conditional) {
    // The body is serialized once (c.json would serialize it again); a route's own Content-Type wins, as with c.json.
    return raw ? c.body(body, status as 200, { ...headers, "Content-Type": contentType }) : c.body(payload, status as 200, { "Content-Type": "application/json", ...headers });
  }
  const etag = fixed ? (fixed.etag ??= etagOf(body)) : etagOf(body);
  const withTag = { ...headers, ETag: etag };
  if (etagMatches(conditional.ifNoneMatch, etag)) return c.body(null, 304, withTag);
  return c.body(payload, status as 200, { ...withTag, "Content-Type": raw ? contentType : "application/json" });
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): W/ prefixes are ignored. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

/** The chunks of a StreamBody as a web stream, pulled as the client reads; an error mid-way aborts the response. */
function webStream(body: StreamBody): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let chunks: AsyncIterator<string> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        chunks ??= body.open()[Symbol.asyncIterator]();
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
      await chunks?.return?.();
    },
  });
}

/**
 * How a paid answer is stored for retries (x402/paywall.ts seals the text):
 * JSON as is, a RawBody with its content type; a StreamBody is not stored.
 */
export const storedAnswer = {
  encode(result: unknown): string | undefined {
    if (result instanceof StreamBody) return undefined;
    if (result instanceof RawBody) return JSON.stringify({ raw: result.body, contentType: result.contentType });
    return JSON.stringify({ json: result });
  },
  decode(text: string): unknown {
    const v = JSON.parse(text) as { json?: unknown; raw?: string; contentType?: string };
    return v.raw !== undefined ? new RawBody(v.raw, v.contentType ?? "text/plain") : v.json;
  },
};
