/**
 * One client for every HTTP / JSON-RPC upstream (monerod now; zebrad, Ethereum
 * JSON-RPC, MEV-Boost relays and price sources next). One call:
 *   1. not configured (no URL) → 503 with the caller's code, no I/O;
 *   2. send with a per-attempt deadline (the caller's AbortSignal joined in);
 *   3. read the body, refusing it past maxResponseBytes while it streams;
 *   4. 2xx → parse with the pluggable JSON parser (lossless for u64 upstreams);
 *   5. network error, timeout, 5xx → retried with exponential backoff and full
 *      jitter, but only for calls marked idempotent; 4xx, an oversized or
 *      malformed answer are final;
 *   6. every failure is one UpstreamError: 502 with the caller's code.
 * Invariants: credentials in the URL are stripped before anything is stored,
 * and go only into the Authorization header through the auth hook; messages,
 * details and retry reports never carry a URL with credentials or a body.
 * A caller's abort is rethrown as its own reason, never mapped to a 502.
 */
import { Agent, request } from "undici";
import type { Dispatcher } from "undici";
import { ServiceError, unavailable, type CodeWithStatus } from "./errors.js";
import { sleep } from "./sleep.js";
import { loginAuth, type UpstreamAuth, type UpstreamCredentials } from "./upstream-auth.js";

export type { UpstreamAuth, UpstreamCredentials } from "./upstream-auth.js";

/** An upstream answered badly or not at all: 502 with the code its owner chose. */
export class UpstreamError extends ServiceError {
  /** The JSON-RPC error code, when the upstream answered with one. */
  readonly rpcCode: number | undefined;
  constructor(code: CodeWithStatus<502>, message: string, details: Record<string, unknown>, rpcCode?: number) {
    super(code, message, details);
    this.rpcCode = rpcCode;
  }
}

/** What a caller is told when no URL is configured (answered 503). */
export interface NotConfigured {
  code: CodeWithStatus<503>;
  message: string;
  details?: Record<string, unknown>;
}

export interface UpstreamHealth {
  configured: boolean;
  /** Outcome of the most recent call (undefined before the first). */
  lastOk?: boolean;
  lastError?: string;
  lastCallMs?: number;
}

export interface UpstreamOptions {
  /** Base URL, e.g. http://user:pass@127.0.0.1:18081; undefined = not configured. */
  url: string | undefined;
  /** How messages name the upstream ("Monero daemon"). */
  name: string;
  /** Code of every 502 (e.g. "chain_rpc_failed"). */
  failureCode: CodeWithStatus<502>;
  /** The 503 answered when url is undefined. */
  notConfigured: NotConfigured;
  /** Per-attempt deadline, ms (default 10 000). */
  timeoutMs?: number;
  /** Attempts per idempotent call including the first (default 3). */
  attempts?: number;
  /** First backoff, ms (default 200); doubles per retry up to maxBackoffMs (default 5 000), full jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Largest response body accepted, bytes (default 64 MiB). */
  maxResponseBytes?: number;
  /** Default JSON.parse; monerod needs a parser that keeps u64 exact. */
  parseJson?: (text: string) => unknown;
  /** Sent with every request (e.g. an API key header); never put into messages. */
  headers?: Record<string, string>;
  /** Builds the auth hook from credentials found in the URL (default loginAuth: digest on challenge, basic over https). */
  auth?: (credentials: UpstreamCredentials, base: URL) => UpstreamAuth;
  /** Builds the error of every 502 (default UpstreamError with failureCode); lets an owner keep its own subclass. */
  makeError?: (message: string, details: Record<string, unknown>, rpcCode?: number) => UpstreamError;
  /** Injected for tests (default Math.random). */
  random?: () => number;
  /** Injected for tests (default a real timer that honours the signal). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called before each retry (no URL, no body). */
  onRetry?: (info: { path: string; call: string; attempt: number; error: string }) => void;
}

export interface UpstreamCall {
  /** Path below the base URL, e.g. "/json_rpc". */
  path: string;
  /** Default POST when a body is given, else GET. */
  method?: "GET" | "POST";
  /** Serialised with JSON.stringify. */
  body?: unknown;
  /** Only idempotent calls are retried; a payment or a send never is. */
  idempotent: boolean;
  /** Names the call in messages and details (default the path). */
  call?: string;
  signal?: AbortSignal;
  /** Headers of this call only (e.g. a signature over the exact body, which is JSON.stringify(body)). */
  headers?: Record<string, string>;
}

/** A failure worth another attempt (network, timeout, 5xx). */
class RetryableFailure extends Error {}
/** The auth hook took a fresh challenge: re-send at once, without spending a retry. */
class ChallengeTaken extends Error {}

/** An error as one line: Node's error code first (ECONNREFUSED, …) when there is one. */
export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

/** Full-jitter backoff before retry number `attempt` (1-based): uniform in [0, min(max, base·2^(attempt−1))). */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const cap = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.floor(random() * cap);
}

export class UpstreamClient {
  readonly name: string;
  readonly attempts: number;
  private readonly base: URL | undefined;
  private readonly agent: Agent | undefined;
  private readonly auth: UpstreamAuth | undefined;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxResponseBytes: number;
  private readonly parseJson: (text: string) => unknown;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly makeError: (message: string, details: Record<string, unknown>, rpcCode?: number) => UpstreamError;
  private readonly notConfigured: NotConfigured;
  private readonly onRetry: UpstreamOptions["onRetry"];
  private readonly health: UpstreamHealth;
  private rpcId = 0;

  constructor(opts: UpstreamOptions) {
    this.name = opts.name;
    this.headers = { ...opts.headers };
    this.notConfigured = opts.notConfigured;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.attempts = Math.max(1, opts.attempts ?? 3);
    this.backoffMs = opts.backoffMs ?? 200;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5_000;
    this.maxResponseBytes = opts.maxResponseBytes ?? 64 * 1024 * 1024;
    this.parseJson = opts.parseJson ?? JSON.parse;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? sleep;
    this.onRetry = opts.onRetry;
    const failureCode = opts.failureCode;
    this.makeError = opts.makeError ?? ((m, d, c) => new UpstreamError(failureCode, m, d, c));
    this.health = { configured: opts.url !== undefined };
    if (opts.url === undefined) return;
    const u = new URL(opts.url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`${opts.name} URL must be http(s)`);
    if (u.username || u.password) {
      // Taken out of the URL at once so nothing below can log or send them except the auth hook.
      const credentials = { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) };
      u.username = "";
      u.password = "";
      this.auth = (opts.auth ?? loginAuth)(credentials, u);
    }
    this.base = u;
    // monerod (epee) keeps a digest session per TCP connection: a challenge answered on one
    // connection is "stale" on every other, so a pool of connections sharing one nonce is refused
    // (each new socket answers 401 stale=true with a nonce of its own). With credentials, every
    // request goes over one kept-alive connection; a reopened one is challenged and answered once.
    this.agent = new Agent({ connectTimeout: Math.min(this.timeoutMs, 5_000), keepAliveTimeout: 10_000, connections: this.auth ? 1 : 16 });
  }

  get configured(): boolean {
    return this.base !== undefined;
  }

  /** Where the client points, without credentials (safe to log); "" when not configured. */
  get endpoint(): string {
    return this.base ? this.base.origin + this.basePath() : "";
  }

  status(): UpstreamHealth {
    return { ...this.health };
  }

  /** Records a failure found after a successful read (an answer of the wrong shape). */
  noteFailure(reason: string): void {
    this.record(false, reason);
  }

  /** The 502 of this upstream, for failures its owner finds in an answer. */
  error(message: string, details: Record<string, unknown>, rpcCode?: number): UpstreamError {
    return this.makeError(message, details, rpcCode);
  }

  /** Waits the backoff before retry number `attempt`; for owners that retry on answers (e.g. monerod's BUSY). */
  pause(attempt: number, signal?: AbortSignal): Promise<void> {
    return this.sleep(backoffDelay(attempt, this.backoffMs, this.maxBackoffMs, this.random), signal);
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }

  /** One call with retries; returns the parsed JSON of a 2xx answer. */
  async json(c: UpstreamCall): Promise<unknown> {
    if (!this.base) {
      const nc = this.notConfigured;
      throw unavailable(nc.code, nc.message, nc.details ? { ...nc.details } : undefined);
    }
    const label = c.call ?? c.path;
    const attempts = c.idempotent ? this.attempts : 1;
    const payload = c.body === undefined ? undefined : JSON.stringify(c.body);
    let lastError = "no attempt made";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (c.signal?.aborted) throw c.signal.reason;
      try {
        const result = await this.attempt(c, payload, label);
        this.record(true, undefined);
        return result;
      } catch (e) {
        if (c.signal?.aborted) throw c.signal.reason;
        lastError = describeError(e);
        if (e instanceof UpstreamError) {
          this.record(false, lastError);
          throw e;
        }
        if (!(e instanceof RetryableFailure)) {
          // Anything unforeseen is final and reported as a bad answer, never as a crash.
          this.record(false, lastError);
          throw this.makeError(`${this.name} sent a malformed answer to ${label}`, { call: label, reason: lastError });
        }
        if (attempt < attempts) {
          this.onRetry?.({ path: c.path, call: label, attempt, error: lastError });
          await this.pause(attempt, c.signal);
        }
      }
    }
    this.record(false, lastError);
    throw this.makeError(`${this.name} did not answer ${label} after ${attempts} attempts`, {
      call: label,
      attempts,
      reason: lastError,
    });
  }

  /**
   * JSON-RPC 2.0: the `result` of one call, or an UpstreamError carrying the
   * RPC error code. The upstream answered, so an RPC error leaves it healthy.
   */
  async rpc(
    method: string,
    params: unknown,
    opts: { idempotent: boolean; path?: string; signal?: AbortSignal },
  ): Promise<unknown> {
    const body = { jsonrpc: "2.0", id: String(++this.rpcId), method, ...(params !== undefined ? { params } : {}) };
    const reply = await this.json({ path: opts.path ?? "/json_rpc", body, idempotent: opts.idempotent, call: method, signal: opts.signal });
    const r = isRecord(reply) ? reply : {};
    if (r.error !== undefined && r.error !== null) {
      const err = isRecord(r.error) ? r.error : {};
      const code = typeof err.code === "number" ? err.code : undefined;
      const message = typeof err.message === "string" ? err.message : "unknown error";
      throw this.makeError(`${this.name} refused ${method}: ${message}`, { call: method, rpcCode: code, rpcMessage: message }, code);
    }
    if (!isRecord(reply) || !("result" in reply)) {
      this.noteFailure("no result");
      throw this.makeError(`${this.name} sent a malformed answer to ${method}`, { call: method, reason: "no result" });
    }
    return reply.result;
  }

  private basePath(): string {
    return this.base!.pathname.replace(/\/$/, "");
  }

  private record(ok: boolean, error: string | undefined): void {
    this.health.lastOk = ok;
    this.health.lastError = error;
    this.health.lastCallMs = Date.now();
  }

  private async attempt(c: UpstreamCall, payload: string | undefined, label: string): Promise<unknown> {
    try {
      return await this.send(c, payload, label);
    } catch (e) {
      if (!(e instanceof ChallengeTaken)) throw e;
    }
    try {
      return await this.send(c, payload, label);
    } catch (e) {
      // Challenged again with yet another nonce: worth a later attempt, never a loop here.
      if (e instanceof ChallengeTaken) throw new RetryableFailure("authentication challenge repeated");
      throw e;
    }
  }

  private async send(c: UpstreamCall, payload: string | undefined, label: string): Promise<unknown> {
    const method = c.method ?? (payload === undefined ? "GET" : "POST");
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = c.signal ? AbortSignal.any([c.signal, timeout]) : timeout;
    const headers: Record<string, string> = { accept: "application/json", ...this.headers, ...c.headers };
    if (payload !== undefined) headers["content-type"] = "application/json";
    const authorization = this.auth?.header(method, this.basePath() + c.path);
    if (authorization) headers.authorization = authorization;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.base!.origin + this.basePath() + c.path, {
        method,
        body: payload,
        headers,
        dispatcher: this.agent,
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (e) {
      if (timeout.aborted && !c.signal?.aborted) throw new RetryableFailure(`timed out after ${this.timeoutMs} ms`);
      throw new RetryableFailure(describeError(e));
    }
    let text: string;
    try {
      text = await this.readCapped(res);
    } catch (e) {
      if (timeout.aborted && !c.signal?.aborted) throw new RetryableFailure(`timed out reading body after ${this.timeoutMs} ms`);
      throw e instanceof UpstreamError ? e : new RetryableFailure(describeError(e));
    }
    if (res.statusCode === 401 && this.auth) {
      if (this.auth.challenge(res.headers["www-authenticate"])) throw new ChallengeTaken("authentication challenge");
      throw this.makeError(`${this.name} rejected the RPC credentials`, { httpStatus: 401 });
    }
    if (res.statusCode >= 500) throw new RetryableFailure(`HTTP ${res.statusCode}`);
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw this.makeError(`${this.name} answered HTTP ${res.statusCode} on ${c.path}`, { httpStatus: res.statusCode, path: c.path });
    }
    try {
      return this.parseJson(text);
    } catch (e) {
      throw this.makeError(`${this.name} sent a malformed answer to ${label}`, { call: label, reason: describeError(e) });
    }
  }

  /** The body as text, refused (and the connection dropped) as soon as it passes the cap. */
  private async readCapped(res: Dispatcher.ResponseData): Promise<string> {
    const declared = Number(res.headers["content-length"] ?? NaN);
    if (Number.isFinite(declared) && declared > this.maxResponseBytes) {
      discard(res.body);
      throw this.makeError(`${this.name} answer too large`, { bytes: declared, limit: this.maxResponseBytes });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > this.maxResponseBytes) {
        discard(res.body);
        throw this.makeError(`${this.name} answer too large`, { limit: this.maxResponseBytes });
      }
      chunks.push(b);
    }
    return Buffer.concat(chunks).toString("utf8");
  }
}

/** Drops a body we will not read; undici reports the abort as an error event, which is expected here. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
