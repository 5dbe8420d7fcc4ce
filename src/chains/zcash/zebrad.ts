/**
 * The zebrad JSON-RPC client for Zcash chain facts, on the shared upstream
 * client (per-attempt deadline, capped bodies, retries with jitter, 502
 * `chain_rpc_failed` / 503 `chain_not_configured`). It reads what zebrad
 * serves: getblockchaininfo, getinfo, getblock (verbosity 1), getrawmempool
 * and getmempoolinfo, each answer parsed strictly (a wrong shape is a 502).
 *
 * Network check: zebrad names its chain in getblockchaininfo.chain ("main",
 * "test", "regtest"). Every getblockchaininfo answer is checked against the
 * service's network, and the other calls run only after a check has passed
 * (it is remembered for NETWORK_CHECK_MS), so a testnet node behind a
 * mainnet service is refused with 502 `chain_network_mismatch` and never
 * answers a question.
 *
 * Amounts: value pools are read from the `…Zat` integers (never the float
 * `chainValue`) into bigint zatoshi. zebrad called the lockbox pool
 * `deferred` before it adopted zcashd's `lockbox`; both ids are accepted.
 */
import { z } from "zod";
import { UpstreamClient, UpstreamError, type UpstreamHealth } from "../../core/upstream.js";
import type { ZcashNetwork } from "./network.js";

/** The value pools zebrad reports, in its order. */
export const ZCASH_POOLS = ["transparent", "sprout", "sapling", "orchard", "lockbox", "ironwood"] as const;
export type ZcashPool = (typeof ZCASH_POOLS)[number];

/** zebrad's `chain` per network. */
export const ZEBRAD_CHAIN: Record<ZcashNetwork, string> = { mainnet: "main", testnet: "test", regtest: "regtest" };

/** How long a passed network check is trusted before the next getblockchaininfo. */
export const NETWORK_CHECK_MS = 10 * 60_000;

export interface ZcashPoolValue {
  /** Zatoshi in the pool. */
  zatoshi: bigint;
  /** Whether the node tracks this pool's value (false: the number is not meaningful). */
  monitored: boolean;
  /** Change in this block (getblock only). */
  deltaZatoshi?: bigint;
}

export type ZcashValuePools = Record<ZcashPool, ZcashPoolValue>;

export interface ZebradBlockchainInfo {
  chain: string;
  /** Height of the best block. */
  blocks: number;
  headers: number;
  bestBlockHash: string;
  /** The node's estimate of the network tip height (absent on some versions). */
  estimatedHeight: number | undefined;
  difficulty: number;
  verificationProgress: number;
  valuePools: ZcashValuePools;
  /** Network upgrades by name: activation height and status. */
  upgrades: { name: string; branchId: string; activationHeight: number; status: string }[];
  /** Branch id of the tip's consensus rules, e.g. "37a5165b". */
  consensusChainTip: string | undefined;
}

export interface ZebradInfo {
  build: string;
  subversion: string;
  protocolVersion: number | undefined;
  blocks: number | undefined;
  connections: number | undefined;
  testnet: boolean | undefined;
}

export interface ZebradBlock {
  hash: string;
  height: number;
  confirmations: number;
  size: number;
  time: number;
  difficulty: number;
  txids: string[];
  previousBlockHash: string | undefined;
  valuePools: ZcashValuePools | undefined;
}

export interface ZebradMempoolInfo {
  size: number;
  bytes: number;
  usage: number;
}

const hex32 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "32-byte hex")
  .transform((s) => s.toLowerCase());
const height = z.number().int().min(0);
const zat = z
  .number()
  .refine((n) => Number.isSafeInteger(n), "zatoshi must be an exact integer")
  .transform((n) => BigInt(n));

const PoolEntry = z.object({
  id: z.string(),
  chainValueZat: zat,
  monitored: z.boolean().optional(),
  valueDeltaZat: zat.optional(),
});

const PoolList = z.array(PoolEntry).transform((list, ctx): ZcashValuePools => {
  const out = {} as ZcashValuePools;
  for (const pool of ZCASH_POOLS) out[pool] = { zatoshi: 0n, monitored: false };
  const seen = new Set<string>();
  for (const e of list) {
    const id = e.id === "deferred" ? "lockbox" : e.id;
    if (!(ZCASH_POOLS as readonly string[]).includes(id)) continue; // a pool we do not know yet is ignored
    if (seen.has(id)) {
      ctx.addIssue({ code: "custom", message: `value pool ${id} listed twice` });
      return z.NEVER;
    }
    if (e.chainValueZat < 0n) {
      ctx.addIssue({ code: "custom", message: `value pool ${id} is negative` });
      return z.NEVER;
    }
    seen.add(id);
    out[id as ZcashPool] = {
      zatoshi: e.chainValueZat,
      monitored: e.monitored ?? true,
      ...(e.valueDeltaZat !== undefined ? { deltaZatoshi: e.valueDeltaZat } : {}),
    };
  }
  // Before NU6.3 zebrad lists no ironwood pool, before NU6 no lockbox: both are then zero.
  for (const pool of ["transparent", "sprout", "sapling", "orchard"] as const) {
    if (!seen.has(pool)) {
      ctx.addIssue({ code: "custom", message: `value pool ${pool} missing` });
      return z.NEVER;
    }
  }
  return out;
});

const BlockchainInfoSchema = z.object({
  chain: z.string().min(1),
  blocks: height,
  headers: height.optional(),
  bestblockhash: hex32,
  estimatedheight: height.optional(),
  difficulty: z.number().nonnegative(),
  verificationprogress: z.number().min(0).max(1.5),
  valuePools: PoolList,
  upgrades: z
    .record(z.string(), z.object({ name: z.string(), activationheight: height, status: z.string() }))
    .optional(),
  consensus: z.object({ chaintip: z.string(), nextblock: z.string().optional() }).optional(),
});

const InfoSchema = z.object({
  build: z.string().optional(),
  subversion: z.string().optional(),
  protocolversion: z.number().int().optional(),
  blocks: height.optional(),
  connections: z.number().int().min(0).optional(),
  testnet: z.boolean().optional(),
});

const BlockSchema = z.object({
  hash: hex32,
  height,
  confirmations: z.number().int(),
  size: z.number().int().min(0),
  time: z.number().int().min(0),
  difficulty: z.number().nonnegative(),
  tx: z.array(z.union([hex32, z.object({ txid: hex32 }).transform((t) => t.txid)])),
  previousblockhash: hex32.optional(),
  valuePools: PoolList.optional(),
});

const MempoolInfoSchema = z.object({
  size: z.number().int().min(0),
  bytes: z.number().int().min(0),
  usage: z.number().int().min(0),
});

const RawMempoolSchema = z.array(hex32);

/** Reads a getblockchaininfo answer; throws a zod error on a wrong shape. */
export function parseBlockchainInfo(raw: unknown): ZebradBlockchainInfo {
  const r = BlockchainInfoSchema.parse(raw);
  return {
    chain: r.chain,
    blocks: r.blocks,
    headers: r.headers ?? r.blocks,
    bestBlockHash: r.bestblockhash,
    estimatedHeight: r.estimatedheight,
    difficulty: r.difficulty,
    verificationProgress: r.verificationprogress,
    valuePools: r.valuePools,
    upgrades: Object.entries(r.upgrades ?? {}).map(([branchId, u]) => ({
      name: u.name,
      branchId: branchId.toLowerCase(),
      activationHeight: u.activationheight,
      status: u.status,
    })),
    consensusChainTip: r.consensus?.chaintip.toLowerCase(),
  };
}

export function parseInfo(raw: unknown): ZebradInfo {
  const r = InfoSchema.parse(raw);
  return {
    build: r.build ?? "",
    subversion: r.subversion ?? "",
    protocolVersion: r.protocolversion,
    blocks: r.blocks,
    connections: r.connections,
    testnet: r.testnet,
  };
}

/** Reads a getblock answer at verbosity 1 (txids) or 2 (transactions as objects). */
export function parseBlock(raw: unknown): ZebradBlock {
  const r = BlockSchema.parse(raw);
  return {
    hash: r.hash,
    height: r.height,
    confirmations: r.confirmations,
    size: r.size,
    time: r.time,
    difficulty: r.difficulty,
    txids: r.tx,
    previousBlockHash: r.previousblockhash,
    valuePools: r.valuePools,
  };
}

export function parseMempoolInfo(raw: unknown): ZebradMempoolInfo {
  return MempoolInfoSchema.parse(raw);
}

export function parseRawMempool(raw: unknown): string[] {
  return RawMempoolSchema.parse(raw);
}

export interface ZebradOptions {
  /** zebrad's RPC URL (rpc.listen_addr); undefined = not configured (503). */
  url: string | undefined;
  /** The network this service serves. */
  network: ZcashNetwork;
  timeoutMs?: number;
  attempts?: number;
  backoffMs?: number;
  /** Clock for the network check's memory (default Date.now). */
  now?: () => number;
}

export class Zebrad {
  readonly network: ZcashNetwork;
  private readonly client: UpstreamClient;
  private readonly now: () => number;
  private checkedAt: number | undefined;

  constructor(opts: ZebradOptions) {
    this.network = opts.network;
    this.now = opts.now ?? Date.now;
    this.client = new UpstreamClient({
      url: opts.url,
      name: "zebrad",
      failureCode: "chain_rpc_failed",
      notConfigured: {
        code: "chain_not_configured",
        message: "No Zcash node is configured (ZEBRAD_URL).",
        details: { chain: "zcash" },
      },
      timeoutMs: opts.timeoutMs ?? 8_000,
      attempts: opts.attempts ?? 3,
      backoffMs: opts.backoffMs,
      maxResponseBytes: 16 * 1024 * 1024,
      makeError: (message, details, rpcCode) => new UpstreamError("chain_rpc_failed", message, { chain: "zcash", ...details }, rpcCode),
    });
  }

  get configured(): boolean {
    return this.client.configured;
  }

  /** Where the client points, without credentials. */
  get endpoint(): string {
    return this.client.endpoint;
  }

  status(): UpstreamHealth {
    return this.client.status();
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /** getblockchaininfo, checked against the service's network. */
  async getBlockchainInfo(signal?: AbortSignal): Promise<ZebradBlockchainInfo> {
    const info = await this.call("getblockchaininfo", [], parseBlockchainInfo, signal);
    const want = ZEBRAD_CHAIN[this.network];
    if (info.chain !== want) {
      this.checkedAt = undefined;
      this.client.noteFailure(`node runs ${info.chain}`);
      throw new UpstreamError("chain_network_mismatch", `The Zcash node runs "${info.chain}" but this service serves ${this.network} ("${want}").`, {
        chain: "zcash",
        expected: want,
        actual: info.chain,
      });
    }
    this.checkedAt = this.now();
    return info;
  }

  async getInfo(signal?: AbortSignal): Promise<ZebradInfo> {
    await this.ensureNetwork(signal);
    return this.call("getinfo", [], parseInfo, signal);
  }

  /** getblock at verbosity 1, by hash (hex) or height. */
  async getBlock(hashOrHeight: string | number, signal?: AbortSignal): Promise<ZebradBlock> {
    await this.ensureNetwork(signal);
    const block = await this.call("getblock", [String(hashOrHeight), 1], parseBlock, signal);
    const other = typeof hashOrHeight === "number" ? block.height !== hashOrHeight : block.hash !== hashOrHeight.toLowerCase();
    if (other) {
      this.client.noteFailure("getblock answered another block");
      throw this.client.error("zebrad answered getblock with another block", { call: "getblock", asked: String(hashOrHeight), got: block.hash });
    }
    return block;
  }

  async getRawMempool(signal?: AbortSignal): Promise<string[]> {
    await this.ensureNetwork(signal);
    return this.call("getrawmempool", [], parseRawMempool, signal);
  }

  async getMempoolInfo(signal?: AbortSignal): Promise<ZebradMempoolInfo> {
    await this.ensureNetwork(signal);
    return this.call("getmempoolinfo", [], parseMempoolInfo, signal);
  }

  /** Runs getblockchaininfo unless a check passed within NETWORK_CHECK_MS. */
  private async ensureNetwork(signal?: AbortSignal): Promise<void> {
    if (this.checkedAt !== undefined && this.now() - this.checkedAt < NETWORK_CHECK_MS) return;
    await this.getBlockchainInfo(signal);
  }

  private async call<T>(method: string, params: unknown[], parse: (raw: unknown) => T, signal?: AbortSignal): Promise<T> {
    const raw = await this.client.rpc(method, params, { idempotent: true, path: "", signal });
    try {
      return parse(raw);
    } catch (e) {
      const reason = e instanceof z.ZodError ? e.issues.map((i) => `${i.path.join(".") || "answer"}: ${i.message}`).join("; ") : String(e);
      this.client.noteFailure(`bad ${method} answer`);
      throw this.client.error(`zebrad sent a malformed answer to ${method}`, { call: method, reason: reason.slice(0, 300) });
    }
  }
}

export function createZebrad(opts: ZebradOptions): Zebrad {
  return new Zebrad(opts);
}
