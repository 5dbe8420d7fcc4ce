/**
 * A small in-test CompactBlockSource: a chain of compact blocks built from
 * real v6 transactions (sender.ts encrypts the notes), with their full raw
 * transactions for memo reads, a mempool, reorgs, and counters of what was
 * fetched. It stands in for lightwalletd, upstream of the scanner.
 */
import { randomBytes } from "node:crypto";
import { bytesToHex, concatBytes, hexToBytes } from "../../../src/chains/zcash/bytes.js";
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
} from "../../../src/chains/zcash/compact.js";
import { parseTransaction } from "../../../src/chains/zcash/tx-parse.js";
import { transactionId } from "../../../src/chains/zcash/txid.js";
import { buildTx, type EncryptedOutput } from "./sender.js";

export interface TxParts {
  sapling?: EncryptedOutput[];
  orchard?: EncryptedOutput[];
  ironwood?: EncryptedOutput[];
  vout?: { value: bigint; script: Uint8Array }[];
  /** Nullifiers revealed by this transaction, per pool; transparent outpoints spent. */
  spends?: { sapling?: Uint8Array[]; orchard?: Uint8Array[]; ironwood?: Uint8Array[]; vin?: { txid: Uint8Array; index: number }[] };
}

export interface BuiltTx {
  compact: Omit<CompactTx, "index">;
  raw: Uint8Array;
  /** Protocol byte order. */
  txid: Uint8Array;
  /** Display hex. */
  txidHex: string;
}

const filler = (nullifier: Uint8Array): CompactOrchardAction => ({
  nullifier,
  cmx: randomBytes(32),
  ephemeralKey: randomBytes(32),
  ciphertext: randomBytes(52),
});

/** Builds a real v6 transaction and its compact form; revealed nullifiers ride on filler actions/spends. */
export function makeTx(parts: TxParts): BuiltTx {
  const raw = buildTx(6, { sapling: parts.sapling, orchard: parts.orchard, ironwood: parts.ironwood, vout: parts.vout });
  const tx = parseTransaction(raw);
  const txidHex = transactionId(tx);
  const txid = hexToBytes(txidHex).reverse();
  const toAction = (a: { nullifier: Uint8Array; cmx: Uint8Array; ephemeralKey: Uint8Array; encCiphertext: Uint8Array }): CompactOrchardAction => ({
    nullifier: a.nullifier,
    cmx: a.cmx,
    ephemeralKey: a.ephemeralKey,
    ciphertext: a.encCiphertext.slice(0, 52),
  });
  const compact: Omit<CompactTx, "index"> = {
    txid,
    fee: 1000,
    spends: (parts.spends?.sapling ?? []).map((nf) => ({ nf })),
    outputs: tx.sapling.outputs.map((o) => ({ cmu: o.cmu, ephemeralKey: o.ephemeralKey, ciphertext: o.encCiphertext.slice(0, 52) })),
    actions: [...(tx.orchard?.actions ?? []).map(toAction), ...(parts.spends?.orchard ?? []).map(filler)],
    ironwoodActions: [...(tx.ironwood?.actions ?? []).map(toAction), ...(parts.spends?.ironwood ?? []).map(filler)],
    vin: (parts.spends?.vin ?? []).map((v) => ({ prevoutTxid: v.txid, prevoutIndex: v.index })),
    vout: tx.vout.map((o) => ({ value: o.value, scriptPubKey: o.scriptPubKey })),
  };
  return { compact, raw, txid, txidHex };
}

export class TestCompactChain implements CompactBlockSource {
  readonly blocks: CompactBlock[] = [];
  private readonly raws = new Map<string, RawTransaction>();
  private pool: BuiltTx[] = [];
  /** Counters: blockRange calls, blocks served (by height), full transactions read. */
  readonly served = { ranges: 0, blocks: new Map<number, number>(), transactions: 0, mempool: 0 };
  /** When set, blockRange yields these instead of the real blocks (malformed-data tests). */
  mangle?: (b: CompactBlock) => CompactBlock;

  constructor(
    readonly base: number,
    readonly chainName: "main" | "test" | "regtest" = "regtest",
  ) {
    this.mine(); // the block at `base`
  }

  get tip(): number {
    return this.base + this.blocks.length - 1;
  }

  /** Mines a block with these transactions (and whatever is in the mempool, first). */
  mine(txs: BuiltTx[] = [], opts: { includeMempool?: boolean } = {}): CompactBlock {
    const all = [...(opts.includeMempool === false ? [] : this.pool), ...txs];
    if (opts.includeMempool !== false) this.pool = [];
    const prev = this.blocks[this.blocks.length - 1];
    const height = this.base + this.blocks.length;
    const sizes = prev?.chainMetadata ?? { saplingCommitmentTreeSize: 5, orchardCommitmentTreeSize: 7, ironwoodCommitmentTreeSize: 3 };
    const block: CompactBlock = {
      height,
      hash: randomBytes(32),
      prevHash: prev?.hash ?? randomBytes(32),
      time: 1_700_000_000 + height * 75,
      vtx: all.map((t, index) => ({ ...t.compact, index })),
      chainMetadata: {
        saplingCommitmentTreeSize: sizes.saplingCommitmentTreeSize + all.reduce((n, t) => n + t.compact.outputs.length, 0),
        orchardCommitmentTreeSize: sizes.orchardCommitmentTreeSize + all.reduce((n, t) => n + t.compact.actions.length, 0),
        ironwoodCommitmentTreeSize: sizes.ironwoodCommitmentTreeSize + all.reduce((n, t) => n + t.compact.ironwoodActions.length, 0),
      },
    };
    this.blocks.push(block);
    for (const t of all) this.raws.set(bytesToHex(t.txid), { data: t.raw, height });
    return block;
  }

  /** Mines `n` empty blocks. */
  mineEmpty(n: number): void {
    for (let i = 0; i < n; i++) this.mine([], { includeMempool: false });
  }

  /** Puts a transaction in the mempool. */
  broadcast(tx: BuiltTx): void {
    this.pool.push(tx);
    this.raws.set(bytesToHex(tx.txid), { data: tx.raw, height: 0 });
  }

  /** Drops the last `n` blocks (their transactions leave the chain). */
  reorg(n: number): void {
    const gone = this.blocks.splice(this.blocks.length - n, n);
    for (const b of gone) for (const t of b.vtx) this.raws.delete(bytesToHex(t.txid));
  }

  /** Sapling tree size before the given block (for expected positions). */
  saplingSizeBefore(height: number): number {
    const prev = this.blocks[height - this.base - 1];
    return prev ? prev.chainMetadata.saplingCommitmentTreeSize : 5;
  }

  async latestBlock(): Promise<BlockId> {
    const b = this.blocks[this.blocks.length - 1]!;
    return { height: b.height, hash: b.hash };
  }

  async *blockRange(start: number, end: number, pools?: PoolType[]): AsyncIterable<CompactBlock> {
    this.served.ranges++;
    const withTransparent = pools?.includes("transparent") ?? false;
    for (let h = start; h <= end && h <= this.tip; h++) {
      if (h < this.base) continue;
      const b = this.blocks[h - this.base]!;
      this.served.blocks.set(h, (this.served.blocks.get(h) ?? 0) + 1);
      const shaped: CompactBlock = withTransparent ? b : { ...b, vtx: b.vtx.map((t) => ({ ...t, vin: [], vout: [] })) };
      yield this.mangle ? this.mangle(shaped) : shaped;
    }
  }

  async transaction(txid: Uint8Array): Promise<RawTransaction> {
    this.served.transactions++;
    const r = this.raws.get(bytesToHex(txid));
    if (!r) throw new Error("transaction not found");
    return r;
  }

  async mempool(): Promise<CompactTx[]> {
    this.served.mempool++;
    return this.pool.map((t, index) => ({ ...t.compact, index }));
  }

  async treeState(height: number): Promise<TreeState> {
    const b = this.blocks[height - this.base];
    if (!b) throw new Error("no such block");
    return { network: this.chainName, height, hash: bytesToHex(Uint8Array.from(b.hash).reverse()), time: b.time, saplingTree: "", orchardTree: "", ironwoodTree: "" };
  }

  async info(): Promise<LightdInfo> {
    return {
      version: "test",
      vendor: "test",
      chainName: this.chainName,
      saplingActivationHeight: 1,
      consensusBranchId: "4dec4df0",
      blockHeight: this.tip,
      upgradeName: "NU6.3",
      upgradeHeight: 1,
      lightwalletProtocolVersion: "2",
    };
  }

  close(): void {}
}

export const concat = concatBytes;
