/**
 * The load generator of `npm run bench:http`, run as its own process so the
 * service under test and the load share nothing but loopback.
 *
 * N connections, each with one request in flight (pipelining 1). Unpaid GETs
 * go over plain sockets by default (client "raw": the request's bytes are
 * written as they are and each answer is read by its Content-Length); paid
 * calls, and any run with client "undici", use one undici Pool. The raw
 * client costs this process about 40 % less CPU per request than undici, so on
 * a 2-core machine the load is less often what limits the server: with undici
 * the load process used 85-97 % of a core and the server waited for requests,
 * which made its CPU per request swing with how requests happened to bunch.
 * Latency is measured per request in this process, from just before the
 * request is written until the body has been read to its end.
 *
 * Input: one JSON argument (LoadSpec). Output: one JSON line (LoadResult) on
 * stdout; progress goes to stderr.
 *
 *   kind "get":  GET `path` for `warmupSeconds` (discarded), then for
 *                `seconds` (measured).
 *   kind "paid": GET `path` once without payment to read PAYMENT-REQUIRED,
 *                pre-sign `requests` fresh EIP-3009 authorisations (devnet
 *                mnemonic accounts 0..9, round robin), then send each exactly
 *                once as PAYMENT-SIGNATURE. The run ends when the pool of
 *                signed headers is used up or `seconds` have passed.
 *   kind "voucher": the same route paid under x402 batch-settlement. Each
 *                connection pays through a channel of its own (devnet
 *                accounts round robin, the connection's number as the
 *                channel's salt), opened before the measurement with one
 *                deposit (a hand-signed ERC-3009 authorisation) large enough
 *                for the run; then `requests` vouchers are pre-signed (the
 *                EIP-712 digest with libsecp256k1, as a client would sign
 *                them natively) and each connection sends its channel's in
 *                order, the next after the last one's answer.
 *
 * `node --import tsx bench/load.ts baseline-server` instead serves a fixed
 * JSON body on bare node:http (the machine's ceiling for comparison) and
 * prints its URL.
 */
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { once } from "node:events";
import { randomBytes, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { createRequire } from "node:module";
import { bytesToHex, encodeAbiParameters, keccak256, pad, toHex, type Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { authorizationTypes, BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, voucherTypes, type ChannelConfig } from "@x402/evm";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import { voucherDigest } from "../src/x402/voucher-signature.js";

/** libsecp256k1 (the `secp256k1` package's native binding): the load signs vouchers as a native client would. */
const nativeSecp256k1 = createRequire(import.meta.url)("secp256k1/bindings") as { ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number } };

export interface LoadSpec {
  origin: string;
  path: string;
  kind: "get" | "paid" | "voucher";
  connections: number;
  seconds: number;
  warmupSeconds?: number;
  /** paid: number of pre-signed payments (each used once). */
  requests?: number;
  /** paid: how many devnet mnemonic accounts (0..payers-1) sign. */
  payers?: number;
  /** get: "raw" (default, plain sockets) or "undici" (a Pool). Paid calls always use undici. */
  client?: "raw" | "undici";
}

export interface LoadResult {
  path: string;
  kind: string;
  connections: number;
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  statuses: Record<string, number>;
  errors: number;
  firstError?: string;
  /** CPU seconds this load process used during the measured part. */
  loadCpuSeconds: number;
  /** CPU seconds this load process used from its start to its answer (to tell the machine's other work apart). */
  loadCpuTotalSeconds: number;
  /** Requests completed in the whole run, warm-up included (to divide the service's CPU time by). */
  totalRequests: number;
  /** Measured window on the system monotonic clock (µs), to cut the service's CPU profile per scenario. */
  windowUs: [number, number];
  /** paid: time spent pre-signing, and signatures per second achieved doing it. */
  signSeconds?: number;
  signedPerSecond?: number;
}


const MNEMONIC = "test test test test test test test test test test test junk";

const devnetAccount = (i: number) => privateKeyToAccount(bytesToHex(mnemonicToAccount(MNEMONIC, { addressIndex: i }).getHdKey().privateKey!));

/** A voucher for `max` on a channel, signed with libsecp256k1 over the escrow's EIP-712 digest, as a PAYMENT-SIGNATURE header. */
function voucherHeader(key: Uint8Array, req: PaymentRequirements, config: ChannelConfig, channelId: Hex, max: bigint): string {
  const digest = voucherDigest(Number(req.network.split(":")[1]), channelId, max);
  const { signature, recid } = nativeSecp256k1.ecdsaSign(digest, key);
  const sig = `${bytesToHex(signature)}${(27 + recid).toString(16)}`;
  return encodePaymentSignatureHeader({ x402Version: 2, accepted: req, payload: { type: "voucher", channelConfig: config, voucher: { channelId, maxClaimableAmount: max.toString(), signature: sig } } } as unknown as PaymentPayload);
}

/** A deposit into a channel with its first voucher: an ERC-3009 ReceiveWithAuthorization to the deposit collector. */
async function depositHeader(account: ReturnType<typeof privateKeyToAccount>, req: PaymentRequirements, config: ChannelConfig, channelId: Hex, amount: bigint): Promise<string> {
  const salt = bytesToHex(randomBytes(32));
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + req.maxTimeoutSeconds);
  const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [channelId, BigInt(salt)]));
  const signature = await account.signTypedData({
    domain: { name: String(req.extra.name), version: String(req.extra.version), chainId: Number(req.network.split(":")[1]), verifyingContract: req.asset as Hex },
    types: { ReceiveWithAuthorization: authorizationTypes.TransferWithAuthorization },
    primaryType: "ReceiveWithAuthorization",
    message: { from: account.address, to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, value: amount, validAfter: 0n, validBefore, nonce },
  });
  const voucher = { channelId, maxClaimableAmount: req.amount, signature: await account.signTypedData({ domain: { ...BATCH_SETTLEMENT_DOMAIN, chainId: Number(req.network.split(":")[1]), verifyingContract: BATCH_SETTLEMENT_ADDRESS }, types: voucherTypes, primaryType: "Voucher", message: { channelId, maxClaimableAmount: BigInt(req.amount) } }) };
  const payload = { type: "deposit", channelConfig: config, voucher, deposit: { amount: amount.toString(), authorization: { erc3009Authorization: { validAfter: "0", validBefore: validBefore.toString(), salt, signature } } } };
  return encodePaymentSignatureHeader({ x402Version: 2, accepted: req, payload } as unknown as PaymentPayload);
}

/**
 * One channel per connection, opened with a deposit that covers its share of the run (and the route's minDeposit at
 * least); then each channel's vouchers, pre-signed in cumulative order.
 */
async function openChannels(pool: Pool, spec: LoadSpec): Promise<string[][]> {
  const first = await pool.request({ method: "GET", path: spec.path });
  await first.body.dump();
  const prHeader = first.headers["payment-required"];
  if (first.statusCode !== 402 || typeof prHeader !== "string") throw new Error(`expected 402 with PAYMENT-REQUIRED, got ${first.statusCode}`);
  const req = decodePaymentRequiredHeader(prHeader).accepts.find((a) => a.scheme === "batch-settlement");
  if (!req) throw new Error("the route does not offer batch-settlement");
  const price = BigInt(req.amount);
  const perChannel = Math.ceil((spec.requests ?? 1000) / spec.connections);
  const deposit = (BigInt(perChannel + 2) * price > BigInt(String(req.extra.minDeposit)) ? BigInt(perChannel + 2) * price : BigInt(String(req.extra.minDeposit)));
  return Promise.all(
    Array.from({ length: spec.connections }, async (_, i) => {
      const index = i % (spec.payers ?? 10);
      const account = devnetAccount(index);
      const key = mnemonicToAccount(MNEMONIC, { addressIndex: index }).getHdKey().privateKey!;
      const config: ChannelConfig = {
        payer: account.address,
        payerAuthorizer: account.address,
        receiver: req.payTo as Hex,
        receiverAuthorizer: req.extra.receiverAuthorizer as Hex,
        token: req.asset as Hex,
        withdrawDelay: Number(req.extra.withdrawDelay),
        salt: pad(toHex(i + 1)),
      };
      const channelId = computeChannelId(config, req.network);
      const opened = await pool.request({ method: "GET", path: spec.path, headers: { "payment-signature": await depositHeader(account, req, config, channelId, deposit) } });
      await opened.body.dump();
      if (opened.statusCode !== 200) throw new Error(`opening channel ${i} answered ${opened.statusCode}: ${String(opened.headers["payment-required"] ?? "").slice(0, 200)}`);
      return Array.from({ length: perChannel }, (_, k) => voucherHeader(key, req, config, channelId, BigInt(k + 2) * price));
    }),
  );
}

/** A fresh EIP-3009 authorisation for `req`, as a PAYMENT-SIGNATURE header value. */
async function signHeader(account: ReturnType<typeof privateKeyToAccount>, req: PaymentRequirements, validBefore: number): Promise<string> {
  const authorization = {
    from: account.address,
    to: req.payTo as Hex,
    value: req.amount,
    validAfter: "0",
    validBefore: String(validBefore),
    nonce: bytesToHex(randomBytes(32)),
  };
  const signature = await account.signTypedData({
    domain: {
      name: String(req.extra.name),
      version: String(req.extra.version),
      chainId: Number(req.network.split(":")[1]),
      verifyingContract: req.asset as Hex,
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: 0n,
      validBefore: BigInt(validBefore),
    },
  });
  const payload = { x402Version: 2, accepted: req, payload: { authorization, signature } } as PaymentPayload;
  return encodePaymentSignatureHeader(payload);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * One keep-alive connection that sends GET `path` and waits for each answer
 * before the next, until `until()` says stop. Answers must carry
 * Content-Length (the service and the bare servers always send it); one
 * without it ends the run with an error rather than being misread.
 */
async function rawConnection(origin: string, path: string, until: () => boolean, done: (status: number, ms: number) => void): Promise<void> {
  const u = new URL(origin);
  const sock = net.connect(Number(u.port), u.hostname);
  sock.setNoDelay(true);
  await once(sock, "connect");
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`, "latin1");
  return new Promise<void>((resolve, reject) => {
    let buf: Buffer | undefined;
    let need = -1;
    let status = 0;
    let started = 0;
    const send = () => {
      if (until()) {
        sock.end();
        return resolve();
      }
      started = performance.now();
      sock.write(request);
    };
    const fail = (e: Error) => {
      sock.destroy();
      reject(e);
    };
    sock.on("data", (chunk: Buffer) => {
      buf = buf ? Buffer.concat([buf, chunk]) : chunk;
      if (need < 0) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buf.toString("latin1", 0, end);
        status = Number(head.slice(9, 12));
        const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
        if (!length) return fail(new Error(`an answer without Content-Length: ${head.split("\r\n")[0]}`));
        need = end + 4 + Number(length[1]);
      }
      if (buf.length < need) return;
      if (buf.length > need) return fail(new Error("more bytes than the answer's Content-Length"));
      buf = undefined;
      need = -1;
      done(status, performance.now() - started);
      send();
    });
    sock.on("error", fail);
    sock.on("close", () => (need >= 0 ? fail(new Error("the server closed the connection mid-answer")) : undefined));
    send();
  });
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const pool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1 });
  const statuses: Record<string, number> = {};
  let errors = 0;
  let firstError: string | undefined;

  let headers: string[] | undefined;
  let signSeconds: number | undefined;
  /** voucher: each connection's own queue of vouchers, in cumulative order. */
  let queues: string[][] | undefined;
  if (spec.kind === "voucher") {
    const t0 = performance.now();
    queues = await openChannels(pool, spec);
    signSeconds = (performance.now() - t0) / 1000;
    process.stderr.write(`  opened ${queues.length} channels and signed ${spec.requests ?? 1000} vouchers in ${signSeconds.toFixed(1)} s\n`);
  }
  if (spec.kind === "paid") {
    const first = await pool.request({ method: "GET", path: spec.path });
    await first.body.dump();
    const prHeader = first.headers["payment-required"];
    if (first.statusCode !== 402 || typeof prHeader !== "string") throw new Error(`expected 402 with PAYMENT-REQUIRED, got ${first.statusCode}`);
    const req = decodePaymentRequiredHeader(prHeader).accepts[0]!;
    const accounts = Array.from({ length: spec.payers ?? 10 }, (_, i) => {
      const key = bytesToHex(mnemonicToAccount(MNEMONIC, { addressIndex: i }).getHdKey().privateKey!);
      return privateKeyToAccount(key);
    });
    // Valid for the advertised timeout: long enough for the run, within what the paywall accepts.
    const validBefore = Math.floor(Date.now() / 1000) + req.maxTimeoutSeconds;
    const n = spec.requests ?? 1000;
    const t0 = performance.now();
    headers = new Array<string>(n);
    for (let i = 0; i < n; i++) headers[i] = await signHeader(accounts[i % accounts.length]!, req, validBefore);
    signSeconds = (performance.now() - t0) / 1000;
    process.stderr.write(`  signed ${n} payments in ${signSeconds.toFixed(1)} s (${(n / signSeconds).toFixed(0)}/s)\n`);
  }

  let next = 0;
  let nextQueue = 0;
  let recording = false;
  let latencies = new Float64Array(1 << 20);
  let count = 0;
  let total = 0;
  const record = (ms: number) => {
    total++;
    if (!recording) return;
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = ms;
  };

  const raw = spec.kind === "get" && spec.client !== "undici";
  async function worker(until: () => boolean): Promise<void> {
    if (raw) {
      try {
        await rawConnection(spec.origin, spec.path, until, (status, ms) => {
          if (recording) statuses[status] = (statuses[status] ?? 0) + 1;
          record(ms);
        });
      } catch (e) {
        errors++;
        firstError ??= (e as Error).message;
      }
      return;
    }
    const queue = queues?.[nextQueue++];
    while (!until()) {
      let reqHeaders: Record<string, string> | undefined;
      if (headers) {
        if (next >= headers.length) return;
        reqHeaders = { "payment-signature": headers[next++]! };
      }
      if (queue) {
        const h = queue.shift();
        if (!h) return;
        reqHeaders = { "payment-signature": h };
      }
      const t = performance.now();
      try {
        const res = await pool.request({ method: "GET", path: spec.path, headers: reqHeaders });
        await res.body.dump();
        const k = String(res.statusCode);
        if (recording) statuses[k] = (statuses[k] ?? 0) + 1;
        record(performance.now() - t);
      } catch (e) {
        if (recording) {
          errors++;
          firstError ??= (e as Error).message;
        }
      }
    }
  }

  const warmup = spec.kind === "get" ? (spec.warmupSeconds ?? 0) : 0;
  if (warmup > 0) {
    const end = performance.now() + warmup * 1000;
    await Promise.all(Array.from({ length: spec.connections }, () => worker(() => performance.now() >= end)));
  }

  recording = true;
  const cpu0 = cpuSeconds();
  const w0 = Number(process.hrtime.bigint() / 1000n);
  const t0 = performance.now();
  const end = t0 + spec.seconds * 1000;
  await Promise.all(Array.from({ length: spec.connections }, () => worker(() => performance.now() >= end)));
  const elapsed = (performance.now() - t0) / 1000;
  const w1 = Number(process.hrtime.bigint() / 1000n);
  const loadCpuSeconds = cpuSeconds() - cpu0;
  recording = false;
  await pool.close();

  const sorted = latencies.slice(0, count).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    path: spec.path,
    kind: spec.kind,
    connections: spec.connections,
    requests: count,
    seconds: elapsed,
    rps: count / elapsed,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    mean: count ? sum / count : NaN,
    statuses,
    errors,
    ...(firstError ? { firstError } : {}),
    loadCpuSeconds,
    loadCpuTotalSeconds: cpuSeconds(),
    totalRequests: total,
    windowUs: [w0, w1],
    ...(signSeconds !== undefined ? { signSeconds, signedPerSecond: (spec.requests ?? 1000) / signSeconds } : {}),
  };
}

/**
 * The bare server: a fixed ~90-byte JSON body, or, given a file of recorded
 * answers ({ "/path": { headers, body } }, bench/http.ts writes it from the
 * running service), those exact bytes and headers per path, so the transport
 * cost of the service's answers can be told from the service's own work.
 */
function baselineServer(recordedFile?: string): void {
  const body = JSON.stringify({ protocol: "x402", x402Version: 2, network: "eip155:84532", scheme: "exact", routes: [] });
  const recorded = recordedFile ? (JSON.parse(fs.readFileSync(recordedFile, "utf8")) as Record<string, { headers: Record<string, string>; body: string }>) : {};
  const answers = new Map(Object.entries(recorded).map(([p, a]) => [p, { headers: { ...a.headers, "Content-Length": Buffer.byteLength(a.body) }, body: Buffer.from(a.body) }]));
  const server = http.createServer((req, res) => {
    const a = answers.get(req.url ?? "");
    if (a) {
      res.writeHead(200, a.headers);
      res.end(a.body);
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    const a = server.address() as { port: number };
    process.stdout.write(`baseline listening on http://127.0.0.1:${a.port}\n`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

/**
 * The same recorded answers from Hono on @hono/node-server, as the service
 * serves them but with nothing of its own: one middleware giving each answer
 * a request id and the CORS headers through the context, the route handler
 * returning the kept bytes with the recorded headers. Between bare node:http
 * and the service, it tells what the framework costs from what the service's
 * own work per request costs.
 */
async function honoServer(recordedFile: string): Promise<void> {
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const recorded = JSON.parse(fs.readFileSync(recordedFile, "utf8")) as Record<string, { headers: Record<string, string>; body: string }>;
  const app = new Hono();
  app.use("*", async (c, next) => {
    c.header("X-Request-Id", randomUUID());
    c.header("Access-Control-Allow-Origin", "*");
    await next();
  });
  for (const [p, a] of Object.entries(recorded)) {
    const headers = Object.fromEntries(Object.entries(a.headers).filter(([k]) => !["x-request-id", "access-control-allow-origin"].includes(k)));
    const body = new Uint8Array(Buffer.from(a.body));
    app.get(p, (c) => c.body(body, 200, headers));
  }
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
    process.stdout.write(`baseline listening on http://127.0.0.1:${info.port}\n`);
  }) as http.Server;
  server.keepAliveTimeout = 60_000;
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

const arg = process.argv[2];
if (arg === "baseline-server") {
  baselineServer(process.argv[3]);
} else if (arg === "hono-server") {
  void honoServer(process.argv[3]!);
} else if (arg) {
  run(JSON.parse(arg) as LoadSpec).then(
    (r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`, () => process.exit(0));
    },
    (e) => {
      process.stderr.write(`load: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
} else {
  process.stderr.write("usage: load.ts '<LoadSpec JSON>' | baseline-server [recorded.json] | hono-server recorded.json\n");
  process.exit(2);
}
