/**
 * The lightwalletd gRPC client (`cash.z.wallet.sdk.rpc.CompactTxStreamer`,
 * lightwalletd.proto next to this file, loaded at first use): compact blocks,
 * raw transactions, the mempool, tree states and server info, decoded into the
 * `CompactBlockSource` types the scanner consumes.
 *
 * Transport: `https://host:port` → TLS, `http://host:port` → plaintext (meant
 * for loopback and private networks). Nothing connects before the first call.
 *
 * Failures: every unary call has a deadline (timeoutMs) and is retried on
 * UNAVAILABLE (attempts, exponential backoff with full jitter); a stream is
 * cancelled when no message arrives for timeoutMs. Every failure is one
 * 502 `chain_rpc_failed` ({chain, call, grpcCode}); no URL is 503
 * `chain_not_configured`; a caller's abort is rethrown as its own reason.
 *
 * Checks before any answer is trusted (remembered for SERVER_CHECK_MS):
 *   - network: `LightdInfo.chainName` must be the service's ("main", "test",
 *     "regtest"), else 502 `chain_network_mismatch`;
 *   - Ironwood: once NU6.3 is active on the server's chain (its blockHeight is
 *     past the network's activation height, or it reports the NU6.3 branch
 *     id), the server must report `lightwalletProtocolVersion` ≥
 *     IRONWOOD_PROTOCOL_VERSION (dotted numbers compared numerically; empty =
 *     older), else 502 `chain_server_outdated`: a server from before the
 *     Ironwood protocol change leaves `ironwoodActions` out, and a scanner
 *     behind it would report "no Ironwood funds" for a wallet that has some.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { unavailable, upstreamFailed } from "../../core/errors.js";
import { sleep } from "../../core/sleep.js";
import { UpstreamError } from "../../core/upstream.js";
import type {
  BlockId,
  CompactBlock,
  CompactBlockSource,
  CompactOrchardAction,
  CompactTx,
  LightdInfo,
  PoolType,
  RawTransaction,
  TreeState,
} from "./compact.js";
import type { ZcashNetwork } from "./network.js";
import { ZEBRAD_CHAIN } from "./zebrad.js";

export const LIGHTWALLETD_PROTO = path.join(path.dirname(fileURLToPath(import.meta.url)), "lightwalletd.proto");

/** The first light-wallet protocol version whose compact transactions carry `ironwoodActions` (field 9). */
export const IRONWOOD_PROTOCOL_VERSION = "0.4.0";
/** NU6.3 (Ironwood) activation per network (research zcash.md §5.4); regtest: branch id only. */
export const NU6_3_ACTIVATION: Record<ZcashNetwork, number | undefined> = { mainnet: 3_428_143, testnet: 4_134_000, regtest: undefined };
export const NU6_3_BRANCH_ID = "37a5165b";
/** How long a passed server check is trusted. */
export const SERVER_CHECK_MS = 10 * 60_000;

/** Pool names on the wire (enum PoolType). */
export const POOL_ENUM: Record<PoolType, string> = { transparent: "TRANSPARENT", sapling: "SAPLING", orchard: "ORCHARD", ironwood: "IRONWOOD" };
const FORK_HEIGHT = "18446744073709551615";

let packageCache: grpc.GrpcObject | undefined;

/** The loaded `cash.z.wallet.sdk.rpc` package (shared with the devnet server). */
export function lightwalletdPackage(): grpc.GrpcObject {
  if (!packageCache) {
    const def = protoLoader.loadSync(LIGHTWALLETD_PROTO, { keepCase: true, longs: String, enums: String, defaults: true, arrays: true });
    const root = grpc.loadPackageDefinition(def) as { cash: { z: { wallet: { sdk: { rpc: grpc.GrpcObject } } } } };
    packageCache = root.cash.z.wallet.sdk.rpc;
  }
  return packageCache;
}

/** The service definition, for servers. */
export function compactTxStreamerService(): grpc.ServiceDefinition {
  return (lightwalletdPackage().CompactTxStreamer as grpc.ServiceClientConstructor).service;
}

/** Compares dotted version strings numerically ("0.10.0" > "0.4.1"); non-numeric parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.replace(/^v/i, "").split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.replace(/^v/i, "").split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Whether NU6.3 is active at the server's tip, by height or branch id. */
export function ironwoodActive(info: LightdInfo, network: ZcashNetwork): boolean {
  const at = NU6_3_ACTIVATION[network];
  return info.consensusBranchId.toLowerCase() === NU6_3_BRANCH_ID || (at !== undefined && info.blockHeight >= at);
}

/** Whether a server may be trusted with Ironwood scanning: active NU6.3 requires a protocol version ≥ IRONWOOD_PROTOCOL_VERSION. */
export function serverKnowsIronwood(info: LightdInfo): boolean {
  return info.lightwalletProtocolVersion !== "" && compareVersions(info.lightwalletProtocolVersion, IRONWOOD_PROTOCOL_VERSION) >= 0;
}

// ---- wire → domain ----

const u8 = (b: unknown): Uint8Array => (b instanceof Uint8Array ? new Uint8Array(b) : new Uint8Array(0));
const num = (v: unknown): number => {
  const n = typeof v === "string" ? Number(v) : typeof v === "number" ? v : 0;
  return Number.isFinite(n) ? n : 0;
};

/**
 * Messages as proto-loader hands them over (keepCase, longs as decimal
 * strings, bytes as Buffers, enums as names, defaults on): every field may be
 * missing from a server that does not send it, so each is optional and read
 * through `u8`/`num`/`String`.
 */
type WireLong = string | number;
interface WireAction {
  nullifier?: Uint8Array;
  cmx?: Uint8Array;
  ephemeralKey?: Uint8Array;
  ciphertext?: Uint8Array;
}
interface WireCompactTx {
  index?: WireLong;
  txid?: Uint8Array;
  fee?: WireLong;
  spends?: { nf?: Uint8Array }[];
  outputs?: { cmu?: Uint8Array; ephemeralKey?: Uint8Array; ciphertext?: Uint8Array }[];
  actions?: WireAction[];
  ironwoodActions?: WireAction[];
  vin?: { prevoutTxid?: Uint8Array; prevoutIndex?: WireLong }[];
  vout?: { value?: WireLong; scriptPubKey?: Uint8Array }[];
}
interface WireCompactBlock {
  height?: WireLong;
  hash?: Uint8Array;
  prevHash?: Uint8Array;
  time?: WireLong;
  vtx?: WireCompactTx[];
  chainMetadata?: { saplingCommitmentTreeSize?: WireLong; orchardCommitmentTreeSize?: WireLong; ironwoodCommitmentTreeSize?: WireLong };
}
interface WireLightdInfo {
  version?: string;
  vendor?: string;
  chainName?: string;
  saplingActivationHeight?: WireLong;
  consensusBranchId?: string;
  blockHeight?: WireLong;
  upgradeName?: string;
  upgradeHeight?: WireLong;
  lightwalletProtocolVersion?: string;
}
interface WireTreeState {
  network?: string;
  height?: WireLong;
  hash?: string;
  time?: WireLong;
  saplingTree?: string;
  orchardTree?: string;
  ironwoodTree?: string;
}

function action(a: WireAction): CompactOrchardAction {
  return { nullifier: u8(a.nullifier), cmx: u8(a.cmx), ephemeralKey: u8(a.ephemeralKey), ciphertext: u8(a.ciphertext) };
}

export function decodeCompactTx(t: WireCompactTx): CompactTx {
  return {
    index: num(t.index),
    txid: u8(t.txid),
    fee: num(t.fee),
    spends: (t.spends ?? []).map((s) => ({ nf: u8(s.nf) })),
    outputs: (t.outputs ?? []).map((o) => ({ cmu: u8(o.cmu), ephemeralKey: u8(o.ephemeralKey), ciphertext: u8(o.ciphertext) })),
    actions: (t.actions ?? []).map(action),
    ironwoodActions: (t.ironwoodActions ?? []).map(action),
    vin: (t.vin ?? []).map((i) => ({ prevoutTxid: u8(i.prevoutTxid), prevoutIndex: num(i.prevoutIndex) })),
    vout: (t.vout ?? []).map((o) => ({ value: BigInt(o.value ?? "0"), scriptPubKey: u8(o.scriptPubKey) })),
  };
}

export function decodeCompactBlock(b: WireCompactBlock): CompactBlock {
  const m = b.chainMetadata ?? {};
  return {
    height: num(b.height),
    hash: u8(b.hash),
    prevHash: u8(b.prevHash),
    time: num(b.time),
    vtx: (b.vtx ?? []).map(decodeCompactTx),
    chainMetadata: {
      saplingCommitmentTreeSize: num(m.saplingCommitmentTreeSize),
      orchardCommitmentTreeSize: num(m.orchardCommitmentTreeSize),
      ironwoodCommitmentTreeSize: num(m.ironwoodCommitmentTreeSize),
    },
  };
}

function decodeInfo(i: WireLightdInfo): LightdInfo {
  return {
    version: String(i.version ?? ""),
    vendor: String(i.vendor ?? ""),
    chainName: String(i.chainName ?? ""),
    saplingActivationHeight: num(i.saplingActivationHeight),
    consensusBranchId: String(i.consensusBranchId ?? ""),
    blockHeight: num(i.blockHeight),
    upgradeName: String(i.upgradeName ?? ""),
    upgradeHeight: num(i.upgradeHeight),
    lightwalletProtocolVersion: String(i.lightwalletProtocolVersion ?? ""),
  };
}

function decodeTreeState(t: WireTreeState): TreeState {
  return {
    network: String(t.network ?? ""),
    height: num(t.height),
    hash: String(t.hash ?? ""),
    time: num(t.time),
    saplingTree: String(t.saplingTree ?? ""),
    orchardTree: String(t.orchardTree ?? ""),
    ironwoodTree: String(t.ironwoodTree ?? ""),
  };
}

// ---- client ----

export interface LightwalletdOptions {
  /** http://host:port (plaintext) or https://host:port (TLS); undefined = not configured (503). */
  url: string | undefined;
  network: ZcashNetwork;
  /** Deadline of a unary call, and the longest silence inside a stream (default 15 000 ms). */
  timeoutMs?: number;
  /** Attempts per unary call when the server is UNAVAILABLE, including the first (default 3). */
  attempts?: number;
  /** First backoff (default 200 ms), doubled per retry up to 5 s, full jitter. */
  backoffMs?: number;
  now?: () => number;
  random?: () => number;
}

type Unary = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => grpc.ClientUnaryCall;
type Streaming = (req: unknown, opts: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;
type Stub = grpc.Client & Record<string, unknown>;

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("aborted", "AbortError");
}

export class Lightwalletd implements CompactBlockSource {
  readonly network: ZcashNetwork;
  private readonly url: URL | undefined;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private client: grpc.Client | undefined;
  private checkedAt: number | undefined;

  constructor(opts: LightwalletdOptions) {
    this.network = opts.network;
    if (opts.url !== undefined) {
      const u = new URL(opts.url);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new RangeError("LIGHTWALLETD_URL must be http:// or https://");
      this.url = u;
    }
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.attempts = Math.max(1, opts.attempts ?? 3);
    this.backoffMs = opts.backoffMs ?? 200;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  get configured(): boolean {
    return this.url !== undefined;
  }

  /** host:port and the transport, never credentials. */
  get endpoint(): string {
    return this.url ? `${this.url.protocol}//${this.url.host}` : "";
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
  }

  private stub(): Stub {
    if (!this.url) throw unavailable("chain_not_configured", "No lightwalletd is configured (LIGHTWALLETD_URL).", { chain: "zcash" });
    if (!this.client) {
      const Ctor = lightwalletdPackage().CompactTxStreamer as grpc.ServiceClientConstructor;
      const tls = this.url.protocol === "https:";
      const port = this.url.port || (tls ? "443" : "80");
      this.client = new Ctor(`${this.url.hostname}:${port}`, tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(), {
        "grpc.max_receive_message_length": 64 * 1024 * 1024,
        "grpc.enable_retries": 0,
      });
    }
    return this.client as Stub;
  }

  private fail(call: string, err: grpc.ServiceError | Error, extra: Record<string, unknown> = {}): UpstreamError {
    const code = (err as grpc.ServiceError).code;
    const codeName = typeof code === "number" ? grpc.status[code] : undefined;
    const reason = code === grpc.status.DEADLINE_EXCEEDED ? "timeout" : code === grpc.status.UNAVAILABLE ? "unavailable" : "error";
    const details = String((err as grpc.ServiceError).details ?? err.message ?? "").slice(0, 200);
    return new UpstreamError("chain_rpc_failed", `lightwalletd ${call} failed (${codeName ?? "error"}${details ? `: ${details}` : ""}).`, {
      chain: "zcash",
      call,
      reason,
      ...(codeName ? { grpcCode: codeName } : {}),
      ...extra,
    });
  }

  private async unary<T>(method: string, req: unknown, signal?: AbortSignal): Promise<T> {
    const stub = this.stub();
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      try {
        return await new Promise<T>((resolve, reject) => {
          const call = (stub[method] as Unary).call(stub, req, new grpc.Metadata(), { deadline: Date.now() + this.timeoutMs }, (err, res) => {
            signal?.removeEventListener("abort", onAbort);
            if (err) reject(err);
            else resolve(res as T);
          });
          const onAbort = () => call.cancel();
          signal?.addEventListener("abort", onAbort, { once: true });
        });
      } catch (e) {
        if (signal?.aborted) throw abortReason(signal);
        const err = e as grpc.ServiceError;
        if (err.code === grpc.status.UNAVAILABLE && attempt < this.attempts) {
          const cap = Math.min(5_000, this.backoffMs * 2 ** (attempt - 1));
          await sleep(Math.floor(this.random() * cap), signal);
          continue;
        }
        throw this.fail(method, err, { attempts: attempt });
      }
    }
  }

  /** Reads a server stream; the stream is cancelled after timeoutMs without a message. */
  private async *stream<T>(method: string, req: unknown, signal?: AbortSignal): AsyncGenerator<T> {
    const stub = this.stub();
    if (signal?.aborted) throw abortReason(signal);
    const call = (stub[method] as Streaming).call(stub, req, {});
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        call.cancel();
      }, this.timeoutMs);
    };
    const onAbort = () => call.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    try {
      for await (const msg of call) {
        arm();
        yield msg as T;
      }
    } catch (e) {
      if (signal?.aborted) throw abortReason(signal);
      if (timedOut) throw this.fail(method, Object.assign(new Error("no message within the deadline"), { code: grpc.status.DEADLINE_EXCEEDED }) as grpc.ServiceError);
      throw this.fail(method, e as grpc.ServiceError);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      call.cancel();
    }
  }

  /** GetLightdInfo, unchecked (the checks themselves use it). */
  async rawInfo(signal?: AbortSignal): Promise<LightdInfo> {
    return decodeInfo(await this.unary<WireLightdInfo>("GetLightdInfo", {}, signal));
  }

  /** GetLightdInfo, with the network and Ironwood checks. */
  async info(signal?: AbortSignal): Promise<LightdInfo> {
    const info = await this.rawInfo(signal);
    const want = ZEBRAD_CHAIN[this.network];
    if (info.chainName !== want) {
      this.checkedAt = undefined;
      throw new UpstreamError("chain_network_mismatch", `lightwalletd serves "${info.chainName}" but this service serves ${this.network} ("${want}").`, {
        chain: "zcash",
        expected: want,
        actual: info.chainName,
      });
    }
    if (ironwoodActive(info, this.network) && !serverKnowsIronwood(info)) {
      this.checkedAt = undefined;
      throw upstreamFailed(
        "chain_server_outdated",
        `lightwalletd speaks light-wallet protocol "${info.lightwalletProtocolVersion || "unknown"}", older than ${IRONWOOD_PROTOCOL_VERSION}: it cannot serve Ironwood actions, which NU6.3 made active.`,
        { chain: "zcash", protocolVersion: info.lightwalletProtocolVersion, required: IRONWOOD_PROTOCOL_VERSION, serverVersion: info.version },
      );
    }
    this.checkedAt = this.now();
    return info;
  }

  private async ensureChecked(signal?: AbortSignal): Promise<void> {
    if (this.checkedAt !== undefined && this.now() - this.checkedAt < SERVER_CHECK_MS) return;
    await this.info(signal);
  }

  async latestBlock(signal?: AbortSignal): Promise<BlockId> {
    await this.ensureChecked(signal);
    const r = await this.unary<{ height?: WireLong; hash?: Uint8Array }>("GetLatestBlock", {}, signal);
    return { height: num(r.height), hash: u8(r.hash) };
  }

  async block(height: number, signal?: AbortSignal): Promise<CompactBlock> {
    await this.ensureChecked(signal);
    return decodeCompactBlock(await this.unary<WireCompactBlock>("GetBlock", { height: String(height) }, signal));
  }

  async *blockRange(start: number, end: number, pools?: PoolType[], signal?: AbortSignal): AsyncIterable<CompactBlock> {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < 0) throw new RangeError("block heights must be non-negative integers");
    await this.ensureChecked(signal);
    const req = { start: { height: String(start) }, end: { height: String(end) }, poolTypes: (pools ?? []).map((p) => POOL_ENUM[p]) };
    let expect = start;
    const step = end >= start ? 1 : -1;
    for await (const b of this.stream<WireCompactBlock>("GetBlockRange", req, signal)) {
      const block = decodeCompactBlock(b);
      if (block.height !== expect) throw this.fail("GetBlockRange", new Error(`expected block ${expect}, got ${block.height}`));
      expect += step;
      yield block;
    }
    if (expect !== end + step) throw this.fail("GetBlockRange", new Error(`stream ended at ${expect - step}, before ${end}`));
  }

  async transaction(txid: Uint8Array, signal?: AbortSignal): Promise<RawTransaction> {
    if (txid.length !== 32) throw new RangeError("a txid is 32 bytes");
    await this.ensureChecked(signal);
    const r = await this.unary<{ data?: Uint8Array; height?: WireLong }>("GetTransaction", { hash: Buffer.from(txid) }, signal);
    const h = String(r.height ?? "0");
    return { data: u8(r.data), height: h === FORK_HEIGHT ? null : num(h) };
  }

  async mempool(pools?: PoolType[], signal?: AbortSignal): Promise<CompactTx[]> {
    await this.ensureChecked(signal);
    const out: CompactTx[] = [];
    for await (const t of this.stream<WireCompactTx>("GetMempoolTx", { exclude_txid_suffixes: [], poolTypes: (pools ?? []).map((p) => POOL_ENUM[p]) }, signal)) out.push(decodeCompactTx(t));
    return out;
  }

  async treeState(height: number, signal?: AbortSignal): Promise<TreeState> {
    await this.ensureChecked(signal);
    return decodeTreeState(await this.unary<WireTreeState>("GetTreeState", { height: String(height) }, signal));
  }

  async latestTreeState(signal?: AbortSignal): Promise<TreeState> {
    await this.ensureChecked(signal);
    return decodeTreeState(await this.unary<WireTreeState>("GetLatestTreeState", {}, signal));
  }

  /** SendTransaction: the server's own error code and message come back as they are (0 = accepted). */
  async sendTransaction(data: Uint8Array, signal?: AbortSignal): Promise<{ errorCode: number; errorMessage: string }> {
    await this.ensureChecked(signal);
    const r = await this.unary<{ errorCode?: WireLong; errorMessage?: string }>("SendTransaction", { data: Buffer.from(data), height: "0" }, signal);
    return { errorCode: num(r.errorCode), errorMessage: String(r.errorMessage ?? "") };
  }
}

export function createLightwalletd(opts: LightwalletdOptions): Lightwalletd {
  return new Lightwalletd(opts);
}
