/**
 * Outbound webhook delivery over undici Agents pinned to vetted addresses.
 *
 * SSRF defence at delivery time (the URL was also checked at creation):
 *  - the URL is re-parsed and its scheme/credentials/literal-IP host re-checked
 *    before every attempt;
 *  - a host name is resolved before every attempt and EVERY answer vetted
 *    (one blocked answer refuses the host); the attempt then goes through
 *    the Agent of that (origin, vetted address) pair, whose `connect.lookup`
 *    only ever returns that address, so there is no second resolution for a
 *    rebinding DNS server to race, and TLS still checks the certificate
 *    against the URL's host name;
 *  - connections are kept alive inside one such Agent only: a connection is
 *    reused for an address that this very attempt vetted, never for another
 *    answer (a changed DNS answer gets its own Agent and its own checks);
 *    at most MAX_PINNED_AGENTS Agents are kept, the least recently used is
 *    closed;
 *  - redirects are never followed (3xx is a failed attempt);
 *  - connect/headers/body timeouts plus one overall AbortSignal per attempt;
 *  - at most `maxResponseBytes` of the response are read, then the body is
 *    destroyed.
 * `reuseConnections: false` keeps the older behaviour (one connection per
 * attempt, resolved and vetted in the connect lookup); benchmarks use it as
 * the baseline.
 * `send` never throws for delivery failures; it reports them.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { LRUCache } from "lru-cache";
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
/** Pinned Agents (origin × vetted address) kept alive at once; the least recently used is closed. */
export const MAX_PINNED_AGENTS = 256;
/** Connections one pinned Agent keeps to its address. */
export const CONNECTIONS_PER_ADDRESS = 16;
/** An idle kept-alive connection is closed after this long. */
export const KEEP_ALIVE_MS = 10_000;
export const WEBHOOK_USER_AGENT = "Vigil-Webhooks/1.0";

export const HEADER_SIGNATURE = "X-Service-Signature";
export const HEADER_WATCH_ID = "X-Service-Watch-Id";
export const HEADER_EVENT = "X-Service-Event";

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
    throw new ServiceError("webhook_body_too_large", `webhook body is ${webhookBodyBytes(body)} bytes; the limit is ${MAX_WEBHOOK_BODY_BYTES}`);
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
  /** Keep connections alive per vetted address (default true); false opens one connection per attempt. */
  reuseConnections?: boolean;
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

/** A `net.connect` lookup that never resolves: it hands out the one address vetted for this Agent. */
export function pinnedLookup(address: string, family: number) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    if (options?.all) return callback(null, [{ address, family }]);
    return callback(null, address, family);
  };
}

class Refused extends Error {}

/** Resolves `host` and vets every answer; throws Refused (blocked) or the resolver's error. */
async function resolveVetted(resolver: Resolver, policy: WebhookUrlPolicy, host: string, timeoutMs: number): Promise<ResolvedAddress> {
  let timer: NodeJS.Timeout | undefined;
  let answers: ResolvedAddress[];
  try {
    answers = await Promise.race([
      Promise.resolve().then(() => resolver(host)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`DNS lookup of ${host} timed out`), { code: "ETIMEOUT" })), timeoutMs);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
  try {
    return checkResolvedAddresses(answers, policy)[0]!;
  } catch (e) {
    throw new Refused(`refused to connect: ${e instanceof ServiceError ? e.message : String(e)}`);
  }
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

/** A reused connection found closed by the peer before any answer (undici's "other side closed", a reset or a broken pipe). */
export function isStaleConnection(err: unknown): boolean {
  const codes = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && codes.has(code)) return true;
  }
  return false;
}

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  const policy = opts.policy;
  const resolver = opts.resolver ?? systemResolver;
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const maxResponseBytes = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const clock = opts.clock;

  const reuse = opts.reuseConnections ?? true;
  const tls = opts.tlsCa !== undefined ? { ca: opts.tlsCa } : {};

  // The per-attempt baseline: resolve and vet inside connect, one connection per request.
  const agent = new Agent({
    connect: { lookup: vettedLookup(resolver, policy), timeout: timeoutMs, ...tls },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 1000,
    connections: 4,
  });

  const pinned = new LRUCache<string, Agent>({
    max: MAX_PINNED_AGENTS,
    dispose: (a) => void a.close().catch(() => {}),
  });
  const agentFor = (origin: string, address: string, family: number): Agent => {
    const key = `${origin}|${address}`;
    let a = pinned.get(key);
    if (!a) {
      a = new Agent({
        connect: { lookup: pinnedLookup(address, family), timeout: timeoutMs, ...tls },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MS,
        connections: CONNECTIONS_PER_ADDRESS,
      });
      pinned.set(key, a);
    }
    return a;
  };

  async function send(req: DeliveryRequest): Promise<DeliveryResult> {
    const started = clock.now();
    const finish = (r: Omit<DeliveryResult, "durationMs">): DeliveryResult => ({ ...r, durationMs: Math.max(0, clock.now() - started) });

    if (!isWebhookBodyWithinLimit(req.body)) {
      return finish({ ok: false, error: `body_too_large: ${webhookBodyBytes(req.body)} bytes > ${MAX_WEBHOOK_BODY_BYTES}` });
    }
    let parsed: ReturnType<typeof checkWebhookUrlSyntax>;
    try {
      parsed = checkWebhookUrlSyntax(req.url, policy);
    } catch (e) {
      return finish({ ok: false, error: `${SSRF_BLOCKED}: ${e instanceof Error ? e.message : String(e)}` });
    }
    const url = parsed.url;
    try {
      let dispatcher = agent;
      if (reuse) {
        // Every attempt resolves and vets; the connection pool is the one of the address vetted now.
        const vetted = parsed.literal
          ? { address: parsed.host, family: parsed.host.includes(":") ? 6 : 4 }
          : await resolveVetted(resolver, policy, parsed.host, timeoutMs);
        dispatcher = agentFor(url.origin, vetted.address, vetted.family);
      }
      // One deadline for the attempt, a second send on a new connection included.
      const signal = AbortSignal.timeout(timeoutMs);
      const post = () =>
        request(url, {
          method: "POST",
          body: req.body,
          headers: req.headers,
          dispatcher,
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          // Baseline: one connection per delivery, resolved and vetted in connect.
          reset: !reuse,
        });
      let res: Awaited<ReturnType<typeof post>>;
      try {
        res = await post();
      } catch (e) {
        // A kept-alive connection the receiver closed just as we wrote to it fails
        // before any answer; that says nothing about the receiver, so the same
        // bytes go once more on a new connection (receivers dedupe by nonce).
        if (!reuse || !isStaleConnection(e)) throw e;
        res = await post();
      }
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
      if (e instanceof Refused) return finish({ ok: false, error: `${SSRF_BLOCKED}: ${e.message}` });
      return finish({ ok: false, error: describeError(e) });
    }
  }

  return {
    send,
    close: async () => {
      const agents = [...pinned.values()];
      pinned.clear();
      await Promise.all([agent.close(), ...agents.map((a) => a.close().catch(() => {}))]);
    },
  };
}
