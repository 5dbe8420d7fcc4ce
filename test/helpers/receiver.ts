/**
 * A webhook receiver on loopback for end-to-end tests and benchmarks.
 *
 * It records every attempt byte for byte (raw body + headers), verifies the
 * X-Service-Signature with the production `verifySignature` against the
 * secret registered for the watch, and dedupes accepted deliveries on the
 * body's `nonce` the way a real receiver should. It can be told to fail:
 * the next N requests, every request to a path, or the first attempt of
 * every new nonce (to force retries).
 *
 * HTTPS: `https: true` makes a self-signed certificate with openssl for
 * 127.0.0.1 / localhost; `ca` is the PEM a client must trust (pass it as
 * `tlsCa` to createWebhookSender, or NODE_EXTRA_CA_CERTS=`caFile` to a
 * child process).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifySignature } from "../../src/webhooks/sign.js";

export const haveOpenssl = spawnSync("sh", ["-c", "command -v openssl"]).status === 0;

export interface ReceivedAttempt {
  /** Arrival order, from 0. */
  seq: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** Parsed body, or null when it was not JSON. */
  body: Record<string, unknown> | null;
  watchId: string | undefined;
  event: string | undefined;
  nonce: string | undefined;
  /** Signature checked against the registered secret; null when no secret is known for the watch. */
  signatureValid: boolean | null;
  /** Status the receiver answered. */
  status: number;
  /** True when the nonce had already been accepted (2xx) before this attempt. */
  duplicate: boolean;
}

export interface Receiver {
  readonly url: string;
  readonly https: boolean;
  /** PEM of the self-signed certificate (HTTPS only). */
  readonly ca: Buffer | undefined;
  /** Path of that PEM on disk (for NODE_EXTRA_CA_CERTS). */
  readonly caFile: string | undefined;
  /** `${url}${path}` */
  hookUrl(path?: string): string;
  /** Every attempt, in arrival order. */
  readonly attempts: ReceivedAttempt[];
  /** Accepted (2xx) deliveries keyed by nonce: the first accepted attempt of each. */
  readonly accepted: Map<string, ReceivedAttempt>;
  /** 2xx answers per nonce (1 for every nonce when nothing was delivered twice). */
  readonly acceptCount: Map<string, number>;
  /** Registers the webhookSecret of a watch so its signatures are checked. */
  registerSecret(watchId: string, secret: string): void;
  /** The next `n` requests answer `status` (default 500). */
  failNext(n: number, status?: number): void;
  /** Every request to `path` answers `status` (default 500) until cleared with null. */
  failPath(path: string, status?: number | null): void;
  /** When on, the first attempt of every nonce answers 500; retries are accepted. */
  failFirstAttempts(on: boolean): void;
  /** Delay before answering, in ms. */
  setDelay(ms: number): void;
  /** Delay before answering requests to `path` only (a receiver that hangs), until cleared with null. */
  delayPath(path: string, ms: number | null): void;
  /** Accepted deliveries of a watch, in arrival order (optionally one event type). */
  deliveries(watchId: string, event?: string): ReceivedAttempt[];
  /** Resolves when `pred` holds (polled), or rejects after `timeoutMs`. */
  waitFor(pred: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(opts: { https?: boolean } = {}): Promise<Receiver> {
  const useHttps = opts.https ?? false;
  let dir: string | undefined;
  let key: Buffer | undefined;
  let cert: Buffer | undefined;
  if (useHttps) {
    if (!haveOpenssl) throw new Error("openssl is needed for the HTTPS receiver");
    dir = mkdtempSync(join(tmpdir(), "vigil-receiver-"));
    const gen = spawnSync(
      "openssl",
      [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
      ],
      { encoding: "utf8" },
    );
    if (gen.status !== 0) throw new Error(`openssl failed: ${gen.stderr}`);
    key = readFileSync(join(dir, "key.pem"));
    cert = readFileSync(join(dir, "cert.pem"));
  }

  const secrets = new Map<string, string>();
  const attempts: ReceivedAttempt[] = [];
  const accepted = new Map<string, ReceivedAttempt>();
  const acceptCount = new Map<string, number>();
  const seenNonces = new Set<string>();
  const failPaths = new Map<string, number>();
  let failNextCount = 0;
  let failNextStatus = 500;
  let firstAttemptsFail = false;
  let delayMs = 0;
  const delayPaths = new Map<string, number>();

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(raw.toString("utf8"));
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      } catch {
        body = null;
      }
      const watchId = req.headers["x-service-watch-id"] as string | undefined;
      const nonce = typeof body?.nonce === "string" ? body.nonce : undefined;
      const secret = watchId ? secrets.get(watchId) : undefined;
      const signatureValid = secret === undefined ? null : verifySignature(secret, raw, req.headers["x-service-signature"] as string | undefined);
      const path = (req.url ?? "/").split("?")[0]!;

      let status = 200;
      if (failPaths.has(path)) status = failPaths.get(path)!;
      else if (failNextCount > 0) {
        failNextCount--;
        status = failNextStatus;
      } else if (firstAttemptsFail && nonce !== undefined && !seenNonces.has(nonce)) status = 500;
      // A receiver refuses what it cannot verify.
      if (signatureValid === false) status = 401;
      if (nonce !== undefined) seenNonces.add(nonce);

      const duplicate = nonce !== undefined && accepted.has(nonce);
      const attempt: ReceivedAttempt = {
        seq: attempts.length,
        path,
        headers: req.headers,
        raw,
        body,
        watchId,
        event: req.headers["x-service-event"] as string | undefined,
        nonce,
        signatureValid,
        status,
        duplicate,
      };
      attempts.push(attempt);
      if (status >= 200 && status < 300 && nonce !== undefined) {
        if (!accepted.has(nonce)) accepted.set(nonce, attempt);
        acceptCount.set(nonce, (acceptCount.get(nonce) ?? 0) + 1);
      }
      const answer = () => res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "fail");
      const wait = delayPaths.get(path) ?? delayMs;
      if (wait > 0) setTimeout(answer, wait);
      else answer();
    });
  };

  const server = useHttps ? https.createServer({ key, cert }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `${useHttps ? "https" : "http"}://127.0.0.1:${port}`;

  return {
    url,
    https: useHttps,
    ca: cert,
    caFile: dir ? join(dir, "cert.pem") : undefined,
    hookUrl: (path = "/hook") => `${url}${path}`,
    attempts,
    accepted,
    acceptCount,
    registerSecret: (watchId, secret) => void secrets.set(watchId, secret),
    failNext: (n, status = 500) => {
      failNextCount = n;
      failNextStatus = status;
    },
    failPath: (path, status = 500) => {
      if (status === null) failPaths.delete(path);
      else failPaths.set(path, status);
    },
    failFirstAttempts: (on) => void (firstAttemptsFail = on),
    setDelay: (ms) => void (delayMs = ms),
    delayPath: (path, ms) => {
      if (ms === null) delayPaths.delete(path);
      else delayPaths.set(path, ms);
    },
    deliveries: (watchId, event) =>
      [...accepted.values()].filter((a) => a.watchId === watchId && (event === undefined || a.event === event)).sort((a, b) => a.seq - b.seq),
    waitFor: async (pred, timeoutMs = 15_000, what = "condition") => {
      const until = performance.now() + timeoutMs;
      while (!pred()) {
        if (performance.now() > until) throw new Error(`receiver: timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
