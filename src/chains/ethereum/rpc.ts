/**
 * The Ethereum execution JSON-RPC client: one or more node URLs (ETH_RPC_URL,
 * comma-separated) on the shared upstream client, tried in order with
 * fail-over. A node that cannot be reached, times out or answers 5xx or
 * garbage is skipped for the next URL; a node that answers with a JSON-RPC
 * error has answered, so that error is final. The URL that answered last is
 * tried first next time. Answers are parsed strictly (hex quantities →
 * bigint); a malformed answer is a 502 `chain_rpc_failed`.
 */
import { z } from "zod";
import { UpstreamClient, UpstreamError, type UpstreamHealth } from "../../core/upstream.js";
import type { FeeHeader } from "./fees.js";

const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/, "hex quantity")
  .transform((s) => BigInt(s));
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((s) => s.toLowerCase());
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/).transform((s) => s.toLowerCase());
const data = z.string().regex(/^0x([0-9a-fA-F]{2})*$/);

/** The header fields the service uses (eth_getBlockByNumber with full=false). */
export interface EthHeader extends FeeHeader {
  readonly hash: string;
  readonly parentHash: string;
  readonly miner: string;
}

const BlockSchema = z.object({
  number: quantity,
  hash,
  parentHash: hash,
  timestamp: quantity,
  baseFeePerGas: quantity,
  gasUsed: quantity,
  gasLimit: quantity,
  miner: address,
  blobGasUsed: quantity.optional(),
  excessBlobGas: quantity.optional(),
});

export function parseHeader(raw: unknown): EthHeader {
  const b = BlockSchema.parse(raw);
  return {
    number: b.number,
    hash: b.hash,
    parentHash: b.parentHash,
    timestamp: Number(b.timestamp),
    baseFeePerGas: b.baseFeePerGas,
    gasUsed: b.gasUsed,
    gasLimit: b.gasLimit,
    miner: b.miner,
    blobGasUsed: b.blobGasUsed ?? null,
    excessBlobGas: b.excessBlobGas ?? null,
  };
}

export interface EthRpcOptions {
  /** Node URLs in order of preference; empty = not configured (503 chain_not_configured). */
  urls: readonly string[];
  timeoutMs?: number;
  /** Attempts per URL before moving to the next (default 2). */
  attemptsPerUrl?: number;
  onFailover?: (info: { from: string; to: string; reason: string }) => void;
}

export type BlockTag = "latest" | "finalized" | "safe" | bigint;

/** A block with its transactions and withdrawals (eth_getBlockByHash with full=true), as the payment check needs it. */
export interface EthBlockWithTxs {
  readonly number: bigint;
  readonly hash: string;
  readonly miner: string;
  readonly transactions: readonly { readonly hash: string; readonly from: string; readonly to: string | null; readonly value: bigint }[];
  /** Beacon withdrawals (EIP-4895); amounts in gwei. */
  readonly withdrawals: readonly { readonly address: string; readonly amountGwei: bigint }[];
}

const FullBlockSchema = z.object({
  number: quantity,
  hash,
  miner: address,
  transactions: z.array(z.object({ hash, from: address, to: address.nullable(), value: quantity })),
  withdrawals: z.array(z.object({ address, amount: quantity })).optional(),
});

export class EthRpc {
  private readonly clients: UpstreamClient[];
  private readonly fallback: UpstreamClient;
  private preferred = 0;
  private chainIdValue: number | undefined;
  private readonly onFailover: EthRpcOptions["onFailover"];

  constructor(opts: EthRpcOptions) {
    const make = (url: string | undefined, i: number) =>
      new UpstreamClient({
        url,
        name: opts.urls.length > 1 ? `Ethereum node ${i + 1}` : "Ethereum node",
        failureCode: "chain_rpc_failed",
        notConfigured: {
          code: "chain_not_configured",
          message: "No Ethereum node is configured (ETH_RPC_URL).",
          details: { chain: "ethereum" },
        },
        timeoutMs: opts.timeoutMs ?? 8_000,
        attempts: opts.attemptsPerUrl ?? 2,
        maxResponseBytes: 8 * 1024 * 1024,
        makeError: (message, details, rpcCode) => new UpstreamError("chain_rpc_failed", message, { chain: "ethereum", ...details }, rpcCode),
      });
    this.clients = opts.urls.map((u, i) => make(u, i));
    this.fallback = make(undefined, 0);
    this.onFailover = opts.onFailover;
  }

  get configured(): boolean {
    return this.clients.length > 0;
  }

  /** Each URL's last outcome (no credentials). */
  status(): (UpstreamHealth & { endpoint: string })[] {
    return this.clients.map((c) => ({ ...c.status(), endpoint: c.endpoint }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients, this.fallback].map((c) => c.close()));
  }

  /** One read-only call with fail-over across the URLs. */
  async call(method: string, params: unknown[], signal?: AbortSignal): Promise<unknown> {
    if (this.clients.length === 0) return this.fallback.rpc(method, params, { idempotent: true, path: "", signal });
    let last: unknown;
    for (let k = 0; k < this.clients.length; k++) {
      const i = (this.preferred + k) % this.clients.length;
      const client = this.clients[i]!;
      try {
        const result = await client.rpc(method, params, { idempotent: true, path: "", signal });
        this.preferred = i;
        return result;
      } catch (e) {
        if (signal?.aborted) throw e;
        // The node answered with a JSON-RPC error: another node would say the same.
        if (e instanceof UpstreamError && e.rpcCode !== undefined) throw e;
        last = e;
        const next = this.clients[(i + 1) % this.clients.length]!;
        if (k + 1 < this.clients.length) {
          this.onFailover?.({ from: client.endpoint, to: next.endpoint, reason: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    throw last;
  }

  private malformed(method: string, reason: string): UpstreamError {
    return new UpstreamError("chain_rpc_failed", `Ethereum node sent a malformed answer to ${method}`, { chain: "ethereum", call: method, reason });
  }

  private parse<T>(method: string, schema: z.ZodType<T>, value: unknown): T {
    const r = schema.safeParse(value);
    if (!r.success) throw this.malformed(method, r.error.issues[0]?.message ?? "invalid");
    return r.data;
  }

  /** The node's chain id (read once; it decides the fork schedule). */
  async chainId(signal?: AbortSignal): Promise<number> {
    if (this.chainIdValue === undefined) {
      const id = this.parse("eth_chainId", quantity, await this.call("eth_chainId", [], signal));
      this.chainIdValue = Number(id);
    }
    return this.chainIdValue;
  }

  async blockNumber(signal?: AbortSignal): Promise<bigint> {
    return this.parse("eth_blockNumber", quantity, await this.call("eth_blockNumber", [], signal));
  }

  /** A header by number or tag; null when the node has no such block. */
  async header(tag: BlockTag, signal?: AbortSignal): Promise<EthHeader | null> {
    const t = typeof tag === "bigint" ? `0x${tag.toString(16)}` : tag;
    const raw = await this.call("eth_getBlockByNumber", [t, false], signal);
    if (raw === null) return null;
    try {
      return parseHeader(raw);
    } catch (e) {
      throw this.malformed("eth_getBlockByNumber", e instanceof z.ZodError ? (e.issues[0]?.message ?? "invalid") : String(e));
    }
  }

  /**
   * The node's own fees for the block after `head` (eth_feeHistory's extra
   * last entry), or null when the node does not serve fee history. viem's
   * formatter drops the blob fields, so the raw answer is parsed here.
   */
  async nodeNextFees(head: bigint, signal?: AbortSignal): Promise<{ baseFee: bigint; blobBaseFee: bigint | null } | null> {
    let raw: unknown;
    try {
      raw = await this.call("eth_feeHistory", ["0x1", `0x${head.toString(16)}`, []], signal);
    } catch (e) {
      if (e instanceof UpstreamError && e.rpcCode !== undefined) return null;
      throw e;
    }
    const h = this.parse(
      "eth_feeHistory",
      z.object({ baseFeePerGas: z.array(quantity).length(2), baseFeePerBlobGas: z.array(quantity).length(2).optional() }),
      raw,
    );
    return { baseFee: h.baseFeePerGas[1]!, blobBaseFee: h.baseFeePerBlobGas?.[1] ?? null };
  }

  /** A block with full transactions by hash; null when the node does not have it. */
  async blockByHash(blockHash: string, signal?: AbortSignal): Promise<EthBlockWithTxs | null> {
    const raw = await this.call("eth_getBlockByHash", [blockHash, true], signal);
    if (raw === null) return null;
    const b = this.parse("eth_getBlockByHash", FullBlockSchema, raw);
    return { ...b, withdrawals: (b.withdrawals ?? []).map((w) => ({ address: w.address, amountGwei: w.amount })) };
  }

  /** A block's number, hash and extra-data bytes (eth_getBlockByHash with full=false); null when the node does not have it. */
  async blockExtraData(blockHash: string, signal?: AbortSignal): Promise<{ number: bigint; hash: string; extraData: string } | null> {
    const raw = await this.call("eth_getBlockByHash", [blockHash, false], signal);
    if (raw === null) return null;
    return this.parse("eth_getBlockByHash", z.object({ number: quantity, hash, extraData: data }), raw);
  }

  /** An account's balance (wei) at a block number (needs the node to hold that block's state). */
  async balanceAt(account: string, block: bigint, signal?: AbortSignal): Promise<bigint> {
    return this.parse("eth_getBalance", quantity, await this.call("eth_getBalance", [account, `0x${block.toString(16)}`], signal));
  }

  /** eth_call at the latest block; returns the raw return data. */
  async ethCall(to: string, callData: string, signal?: AbortSignal): Promise<string> {
    return this.parse("eth_call", data, await this.call("eth_call", [{ to, data: callData }, "latest"], signal));
  }
}

/** ETH_RPC_URL's comma-separated list → URLs (blanks dropped). */
export function splitRpcUrls(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
