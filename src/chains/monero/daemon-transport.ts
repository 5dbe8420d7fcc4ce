/**
 * monerod's two wire forms on the upstream client: JSON-RPC 2.0 at /json_rpc
 * and the plain JSON endpoints (/get_transactions, …). Both carry a `status`
 * that must be "OK"; "BUSY" (the daemon is syncing or reorganising) is
 * transient and retried with the same backoff as a 5xx. Every read is
 * idempotent, so network errors, timeouts and 5xx are retried too.
 * Answers are parsed losslessly (u64 beyond 2^53); credentials in the URL
 * answer monerod's digest challenge (--rpc-login), or go as basic over https.
 */
import { UpstreamClient, type NotConfigured } from "../../core/upstream.js";
import { parseJsonLossless, type LosslessJson } from "./lossless-json.js";
import { DaemonShapeError, asObj, type Obj } from "./daemon-parsers.js";
import { MoneroDaemonError, type DaemonStatus } from "./daemon-types.js";

export interface MoneroDaemonClientOptions {
  /** e.g. http://127.0.0.1:18081 (credentials in the URL are used for HTTP digest/basic auth, never logged). */
  url: string;
  /** Per-attempt deadline, ms (default 10 000). */
  timeoutMs?: number;
  /** Attempts per call including the first (default 3). */
  attempts?: number;
  /** First backoff, ms (default 200); doubles per retry, capped at maxBackoffMs, full jitter. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Largest response body accepted, bytes (default 64 MiB). */
  maxResponseBytes?: number;
  /** Injected for tests (default Math.random). */
  random?: () => number;
  /** Injected for tests (default a real timer). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called on each retried failure (no URLs with credentials, no bodies). */
  onRetry?: (info: { path: string; method?: string; attempt: number; error: string }) => void;
}

/** What every caller is told when no daemon is configured. */
export const MONERO_NOT_CONFIGURED: NotConfigured = {
  code: "chain_not_configured",
  message: "Monero is not configured on this server (no MONERO_DAEMON_URL).",
  details: { chain: "monero" },
};

export class MonerodTransport {
  private readonly http: UpstreamClient;

  constructor(opts: MoneroDaemonClientOptions) {
    const protocol = new URL(opts.url).protocol;
    if (protocol !== "http:" && protocol !== "https:") throw new Error("MONERO_DAEMON_URL must be http(s)");
    const onRetry = opts.onRetry;
    this.http = new UpstreamClient({
      url: opts.url,
      name: "Monero daemon",
      failureCode: "chain_rpc_failed",
      notConfigured: MONERO_NOT_CONFIGURED,
      makeError: (message, details, rpcCode) => new MoneroDaemonError(message, details, rpcCode),
      parseJson: parseJsonLossless,
      timeoutMs: opts.timeoutMs,
      attempts: opts.attempts,
      backoffMs: opts.backoffMs,
      maxBackoffMs: opts.maxBackoffMs,
      maxResponseBytes: opts.maxResponseBytes,
      random: opts.random,
      sleep: opts.sleep,
      ...(onRetry ? { onRetry: (i) => onRetry({ path: i.path, method: i.call, attempt: i.attempt, error: i.error }) } : {}),
    });
  }

  get endpoint(): string {
    return this.http.endpoint;
  }

  status(): DaemonStatus {
    return this.http.status();
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** JSON-RPC 2.0 call at /json_rpc; checks `error` and `result.status`. */
  async rpc(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<Obj> {
    for (let busyRound = 0; ; busyRound++) {
      const reply = await this.http.rpc(method, params, { idempotent: true, signal });
      let result: Obj;
      try {
        result = asObj(reply as LosslessJson, `${method} result`);
      } catch (e) {
        throw new MoneroDaemonError(`Monero daemon sent a malformed answer to ${method}`, { call: method, reason: (e as Error).message });
      }
      if (await this.busyAgain(result.status, busyRound, signal)) continue;
      if (result.status !== undefined && result.status !== "OK") {
        throw new MoneroDaemonError(`Monero daemon answered ${method} with status ${String(result.status)}`, {
          call: method,
          status: String(result.status),
        });
      }
      return result;
    }
  }

  /** A plain JSON endpoint (e.g. /get_transactions); checks `status`. */
  async other(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Obj> {
    for (let busyRound = 0; ; busyRound++) {
      const reply = await this.http.json({ path, body, idempotent: true, signal });
      const r = this.shape(path, () => asObj(reply as LosslessJson, "response"));
      if (await this.busyAgain(r.status, busyRound, signal)) continue;
      if (r.status !== "OK") {
        throw new MoneroDaemonError(`Monero daemon answered ${path} with status ${String(r.status)}`, { call: path, status: String(r.status) });
      }
      return r;
    }
  }

  /**
   * Runs a parser over an answer: a DaemonShapeError becomes a 502 naming the
   * call, and marks the daemon unhealthy (it answered, but not as monerod does).
   */
  shape<T>(label: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof DaemonShapeError) {
        this.http.noteFailure(e.message);
        throw new MoneroDaemonError(`Monero daemon sent a malformed answer to ${label}`, { call: label, reason: e.message });
      }
      throw e;
    }
  }

  /** A BUSY answer with rounds left: waits the backoff and says to ask again. */
  private async busyAgain(status: unknown, busyRound: number, signal?: AbortSignal): Promise<boolean> {
    if (status !== "BUSY" || busyRound + 1 >= this.http.attempts) return false;
    await this.http.pause(busyRound + 1, signal);
    return true;
  }
}
