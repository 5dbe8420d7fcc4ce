/**
 * The devnet monerod's chain, independent of any transport: blocks with
 * their coinbase paying the miner wallet, a transaction pool, the index of
 * every transaction (height, global output indices), and the three devnet
 * actions: send (a real transfer built by monero-sender.ts into the pool),
 * mine (the pool goes into the next block), reorg (the newest blocks are
 * replaced by empty ones). With carrotForkHeight, the chain crosses the
 * FCMP++/Carrot fork there (v17, PR #10027): from that height blocks are
 * version 17 with the FCMP++ tree (a simulated layer count and root), their
 * coinbase is Carrot, and a send builds a Carrot transfer
 * (monero-carrot-sender.ts) unless a legacy one is asked for, which v17
 * still accepts (check_output_types); a Carrot transfer before the fork is
 * refused. Invariants: heights are array indexes, block
 * timestamps strictly increase, global output indices are dense and are
 * handed back when a reorg removes their outputs. With a chain file, every
 * change is written to it (see monerod-chain-file.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { Clock } from "../src/core/clock.js";
import { formatXmr } from "../src/core/money.js";
import { decodeAddress } from "../src/chains/monero/address.js";
import type { MoneroNetwork } from "../src/chains/monero/types.js";
import { HttpReply } from "./jsonrpc-server.js";
import { keccak } from "../src/chains/monero/crypto.js";
import { bytesToHex, concatBytes } from "../src/chains/monero/encoding.js";
import { FCMP_PLUS_PLUS_MAX_LAYERS, HF_VERSION_FCMP_PLUS_PLUS } from "../src/chains/monero/carrot/constants.js";
import { buildBlock, buildCoinbase, buildTransfer, type BuiltMoneroTx } from "./monero-sender.js";
import { buildCarrotCoinbase, buildCarrotTransfer, type CarrotSenderWallet } from "./monero-carrot-sender.js";
import { type ChainBlock, ZERO_HASH } from "./monerod-block.js";
import { readChainFile, saveBlock } from "./monerod-chain-file.js";

/** Tail emission: 0.6 XMR per block. */
export const DEVNET_BLOCK_REWARD = 600_000_000_000n;
export const DEVNET_DIFFICULTY = 120_000n;
/** Per-byte fees for low/normal/elevated/priority, as monerod's docs example. */
export const DEVNET_FEES = [20_000n, 80_000n, 320_000n, 4_000_000n] as const;
export const DEVNET_QUANTIZATION_MASK = 10_000n;
/** Fee of every devnet transfer (the sender has no real inputs to pay from). */
export const DEVNET_TX_FEE = 30_000_000n;
const MAX_TXS_PER_BLOCK = 200;
/** The fork version before Carrot (the devnet's blocks below carrotForkHeight). */
export const DEVNET_LEGACY_HF_VERSION = 16;

export type DevnetTxKind = "legacy" | "carrot";

export interface ChainTx {
  tx: BuiltMoneroTx;
  /** null while in the pool. */
  height: number | null;
  receivedAt: number;
  outputIndices: bigint[];
}

export interface DevnetMoneroChainOptions {
  network: MoneroNetwork;
  /** Receives every block's coinbase. */
  minerAddress: string;
  clock: Clock;
  log?: Logger;
  /** Where the chain is kept between runs; absent: memory only. */
  chainFile?: string;
  /** First height of fork v17 (FCMP++/Carrot); absent: no fork, every block v16. */
  carrotForkHeight?: number;
  /** The wallet Carrot transfers come from (their change returns to it); needed once the fork is reached. */
  carrotSender?: CarrotSenderWallet;
}

export class DevnetMoneroChain {
  readonly network: MoneroNetwork;
  readonly blocks: ChainBlock[] = [];
  private readonly byHash = new Map<string, ChainBlock>();
  readonly txIndex = new Map<string, ChainTx>();
  pool: BuiltMoneroTx[] = [];
  private nextGlobalOutput = 0n;

  constructor(private readonly opts: DevnetMoneroChainOptions) {
    this.network = opts.network;
    const f = opts.carrotForkHeight;
    if (f !== undefined && (!Number.isSafeInteger(f) || f < 1)) throw new RangeError("carrotForkHeight must be a height of 1 or more");
  }

  /** The fork version of the block at `height`: 17 from carrotForkHeight, else 16. */
  hfVersionAt(height: number): number {
    const f = this.opts.carrotForkHeight;
    return f !== undefined && height >= f ? HF_VERSION_FCMP_PLUS_PLUS : DEVNET_LEGACY_HF_VERSION;
  }

  /** Reloads the saved chain, or mines `initialBlocks` (at least the genesis) when there is none or it is unreadable. */
  open(initialBlocks = 1): void {
    const { chainFile, log } = this.opts;
    let saved: ChainBlock[] | null = null;
    if (chainFile) {
      fs.mkdirSync(path.dirname(chainFile), { recursive: true });
      try {
        saved = readChainFile(chainFile);
      } catch (e) {
        log?.warn({ err: (e as Error).message }, "devnet monerod: saved chain unreadable; starting a new one");
        fs.rmSync(chainFile, { force: true });
      }
    }
    if (saved) {
      for (const b of saved) this.append(b);
      log?.info({ height: this.blocks.length - 1 }, "devnet monerod reloaded its chain");
    } else {
      const initial = Math.max(1, initialBlocks);
      for (let i = 0; i < initial; i++) this.mineOne(false);
    }
  }

  nowS(): number {
    return Math.floor(this.opts.clock.now() / 1000);
  }

  top(): ChainBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  /** Height of the newest block. */
  height(): number {
    return this.blocks.length - 1;
  }

  blockByHash(hash: string): ChainBlock | undefined {
    return this.byHash.get(hash);
  }

  /** Mines n blocks (with the pool's transactions in the first ones); returns their hashes. */
  mine(n = 1): string[] {
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) hashes.push(this.mineOne(true).built.hash);
    return hashes;
  }

  /**
   * Builds a transfer to `address` and puts it in the pool; returns the txid.
   * `kind` defaults to the version of the next block: Carrot from the fork on.
   */
  send(address: string, piconero: bigint, kind?: DevnetTxKind): string {
    const network = this.network;
    const d = decodeAddress(address);
    if (!d.ok) throw new HttpReply(400, { error: { code: "invalid_address", message: `Not a Monero address: ${d.error}` } });
    if (d.value.network !== network) {
      throw new HttpReply(400, {
        error: { code: "invalid_address", message: `The devnet runs Monero ${network}; this is a ${d.value.network} address.` },
      });
    }
    if (piconero <= 0n || piconero >= 1n << 64n) {
      throw new HttpReply(400, { error: { code: "invalid_amount", message: "amount must be between 1 piconero and 2^64−1" } });
    }
    const tx = this.buildSend(address, piconero, kind ?? this.defaultKind());
    this.pool.push(tx);
    this.txIndex.set(tx.txid, { tx, height: null, receivedAt: this.nowS(), outputIndices: [] });
    this.opts.log?.info({ txid: tx.txid, amount: formatXmr(piconero), kind: kind ?? this.defaultKind() }, "devnet monerod accepted a transfer");
    return tx.txid;
  }

  /** What a send builds when not told: the kind the next block's version calls for. */
  defaultKind(): DevnetTxKind {
    return this.hfVersionAt(this.blocks.length) >= HF_VERSION_FCMP_PLUS_PLUS ? "carrot" : "legacy";
  }

  private buildSend(address: string, amount: bigint, kind: DevnetTxKind): BuiltMoneroTx {
    if (kind === "legacy") return buildTransfer({ destinations: [{ address, amount }], fee: DEVNET_TX_FEE });
    if (this.hfVersionAt(this.blocks.length) < HF_VERSION_FCMP_PLUS_PLUS) {
      throw new HttpReply(400, { error: { code: "invalid_kind", message: `Carrot transactions start at the fork height ${this.opts.carrotForkHeight ?? "(none set)"}` } });
    }
    const sender = this.opts.carrotSender;
    if (!sender) throw new Error("devnet monerod: a Carrot transfer needs carrotSender");
    const top = this.top();
    return buildCarrotTransfer({
      destinations: [{ address, amount }],
      sender,
      fee: DEVNET_TX_FEE,
      referenceBlock: BigInt(top.height),
      nTreeLayers: top.built.json.fcmp_pp_n_tree_layers ?? 1,
    });
  }

  /** Simulated FCMP++ tree of a v17 block: layers growing with the outputs so far, a root bound to the previous block. */
  private fcmpTree(prevHash: string): { nTreeLayers: number; treeRoot: string } {
    const nTreeLayers = Math.min(FCMP_PLUS_PLUS_MAX_LAYERS, 1 + Math.floor(Math.log2(Number(this.nextGlobalOutput) + 1) / 5));
    const treeRoot = bytesToHex(keccak(concatBytes(Buffer.from(prevHash, "hex"), new TextEncoder().encode("vigil devnet fcmp++ tree root"))));
    return { nTreeLayers, treeRoot };
  }

  /**
   * Replaces the newest `depth` blocks with empty ones. Their transfers are
   * dropped (default) or, with keepTxs, returned to the pool as a real node
   * does with transactions of orphaned blocks. Returns those txids.
   */
  reorg(depth: number, ropts: { keepTxs?: boolean } = {}): string[] {
    const blocks = this.blocks;
    if (!Number.isInteger(depth) || depth < 1 || depth >= blocks.length) {
      throw new HttpReply(400, { error: { code: "invalid_depth", message: `depth must be 1..${blocks.length - 1}` } });
    }
    const removed = blocks.splice(blocks.length - depth, depth);
    const dropped: string[] = [];
    for (const b of removed) {
      this.byHash.delete(b.built.hash);
      this.txIndex.delete(b.minerTx.txid);
      this.nextGlobalOutput -= BigInt(b.minerTx.outputs.length);
      for (const t of b.txs) {
        this.nextGlobalOutput -= BigInt(t.outputs.length);
        dropped.push(t.txid);
        if (ropts.keepTxs) {
          this.pool.push(t);
          this.txIndex.set(t.txid, { tx: t, height: null, receivedAt: this.txIndex.get(t.txid)?.receivedAt ?? this.nowS(), outputIndices: [] });
        } else {
          this.txIndex.delete(t.txid);
        }
      }
    }
    if (this.opts.chainFile) fs.writeFileSync(this.opts.chainFile, blocks.map((b) => JSON.stringify(saveBlock(b)) + "\n").join(""));
    for (let i = 0; i < depth; i++) this.mineOne(false);
    this.opts.log?.info({ depth, dropped: dropped.length }, "devnet monerod reorganised");
    return dropped;
  }

  private mineOne(includePool: boolean): ChainBlock {
    const blocks = this.blocks;
    const height = blocks.length;
    const hf = this.hfVersionAt(height);
    const carrot = hf >= HF_VERSION_FCMP_PLUS_PLUS;
    // v17 takes both kinds; a v16 block never takes a Carrot transaction (send refuses one before the fork and a
    // reorg keeps the chain's length, so none should wait below it: this keeps the rule even so).
    const fits = (t: BuiltMoneroTx) => carrot || !isCarrotTx(t);
    const included = includePool ? this.pool.filter(fits).slice(0, MAX_TXS_PER_BLOCK) : [];
    if (includePool) this.pool = this.pool.filter((t) => !included.includes(t));
    const fees = included.reduce((s, t) => s + t.fee, 0n);
    const reward = DEVNET_BLOCK_REWARD + fees;
    const payout = { destinations: [{ address: this.opts.minerAddress, amount: reward }], height };
    const minerTx = carrot ? buildCarrotCoinbase(payout) : buildCoinbase(payout);
    const prev = blocks.length > 0 ? this.top() : null;
    // Strictly increasing timestamps even when several blocks are mined in one second.
    const timestamp = Math.max(this.nowS(), prev ? prev.timestamp + 1 : 0);
    const built = buildBlock({
      minerTx,
      txHashes: included.map((t) => t.txid),
      prevId: prev ? prev.built.hash : ZERO_HASH,
      timestamp,
      nonce: randomBytes(4).readUInt32LE(0),
      majorVersion: hf,
      minorVersion: hf,
      ...(carrot ? { fcmpTree: this.fcmpTree(prev ? prev.built.hash : ZERO_HASH) } : {}),
    });
    const size = built.blob.length + included.reduce((s, t) => s + t.blob.length, 0);
    const block: ChainBlock = {
      height,
      built,
      minerTx,
      txs: included,
      timestamp,
      reward,
      size,
      cumulativeDifficulty: (prev ? prev.cumulativeDifficulty : 0n) + DEVNET_DIFFICULTY,
    };
    this.append(block);
    if (this.opts.chainFile) fs.appendFileSync(this.opts.chainFile, JSON.stringify(saveBlock(block)) + "\n");
    this.opts.log?.debug({ height, hash: built.hash, txs: included.length }, "devnet monerod mined a block");
    return block;
  }

  /** Adds a block to the in-memory chain and its indexes. */
  private append(block: ChainBlock): void {
    this.blocks.push(block);
    this.byHash.set(block.built.hash, block);
    for (const t of [block.minerTx, ...block.txs]) {
      const outputIndices = t.outputs.map(() => this.nextGlobalOutput++);
      this.txIndex.set(t.txid, {
        tx: t,
        height: block.height,
        receivedAt: this.txIndex.get(t.txid)?.receivedAt ?? block.timestamp,
        outputIndices,
      });
    }
  }
}

/** A transaction with Carrot outputs (every output of it is one: v17 allows no mix). */
export function isCarrotTx(t: BuiltMoneroTx): boolean {
  return t.json.vout.some((o) => "carrot_v1" in o.target);
}
