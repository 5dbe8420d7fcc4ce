/**
 * monerod client over its real wire protocol: JSON-RPC 2.0 at /json_rpc and
 * the plain JSON endpoints (/get_transactions, /get_transaction_pool_hashes,
 * /get_transaction_pool, /get_info). Every call has a timeout; network errors,
 * 5xx and "BUSY" are retried with exponential backoff and full jitter. When
 * the daemon stays down the caller gets 502 `chain_rpc_failed`; when no daemon
 * is configured, 503 `chain_not_configured`.
 *
 * monerod's JSON carries u64 values that can exceed 2^53 (amounts,
 * difficulties), and Node 20's JSON.parse cannot give the source text of a
 * number, so responses are parsed with parseJsonLossless: integers outside the
 * safe range come back as bigint, and money fields are always converted to
 * bigint with u64().
 */
import { Agent, request } from "undici";
import type { Dispatcher } from "undici";
import { createHash, randomBytes } from "node:crypto";
import { ServiceError, unavailable } from "../../core/errors.js";

// ---------------------------------------------------------------------------
// Lossless JSON
// ---------------------------------------------------------------------------

/** A JSON value where integers beyond Number.MAX_SAFE_INTEGER are bigint. */
export type LosslessJson = null | boolean | number | bigint | string | LosslessJson[] | { [k: string]: LosslessJson };

class JsonSyntaxError extends Error {}

/**
 * JSON.parse, except that integer literals that are not safe JS integers are
 * returned as bigint (exactly), never rounded. Fractions and exponents stay
 * numbers (monerod sends none on money paths).
 */
export function parseJsonLossless(text: string): LosslessJson {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const fail = (what: string): never => {
    throw new JsonSyntaxError(`invalid JSON at offset ${i}: ${what}`);
  };
  const parseString = (): string => {
    // Fast path: no escapes.
    const start = ++i;
    let j = start;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 0x22) {
        i = j + 1;
        return text.slice(start, j);
      }
      if (c === 0x5c || c < 0x20) break;
      j++;
    }
    // Slow path with escapes: let JSON.parse handle the literal.
    j = start;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 0x5c) j += 2;
      else if (c === 0x22) break;
      else j++;
    }
    if (j >= n) fail("unterminated string");
    const lit = text.slice(start - 1, j + 1);
    i = j + 1;
    try {
      return JSON.parse(lit) as string;
    } catch {
      return fail("bad string escape");
    }
  };
  const parseNumber = (): number | bigint => {
    const start = i;
    if (text[i] === "-") i++;
    const digitsStart = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    if (i === digitsStart) fail("bad number");
    let integer = true;
    if (text[i] === ".") {
      integer = false;
      i++;
      while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    }
    if (text[i] === "e" || text[i] === "E") {
      integer = false;
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    }
    const lit = text.slice(start, i);
    if (integer) {
      const v = Number(lit);
      if (Number.isSafeInteger(v)) return v;
      return BigInt(lit);
    }
    const v = Number(lit);
    if (!Number.isFinite(v)) fail("bad number");
    return v;
  };
  const parseValue = (depth: number): LosslessJson => {
    if (depth > 512) fail("nesting too deep");
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj: { [k: string]: LosslessJson } = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected key");
        const key = parseString();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        const value = parseValue(depth + 1);
        // Own property even for "__proto__".
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: LosslessJson[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return parseString();
    if (c === "t" && text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (c === "f" && text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (c === "n" && text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return parseNumber();
    return fail("unexpected character");
  };
  const value = parseValue(0);
  ws();
  if (i !== n) fail("trailing characters");
  return value;
}

/** JSON.stringify that writes bigint as a bare JSON integer (as monerod does). */
export function stringifyJsonLossless(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === "bigint") {
      marks.push(v.toString());
      return `\u0000big${marks.length - 1}\u0000`;
    }
    return v;
  });
  if (marks.length === 0) return text;
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, idx: string) => marks[Number(idx)]!);
}

// ---------------------------------------------------------------------------
// Field readers (strict: a malformed daemon answer is a 502, not a crash)
// ---------------------------------------------------------------------------

type Obj = { [k: string]: LosslessJson };

class DaemonShapeError extends Error {}

function asObj(v: LosslessJson | undefined, what: string): Obj {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new DaemonShapeError(`${what}: expected an object`);
  return v;
}

/** A u64 field as bigint, losslessly (number, bigint or decimal string). */
export function u64(v: unknown, what = "value"): bigint {
  if (typeof v === "bigint") {
    if (v < 0n || v >= 1n << 64n) throw new DaemonShapeError(`${what}: out of u64 range`);
    return v;
  }
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) throw new DaemonShapeError(`${what}: not a safe non-negative integer`);
    return BigInt(v);
  }
  if (typeof v === "string" && /^[0-9]{1,20}$/.test(v)) {
    const b = BigInt(v);
    if (b >= 1n << 64n) throw new DaemonShapeError(`${what}: out of u64 range`);
    return b;
  }
  throw new DaemonShapeError(`${what}: expected an unsigned integer`);
}

/** A small counter/height field as a JS number. */
function num(v: LosslessJson | undefined, what: string): number {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return v;
  throw new DaemonShapeError(`${what}: expected a non-negative integer`);
}

function optNum(v: LosslessJson | undefined, what: string, dflt = 0): number {
  return v === undefined || v === null ? dflt : num(v, what);
}

function str(v: LosslessJson | undefined, what: string): string {
  if (typeof v === "string") return v;
  throw new DaemonShapeError(`${what}: expected a string`);
}

function optStr(v: LosslessJson | undefined, dflt = ""): string {
  return typeof v === "string" ? v : dflt;
}

function bool(v: LosslessJson | undefined, dflt = false): boolean {
  return typeof v === "boolean" ? v : dflt;
}

function hash32(v: LosslessJson | undefined, what: string): string {
  const s = str(v, what);
  if (!/^[0-9a-f]{64}$/.test(s)) throw new DaemonShapeError(`${what}: expected 64 lowercase hex characters`);
  return s;
}

/** epee omits empty arrays: absent means []. */
function arr(v: LosslessJson | undefined, what: string): LosslessJson[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DaemonShapeError(`${what}: expected an array`);
  return v;
}

/** Prefer the 128-bit `wide_*` hex form when present (difficulty can exceed u64 in principle). */
function wideOr(o: Obj, wideKey: string, key: string): bigint {
  const wide = o[wideKey];
  if (typeof wide === "string" && /^0x[0-9a-fA-F]{1,32}$/.test(wide)) return BigInt(wide);
  const v = o[key];
  return v === undefined ? 0n : u64(v, key);
}

// ---------------------------------------------------------------------------
// Typed results
// ---------------------------------------------------------------------------

export interface MoneroInfo {
  /** Block count (= top block height + 1), as monerod reports it. */
  height: number;
  /** 0 when the daemon considers itself synchronized, else the best height seen from peers. */
  targetHeight: number;
  synchronized: boolean;
  busySyncing: boolean;
  offline: boolean;
  txPoolSize: number;
  txCount: number;
  topBlockHash: string;
  difficulty: bigint;
  cumulativeDifficulty: bigint;
  /** "mainnet" | "testnet" | "stagenet" | "fakechain" */
  nettype: string;
  /** Seconds between blocks (120 on mainnet). */
  target: number;
  untrusted: boolean;
  restricted: boolean;
  version: string;
  adjustedTime: number;
}

export interface MoneroBlockHeader {
  height: number;
  hash: string;
  prevHash: string;
  timestamp: number;
  majorVersion: number;
  minorVersion: number;
  nonce: number;
  depth: number;
  difficulty: bigint;
  cumulativeDifficulty: bigint;
  reward: bigint;
  blockSize: number;
  blockWeight: number;
  numTxes: number;
  minerTxHash: string;
  orphanStatus: boolean;
}

export interface MoneroBlock {
  header: MoneroBlockHeader;
  minerTxHash: string;
  /** Non-coinbase transaction hashes, in block order. */
  txHashes: string[];
  /** Hex of the serialized block. */
  blob: string;
  /** The decoded coinbase (`json.miner_tx`), lossless-parsed. */
  minerTxJson: LosslessJson;
}

export interface MoneroTxEntry {
  txHash: string;
  /** Decoded transaction (as_json, parsed losslessly); null when the daemon sent none. */
  json: LosslessJson | null;
  /** Full hex when unpruned, else the pruned hex (may be ""). */
  hex: string;
  prunedHex: string;
  inPool: boolean;
  doubleSpendSeen: boolean;
  /** null while in the pool. */
  blockHeight: number | null;
  blockTimestamp: number | null;
  confirmations: number;
  outputIndices: bigint[];
  receivedTimestamp: number | null;
}

export interface MoneroPoolTx {
  idHash: string;
  json: LosslessJson | null;
  blobHex: string;
  blobSize: number;
  weight: number;
  fee: bigint;
  receiveTime: number;
  relayed: boolean;
  doubleSpendSeen: boolean;
}

export interface MoneroFeeEstimate {
  /** Per-byte fee (fees[0] since v15). */
  fee: bigint;
  /** Per-byte fees for priorities low, normal, elevated, priority. */
  fees: bigint[];
  /** A fee must be rounded up to a multiple of this. */
  quantizationMask: bigint;
}

export interface MoneroTransactions {
  txs: MoneroTxEntry[];
  missed: string[];
}

export interface DaemonStatus {
  configured: boolean;
  /** Outcome of the most recent call (undefined before the first). */
  lastOk?: boolean;
  lastError?: string;
  lastCallMs?: number;
}

/**
 * What the scanner, facts and historical scan need from monerod. The real
 * client and the not-configured client both implement it.
 */
export interface MoneroDaemon {
  readonly configured: boolean;
  status(): DaemonStatus;
  getInfo(signal?: AbortSignal): Promise<MoneroInfo>;
  getBlockCount(signal?: AbortSignal): Promise<number>;
  getLastBlockHeader(signal?: AbortSignal): Promise<MoneroBlockHeader>;
  getBlockHeaderByHeight(height: number, signal?: AbortSignal): Promise<MoneroBlockHeader>;
  /** Inclusive range; split into requests of at most 1000 (restricted-node limit). */
  getBlockHeadersRange(start: number, end: number, signal?: AbortSignal): Promise<MoneroBlockHeader[]>;
  getBlock(ref: { height: number } | { hash: string }, signal?: AbortSignal): Promise<MoneroBlock>;
  /** decode_as_json; split into requests of at most 100 hashes (restricted-node limit). */
  getTransactions(hashes: string[], opts?: { prune?: boolean }, signal?: AbortSignal): Promise<MoneroTransactions>;
  getTransactionPoolHashes(signal?: AbortSignal): Promise<string[]>;
  getTransactionPool(signal?: AbortSignal): Promise<MoneroPoolTx[]>;
  getFeeEstimate(signal?: AbortSignal): Promise<MoneroFeeEstimate>;
  close(): Promise<void>;
}

/** A monerod failure: 502 chain_rpc_failed, with the JSON-RPC error code when there was one. */
export class MoneroDaemonError extends ServiceError {
  readonly rpcCode: number | undefined;
  constructor(message: string, details: Record<string, unknown>, rpcCode?: number) {
    super(502, "chain_rpc_failed", message, details);
    this.rpcCode = rpcCode;
  }
}

/** JSON-RPC error −2: "too big height" (height ≥ block count), e.g. after a reorg to a shorter chain. */
export const RPC_ERR_TOO_BIG_HEIGHT = -2;

// ---------------------------------------------------------------------------
// Parsers of monerod answers
// ---------------------------------------------------------------------------

export function parseBlockHeader(v: LosslessJson | undefined): MoneroBlockHeader {
  const h = asObj(v, "block_header");
  return {
    height: num(h.height, "height"),
    hash: hash32(h.hash, "hash"),
    prevHash: hash32(h.prev_hash, "prev_hash"),
    timestamp: num(h.timestamp, "timestamp"),
    majorVersion: optNum(h.major_version, "major_version"),
    minorVersion: optNum(h.minor_version, "minor_version"),
    nonce: optNum(h.nonce, "nonce"),
    depth: optNum(h.depth, "depth"),
    difficulty: wideOr(h, "wide_difficulty", "difficulty"),
    cumulativeDifficulty: wideOr(h, "wide_cumulative_difficulty", "cumulative_difficulty"),
    reward: h.reward === undefined ? 0n : u64(h.reward, "reward"),
    blockSize: optNum(h.block_size, "block_size"),
    blockWeight: optNum(h.block_weight, "block_weight"),
    numTxes: optNum(h.num_txes, "num_txes"),
    minerTxHash: optStr(h.miner_tx_hash),
    orphanStatus: bool(h.orphan_status),
  };
}

function parseInfo(r: Obj): MoneroInfo {
  return {
    height: num(r.height, "height"),
    targetHeight: optNum(r.target_height, "target_height"),
    synchronized: bool(r.synchronized),
    busySyncing: bool(r.busy_syncing),
    offline: bool(r.offline),
    txPoolSize: optNum(r.tx_pool_size, "tx_pool_size"),
    txCount: optNum(r.tx_count, "tx_count"),
    topBlockHash: optStr(r.top_block_hash),
    difficulty: wideOr(r, "wide_difficulty", "difficulty"),
    cumulativeDifficulty: wideOr(r, "wide_cumulative_difficulty", "cumulative_difficulty"),
    nettype: optStr(r.nettype, r.testnet === true ? "testnet" : r.stagenet === true ? "stagenet" : "mainnet"),
    target: optNum(r.target, "target", 120),
    untrusted: bool(r.untrusted),
    restricted: bool(r.restricted),
    version: optStr(r.version),
    adjustedTime: optNum(r.adjusted_time, "adjusted_time"),
  };
}

/** Parses a JSON-in-a-string field (as_json, tx_json, get_block's json). */
function innerJson(v: LosslessJson | undefined, what: string): LosslessJson | null {
  if (v === undefined || v === null || v === "") return null;
  try {
    return parseJsonLossless(str(v, what));
  } catch (e) {
    throw new DaemonShapeError(`${what}: ${(e as Error).message}`);
  }
}

function parseTxEntry(v: LosslessJson): MoneroTxEntry {
  const t = asObj(v, "txs[]");
  const inPool = bool(t.in_pool);
  const asHex = optStr(t.as_hex);
  const prunedHex = optStr(t.pruned_as_hex);
  return {
    txHash: hash32(t.tx_hash, "tx_hash"),
    json: innerJson(t.as_json, "as_json"),
    hex: asHex || prunedHex,
    prunedHex,
    inPool,
    doubleSpendSeen: bool(t.double_spend_seen),
    blockHeight: inPool || t.block_height === undefined ? null : num(t.block_height, "block_height"),
    blockTimestamp: inPool || t.block_timestamp === undefined ? null : num(t.block_timestamp, "block_timestamp"),
    confirmations: optNum(t.confirmations, "confirmations"),
    outputIndices: arr(t.output_indices, "output_indices").map((x) => u64(x, "output_indices[]")),
    receivedTimestamp: t.received_timestamp === undefined ? null : num(t.received_timestamp, "received_timestamp"),
  };
}

function parsePoolTx(v: LosslessJson): MoneroPoolTx {
  const t = asObj(v, "transactions[]");
  return {
    idHash: hash32(t.id_hash, "id_hash"),
    json: innerJson(t.tx_json, "tx_json"),
    blobHex: optStr(t.tx_blob),
    blobSize: optNum(t.blob_size, "blob_size"),
    weight: optNum(t.weight, "weight"),
    fee: t.fee === undefined ? 0n : u64(t.fee, "fee"),
    receiveTime: optNum(t.receive_time, "receive_time"),
    relayed: bool(t.relayed),
    doubleSpendSeen: bool(t.double_spend_seen),
  };
}

// ---------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------

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

class RetryableError extends Error {}
class DigestChallengeReceived extends Error {}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });

function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

/** The real client. */
export class MoneroDaemonClient implements MoneroDaemon {
  readonly configured = true;
  private readonly base: URL;
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxResponseBytes: number;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly onRetry: MoneroDaemonClientOptions["onRetry"];
  private readonly state: DaemonStatus = { configured: true };
  private rpcId = 0;

  constructor(opts: MoneroDaemonClientOptions) {
    const u = new URL(opts.url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("MONERO_DAEMON_URL must be http(s)");
    if (u.username || u.password) {
      // monerod --rpc-login uses digest auth; a proxy in front may use basic. Basic is sent pre-emptively
      // only over https; digest is answered on a 401 challenge (see call()).
      this.credentials = { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) };
      u.username = "";
      u.password = "";
    }
    this.base = u;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.attempts = Math.max(1, opts.attempts ?? 3);
    this.backoffMs = opts.backoffMs ?? 200;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5_000;
    this.maxResponseBytes = opts.maxResponseBytes ?? 64 * 1024 * 1024;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? defaultSleep;
    this.onRetry = opts.onRetry;
    this.agent = new Agent({
      connectTimeout: Math.min(this.timeoutMs, 5_000),
      keepAliveTimeout: 10_000,
      connections: 16,
    });
  }

  private readonly credentials: { user: string; pass: string } | undefined;
  private digest: DigestChallenge | undefined;
  private digestNc = 0;

  /** Where the client points, without credentials (safe to log). */
  get endpoint(): string {
    return this.base.origin + this.base.pathname.replace(/\/$/, "");
  }

  status(): DaemonStatus {
    return { ...this.state };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private url(path: string): string {
    const basePath = this.base.pathname.replace(/\/$/, "");
    return `${this.base.origin}${basePath}${path}`;
  }

  private backoff(attempt: number): number {
    const cap = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempt - 1));
    return Math.floor(this.random() * cap);
  }

  /** One HTTP POST with retries; returns the parsed top-level JSON object. */
  private async post(path: string, body: unknown, label: string, signal?: AbortSignal): Promise<Obj> {
    const payload = JSON.stringify(body);
    let lastError = "no attempt made";
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      if (signal?.aborted) throw signal.reason;
      try {
        const result = await this.once(path, payload, signal);
        this.state.lastOk = true;
        this.state.lastError = undefined;
        this.state.lastCallMs = Date.now();
        return result;
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        const retryable = e instanceof RetryableError || !(e instanceof MoneroDaemonError || e instanceof DaemonShapeError);
        lastError = describeError(e);
        if (!retryable) {
          this.state.lastOk = false;
          this.state.lastError = lastError;
          this.state.lastCallMs = Date.now();
          if (e instanceof MoneroDaemonError) throw e;
          throw new MoneroDaemonError(`Monero daemon sent a malformed answer to ${label}`, { call: label, reason: lastError });
        }
        if (attempt < this.attempts) {
          this.onRetry?.({ path, method: label, attempt, error: lastError });
          await this.sleep(this.backoff(attempt), signal);
        }
      }
    }
    this.state.lastOk = false;
    this.state.lastError = lastError;
    this.state.lastCallMs = Date.now();
    throw new MoneroDaemonError(`Monero daemon did not answer ${label} after ${this.attempts} attempts`, {
      call: label,
      attempts: this.attempts,
      reason: lastError,
    });
  }

  private async once(path: string, payload: string, signal?: AbortSignal): Promise<Obj> {
    try {
      return await this.onceNoChallenge(path, payload, signal);
    } catch (e) {
      // A fresh digest challenge is answered at once, without spending a retry.
      if (e instanceof DigestChallengeReceived) return await this.onceNoChallenge(path, payload, signal);
      throw e;
    }
  }

  private async onceNoChallenge(path: string, payload: string, signal?: AbortSignal): Promise<Obj> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    const auth = this.authorization("POST", path);
    if (auth) headers.authorization = auth;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.url(path), {
        method: "POST",
        body: payload,
        headers,
        dispatcher: this.agent,
        signal: combined,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (e) {
      if (timeout.aborted && !signal?.aborted) throw new RetryableError(`timed out after ${this.timeoutMs} ms`);
      throw new RetryableError(describeError(e));
    }
    let text: string;
    try {
      text = await this.readBody(res);
    } catch (e) {
      if (timeout.aborted && !signal?.aborted) throw new RetryableError(`timed out reading body after ${this.timeoutMs} ms`);
      throw e instanceof RetryableError || e instanceof MoneroDaemonError ? e : new RetryableError(describeError(e));
    }
    if (res.statusCode === 401 && this.credentials) {
      const challenge = parseDigestChallenge(res.headers["www-authenticate"]);
      if (challenge && (!this.digest || this.digest.nonce !== challenge.nonce || challenge.stale)) {
        this.digest = challenge;
        this.digestNc = 0;
        throw new DigestChallengeReceived("digest authentication challenge");
      }
      throw new MoneroDaemonError("Monero daemon rejected the RPC credentials", { httpStatus: 401 });
    }
    if (res.statusCode >= 500) throw new RetryableError(`HTTP ${res.statusCode}`);
    if (res.statusCode !== 200) {
      throw new MoneroDaemonError(`Monero daemon answered HTTP ${res.statusCode} on ${path}`, { httpStatus: res.statusCode, path });
    }
    let json: LosslessJson;
    try {
      json = parseJsonLossless(text);
    } catch (e) {
      throw new DaemonShapeError(describeError(e));
    }
    return asObj(json, "response");
  }

  private async readBody(res: Dispatcher.ResponseData): Promise<string> {
    const declared = Number(res.headers["content-length"] ?? NaN);
    if (Number.isFinite(declared) && declared > this.maxResponseBytes) {
      res.body.destroy();
      throw new MoneroDaemonError("Monero daemon answer too large", { bytes: declared, limit: this.maxResponseBytes });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > this.maxResponseBytes) {
        res.body.destroy();
        throw new MoneroDaemonError("Monero daemon answer too large", { limit: this.maxResponseBytes });
      }
      chunks.push(b);
    }
    return Buffer.concat(chunks).toString("utf8");
  }

  private authorization(method: string, path: string): string | undefined {
    if (!this.credentials) return undefined;
    if (this.digest) {
      this.digestNc++;
      return digestAuthorization(this.digest, this.credentials, method, this.base.pathname.replace(/\/$/, "") + path, this.digestNc);
    }
    if (this.base.protocol === "https:") {
      return "Basic " + Buffer.from(`${this.credentials.user}:${this.credentials.pass}`).toString("base64");
    }
    return undefined;
  }

  /** JSON-RPC 2.0 call at /json_rpc; checks `error` and `result.status`. */
  async rpc(method: string, params: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<Obj> {
    const body = { jsonrpc: "2.0", id: String(++this.rpcId), method, ...(params ? { params } : {}) };
    // A BUSY status is transient (the daemon is syncing or reorganising): retry it like a 5xx.
    for (let busyRound = 0; ; busyRound++) {
      const reply = await this.post("/json_rpc", body, method, signal);
      if (reply.error !== undefined && reply.error !== null) {
        const err = asObjSafe(reply.error);
        const code = typeof err.code === "number" ? err.code : undefined;
        const message = typeof err.message === "string" ? err.message : "unknown error";
        // The daemon answered, so it is up: lastOk stays true.
        throw new MoneroDaemonError(`Monero daemon refused ${method}: ${message}`, { call: method, rpcCode: code, rpcMessage: message }, code);
      }
      let result: Obj;
      try {
        result = asObj(reply.result, `${method} result`);
      } catch (e) {
        throw new MoneroDaemonError(`Monero daemon sent a malformed answer to ${method}`, { call: method, reason: describeError(e) });
      }
      const status = result.status;
      if (status === "BUSY" && busyRound + 1 < this.attempts) {
        await this.sleep(this.backoff(busyRound + 1), signal);
        continue;
      }
      if (status !== undefined && status !== "OK") {
        throw new MoneroDaemonError(`Monero daemon answered ${method} with status ${String(status)}`, { call: method, status: String(status) });
      }
      return result;
    }
  }

  /** A plain JSON endpoint (e.g. /get_transactions); checks `status`. */
  async other(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Obj> {
    for (let busyRound = 0; ; busyRound++) {
      const reply = await this.post(path, body, path, signal);
      const status = reply.status;
      if (status === "BUSY" && busyRound + 1 < this.attempts) {
        await this.sleep(this.backoff(busyRound + 1), signal);
        continue;
      }
      if (status !== "OK") {
        throw new MoneroDaemonError(`Monero daemon answered ${path} with status ${String(status)}`, { call: path, status: String(status) });
      }
      return reply;
    }
  }

  private shape<T>(label: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof DaemonShapeError) {
        this.state.lastOk = false;
        this.state.lastError = e.message;
        throw new MoneroDaemonError(`Monero daemon sent a malformed answer to ${label}`, { call: label, reason: e.message });
      }
      throw e;
    }
  }

  async getInfo(signal?: AbortSignal): Promise<MoneroInfo> {
    const r = await this.rpc("get_info", undefined, signal);
    return this.shape("get_info", () => parseInfo(r));
  }

  async getBlockCount(signal?: AbortSignal): Promise<number> {
    const r = await this.rpc("get_block_count", undefined, signal);
    return this.shape("get_block_count", () => num(r.count, "count"));
  }

  async getLastBlockHeader(signal?: AbortSignal): Promise<MoneroBlockHeader> {
    const r = await this.rpc("get_last_block_header", undefined, signal);
    return this.shape("get_last_block_header", () => parseBlockHeader(r.block_header));
  }

  async getBlockHeaderByHeight(height: number, signal?: AbortSignal): Promise<MoneroBlockHeader> {
    const r = await this.rpc("get_block_header_by_height", { height }, signal);
    return this.shape("get_block_header_by_height", () => parseBlockHeader(r.block_header));
  }

  async getBlockHeadersRange(start: number, end: number, signal?: AbortSignal): Promise<MoneroBlockHeader[]> {
    const out: MoneroBlockHeader[] = [];
    for (let from = start; from <= end; from += 1000) {
      const to = Math.min(end, from + 999);
      const r = await this.rpc("get_block_headers_range", { start_height: from, end_height: to }, signal);
      const headers = this.shape("get_block_headers_range", () => arr(r.headers, "headers").map(parseBlockHeader));
      if (headers.length !== to - from + 1 || headers.some((h, i) => h.height !== from + i)) {
        throw new MoneroDaemonError("Monero daemon answered get_block_headers_range with the wrong heights", {
          call: "get_block_headers_range",
          start: from,
          end: to,
        });
      }
      out.push(...headers);
    }
    return out;
  }

  async getBlock(ref: { height: number } | { hash: string }, signal?: AbortSignal): Promise<MoneroBlock> {
    const r = await this.rpc("get_block", "height" in ref ? { height: ref.height } : { hash: ref.hash }, signal);
    return this.shape("get_block", () => {
      const header = parseBlockHeader(r.block_header);
      const inner = asObj(innerJson(r.json, "json") ?? undefined, "get_block json");
      const txHashes = arr(r.tx_hashes, "tx_hashes").map((h) => hash32(h, "tx_hashes[]"));
      return {
        header,
        minerTxHash: optStr(r.miner_tx_hash, header.minerTxHash),
        txHashes,
        blob: optStr(r.blob),
        minerTxJson: asObj(inner.miner_tx, "miner_tx"),
      };
    });
  }

  async getTransactions(hashes: string[], opts: { prune?: boolean } = {}, signal?: AbortSignal): Promise<MoneroTransactions> {
    const txs: MoneroTxEntry[] = [];
    const missed: string[] = [];
    for (let i = 0; i < hashes.length; i += 100) {
      const chunk = hashes.slice(i, i + 100);
      const r = await this.other(
        "/get_transactions",
        { txs_hashes: chunk, decode_as_json: true, prune: opts.prune ?? true, split: false },
        signal,
      );
      this.shape("/get_transactions", () => {
        for (const t of arr(r.txs, "txs")) txs.push(parseTxEntry(t));
        for (const m of arr(r.missed_tx, "missed_tx")) missed.push(str(m, "missed_tx[]"));
      });
    }
    return { txs, missed };
  }

  async getTransactionPoolHashes(signal?: AbortSignal): Promise<string[]> {
    const r = await this.other("/get_transaction_pool_hashes", {}, signal);
    return this.shape("/get_transaction_pool_hashes", () => arr(r.tx_hashes, "tx_hashes").map((h) => hash32(h, "tx_hashes[]")));
  }

  async getTransactionPool(signal?: AbortSignal): Promise<MoneroPoolTx[]> {
    const r = await this.other("/get_transaction_pool", {}, signal);
    return this.shape("/get_transaction_pool", () => arr(r.transactions, "transactions").map(parsePoolTx));
  }

  async getFeeEstimate(signal?: AbortSignal): Promise<MoneroFeeEstimate> {
    const r = await this.rpc("get_fee_estimate", { grace_blocks: 0 }, signal);
    return this.shape("get_fee_estimate", () => {
      const fee = u64(r.fee, "fee");
      const fees = arr(r.fees, "fees").map((f) => u64(f, "fees[]"));
      const mask = r.quantization_mask === undefined ? 1n : u64(r.quantization_mask, "quantization_mask");
      return { fee, fees: fees.length > 0 ? fees : [fee], quantizationMask: mask === 0n ? 1n : mask };
    });
  }
}

function asObjSafe(v: LosslessJson): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
}

// ---------------------------------------------------------------------------
// HTTP digest authentication (monerod --rpc-login), RFC 7616 with MD5
// ---------------------------------------------------------------------------

interface DigestChallenge {
  realm: string;
  nonce: string;
  qop: string | undefined;
  opaque: string | undefined;
  algorithm: string;
  stale: boolean;
}

function parseDigestChallenge(header: string | string[] | undefined): DigestChallenge | undefined {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  for (const h of values) {
    const m = /^\s*Digest\s+(.*)$/i.exec(h);
    if (!m) continue;
    const params: Record<string, string> = {};
    const re = /([a-zA-Z]+)=(?:"([^"]*)"|([^,\s]*))/g;
    let p: RegExpExecArray | null;
    while ((p = re.exec(m[1]!))) params[p[1]!.toLowerCase()] = p[2] ?? p[3] ?? "";
    if (!params.nonce) continue;
    const algorithm = (params.algorithm ?? "MD5").toUpperCase();
    if (algorithm !== "MD5" && algorithm !== "MD5-SESS") continue;
    const qops = (params.qop ?? "").split(",").map((s) => s.trim());
    return {
      realm: params.realm ?? "",
      nonce: params.nonce,
      qop: qops.includes("auth") ? "auth" : undefined,
      opaque: params.opaque,
      algorithm,
      stale: (params.stale ?? "").toLowerCase() === "true",
    };
  }
  return undefined;
}

const md5 = (s: string) => createHash("md5").update(s).digest("hex");

function digestAuthorization(
  c: DigestChallenge,
  cred: { user: string; pass: string },
  method: string,
  uri: string,
  nc: number,
): string {
  const cnonce = randomBytes(8).toString("hex");
  const ncHex = nc.toString(16).padStart(8, "0");
  let ha1 = md5(`${cred.user}:${c.realm}:${cred.pass}`);
  if (c.algorithm === "MD5-SESS") ha1 = md5(`${ha1}:${c.nonce}:${cnonce}`);
  const ha2 = md5(`${method}:${uri}`);
  const response = c.qop ? md5(`${ha1}:${c.nonce}:${ncHex}:${cnonce}:${c.qop}:${ha2}`) : md5(`${ha1}:${c.nonce}:${ha2}`);
  const parts = [
    `username="${cred.user}"`,
    `realm="${c.realm}"`,
    `nonce="${c.nonce}"`,
    `uri="${uri}"`,
    `algorithm=${c.algorithm}`,
    `response="${response}"`,
  ];
  if (c.qop) parts.push(`qop=${c.qop}`, `nc=${ncHex}`, `cnonce="${cnonce}"`);
  if (c.opaque !== undefined) parts.push(`opaque="${c.opaque}"`);
  return "Digest " + parts.join(", ");
}

// ---------------------------------------------------------------------------
// Not configured
// ---------------------------------------------------------------------------

const notConfigured = (): never => {
  throw unavailable("chain_not_configured", "Monero is not configured on this server (no MONERO_DAEMON_URL).", { chain: "monero" });
};

/** Stands in for the daemon when none is configured: every call is a 503 chain_not_configured. */
export class NotConfiguredMoneroDaemon implements MoneroDaemon {
  readonly configured = false;
  status(): DaemonStatus {
    return { configured: false };
  }
  getInfo = async (): Promise<MoneroInfo> => notConfigured();
  getBlockCount = async (): Promise<number> => notConfigured();
  getLastBlockHeader = async (): Promise<MoneroBlockHeader> => notConfigured();
  getBlockHeaderByHeight = async (): Promise<MoneroBlockHeader> => notConfigured();
  getBlockHeadersRange = async (): Promise<MoneroBlockHeader[]> => notConfigured();
  getBlock = async (): Promise<MoneroBlock> => notConfigured();
  getTransactions = async (): Promise<MoneroTransactions> => notConfigured();
  getTransactionPoolHashes = async (): Promise<string[]> => notConfigured();
  getTransactionPool = async (): Promise<MoneroPoolTx[]> => notConfigured();
  getFeeEstimate = async (): Promise<MoneroFeeEstimate> => notConfigured();
  async close(): Promise<void> {}
}

/**
 * The factory the composition root calls: a real client when a URL is
 * configured (MONERO_DAEMON_URL, or the devnet's monerod), else the
 * not-configured stand-in.
 */
export function createMoneroDaemon(
  url: string | undefined,
  opts: Omit<MoneroDaemonClientOptions, "url"> = {},
): MoneroDaemon {
  if (!url) return new NotConfiguredMoneroDaemon();
  return new MoneroDaemonClient({ ...opts, url });
}

/** Thrown as-is by callers that want to tell "not configured" apart. */
export const isChainNotConfigured = (e: unknown): boolean => e instanceof ServiceError && e.code === "chain_not_configured";
