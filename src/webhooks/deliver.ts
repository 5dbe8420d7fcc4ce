/**
 * Outbound webhook delivery over a dedicated undici Agent.
 *
 * SSRF defence at delivery time (the URL was also checked at creation):
 *  - the URL is re-parsed and its scheme/credentials/literal-IP host re-checked
 *    before every attempt (undici never calls `lookup` for IP literals);
 *  - host names are resolved inside the Agent's `connect.lookup`, every answer
 *    is vetted, and the socket connects to the vetted address, so there is no
 *    second resolution for a rebinding DNS server to race;
 *  - each request closes its connection (`reset: true`), so every delivery
 *    resolves and vets again;
 *  - redirects are never followed (3xx is a failed attempt);
 *  - connect/headers/body timeouts plus one overall AbortSignal per attempt;
 *  - at most `maxResponseBytes` of the response are read, then the body is
 *    destroyed.
 * `send` never throws for delivery failures; it reports them.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { Agent, request } from "undici";
import type { Clock } from "../core/clock.js";
import { ServiceError } from "../core/errors.js";
import { signBody } from "./sign.js";
import {
  checkResolvedAddresses,
  checkWebhookUrlSyntax,
  systemResolver,
  type ResolvedAddress,
  type Resolver,
  type WebhookUrlPolicy,
} from "./url-guard.js";

export const MAX_WEBHOOK_BODY_BYTES = 65536;
export const DELIVERY_TIMEOUT_MS = 8000;
export const MAX_RESPONSE_BYTES = 4096;
/** Consecutive failed deliveries after which a watch is retired (`dead`). */
export const MAX_CONSECUTIVE_FAILURES = 50;
export const WEBHOOK_USER_AGENT = "Vigil-Webhooks/1.0";

export const HEADER_SIGNATURE = "X-Service-Signature";
export const HEADER_WATCH_ID = "X-Service-Watch-Id";
export const HEADER_EVENT = "X-Service-Event";

export type WatchEvent = "balance_change" | "scan_complete" | "status_change" | "low_credit" | "synthetic_test";
export type CheckoutEvent = "invoice_seen" | "invoice_paid" | "invoice_underpaid" | "invoice_expired";
export type WebhookEvent = WatchEvent | CheckoutEvent;

export function buildDeliveryHeaders(watchId: string, event: string, signature: string): Record<string, string> {
  return {
    "Content-Type": "application/json",
    "User-Agent": WEBHOOK_USER_AGENT,
    [HEADER_WATCH_ID]: watchId,
    [HEADER_EVENT]: event,
    [HEADER_SIGNATURE]: signature,
  };
}

export function webhookBodyBytes(body: string): number {
  return Buffer.byteLength(body, "utf8");
}

export function isWebhookBodyWithinLimit(body: string): boolean {
  return webhookBodyBytes(body) <= MAX_WEBHOOK_BODY_BYTES;
}

/**
 * Serialises `payload` once, signs those exact bytes and builds the headers.
 * Throws a 413 ServiceError (`webhook_body_too_large`) above 64 KB, so an
 * oversized event is never signed or queued.
 */
export function prepareDelivery(secret: string, watchId: string, event: string, payload: unknown): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(payload);
  if (!isWebhookBodyWithinLimit(body)) {
    throw new ServiceError(413, "webhook_body_too_large", `webhook body is ${webhookBodyBytes(body)} bytes; the limit is ${MAX_WEBHOOK_BODY_BYTES}`);
  }
  return { body, headers: buildDeliveryHeaders(watchId, event, signBody(secret, body)) };
}

export interface DeliveryResult {
  /** True only for a 2xx answer. */
  ok: boolean;
  /** HTTP status when the receiver answered at all. */
  status?: number;
  /** Why the attempt failed (never contains the secret or the body). */
  error?: string;
  durationMs: number;
  /** Response bytes read (at most maxResponseBytes). */
  bytesRead?: number;
}

export interface DeliveryRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface WebhookSender {
  send(req: DeliveryRequest): Promise<DeliveryResult>;
  /** Closes the dedicated Agent's sockets. */
  close(): Promise<void>;
}

export interface WebhookSenderOptions {
  policy: WebhookUrlPolicy;
  resolver?: Resolver;
  timeoutMs?: number;
  maxResponseBytes?: number;
  clock: Clock;
  /**
   * Trusted CA certificates for TLS. Replaces Node's default roots, so leave
   * it unset in production; tests use it to trust a loopback receiver's
   * self-signed certificate.
   */
  tlsCa?: string | Buffer | Array<string | Buffer>;
}

/** Error code used when the connect-time lookup refuses an address. */
export const SSRF_BLOCKED = "E_SSRF_BLOCKED";

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `net.connect` lookup that resolves with `resolver`, refuses the host if
 * ANY answer is blocked, and hands only vetted addresses to the socket.
 * Honours `options.all` (Node's happy-eyeballs path) and `options.family`.
 */
export function vettedLookup(resolver: Resolver, policy: WebhookUrlPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    let result: { err: NodeJS.ErrnoException } | { list: ResolvedAddress[] };
    // Promise.resolve().then: a resolver that throws synchronously still ends in the callback.
    Promise.resolve()
      .then(() => resolver(hostname))
      .then(
        (answers) => {
          try {
            let list = checkResolvedAddresses(answers, policy);
            const fam = options?.family;
            const want = fam === 4 || fam === "IPv4" ? 4 : fam === 6 || fam === "IPv6" ? 6 : 0;
            if (want !== 0) list = list.filter((a) => a.family === want);
            if (list.length === 0) {
              result = { err: Object.assign(new Error(`no IPv${want} address for ${hostname}`), { code: "ENOTFOUND" }) };
            } else {
              result = { list };
            }
          } catch (e) {
            const msg = e instanceof ServiceError ? e.message : String(e);
            result = { err: Object.assign(new Error(`refused to connect: ${msg}`), { code: SSRF_BLOCKED }) };
          }
        },
        (e: unknown) => {
          const err = e instanceof Error ? (e as NodeJS.ErrnoException) : new Error(String(e));
          result = { err };
        },
      )
      .then(() => {
        if ("err" in result) return callback(result.err, "", undefined);
        if (options?.all) return callback(null, result.list.map((a) => ({ address: a.address, family: a.family })));
        return callback(null, result.list[0].address, result.list[0].family);
      });
  };
}

async function readCapped(body: AsyncIterable<Uint8Array> & { destroy(err?: Error): unknown }, cap: number): Promise<number> {
  let total = 0;
  try {
    for await (const chunk of body) {
      total += chunk.byteLength;
      if (total >= cap) break;
    }
  } finally {
    body.destroy();
  }
  return Math.min(total, cap);
}

function describeError(err: unknown): string {
  if (err && typeof err === "object") {
    const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    const cause = e.cause as { code?: unknown; message?: unknown } | undefined;
    if (cause && typeof cause.code === "string" && cause.code === SSRF_BLOCKED) return `${SSRF_BLOCKED}: ${String(cause.message)}`;
    const code = typeof e.code === "string" ? e.code : typeof e.name === "string" ? e.name : "Error";
    return `${code}: ${String(e.message ?? "")}`;
  }
  return String(err);
}

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  const policy = opts.policy;
  const resolver = opts.resolver ?? systemResolver;
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxResponseBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const clock = opts.clock;

  const agent = new Agent({
    connect: { lookup: vettedLookup(resolver, policy), timeout: timeoutMs, ...(opts.tlsCa !== undefined ? { ca: opts.tlsCa } : {}) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 1000,
    connections: 4,
  });

  async function send(req: DeliveryRequest): Promise<DeliveryResult> {
    const started = clock.now();
    const finish = (r: Omit<DeliveryResult, "durationMs">): DeliveryResult => ({ ...r, durationMs: Math.max(0, clock.now() - started) });

    if (!isWebhookBodyWithinLimit(req.body)) {
      return finish({ ok: false, error: `body_too_large: ${webhookBodyBytes(req.body)} bytes > ${MAX_WEBHOOK_BODY_BYTES}` });
    }
    let url: URL;
    try {
      url = checkWebhookUrlSyntax(req.url, policy).url;
    } catch (e) {
      return finish({ ok: false, error: `${SSRF_BLOCKED}: ${e instanceof Error ? e.message : String(e)}` });
    }
    try {
      const res = await request(url, {
        method: "POST",
        body: req.body,
        headers: req.headers,
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // One connection per delivery: every attempt resolves and vets again.
        reset: true,
      });
      const status = res.statusCode;
      let bytesRead = 0;
      try {
        bytesRead = await readCapped(res.body, maxResponseBytes);
      } catch (e) {
        // The status decides success; a receiver that stalls its body after
        // a 2xx still got the event.
        if (status < 200 || status >= 300) return finish({ ok: false, status, error: describeError(e) });
      }
      if (status >= 200 && status < 300) return finish({ ok: true, status, bytesRead });
      const error = status >= 300 && status < 400 ? `redirect_not_followed: receiver answered ${status}` : `http_status: receiver answered ${status}`;
      return finish({ ok: false, status, error, bytesRead });
    } catch (e) {
      return finish({ ok: false, error: describeError(e) });
    }
  }

  return {
    send,
    close: () => agent.close(),
  };
}
