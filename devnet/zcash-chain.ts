/**
 * The devnet's Zcash chain, served by both the simulated zebrad (JSON-RPC,
 * zebrad.ts) and the simulated lightwalletd (gRPC, lightwalletd.ts), so chain
 * facts and compact blocks always agree.
 *
 * Heights: the devnet uses the testnet's network-upgrade heights (NU5 1,842,420
 * … NU6.2 4,052,000, NU6.3 4,134,000) and its history starts
 * DEVNET_ZCASH_PRE_NU63_BLOCKS (10) blocks before NU6.3, at 4,133,990. Blocks
 * below 4,134,000 carry v5 transactions (branch NU6.2) whose Orchard-receiver
 * payments land in Orchard notes (lead 0x02); from 4,134,000 on, v6
 * transactions (branch NU6.3) put them in Ironwood notes (lead 0x03, ZIP 2005).
 * A chain opened with fewer than 11 blocks has its tip before NU6.3, so a test
 * can pay Orchard, then mine across the upgrade and pay Ironwood.
 *
 * Every transaction is a real serialized v5/v6 transaction built by
 * zcash-sender.ts: note ciphertexts a UFVK decrypts, commitments that
 * recompute, ZIP 244 txids; proofs and signatures are filler. Each block has
 * a coinbase (subsidy minus the 12 % lockbox share, plus fees, to a P2PKH
 * miner key), its hash chains to its parent, and it records the note
 * commitment tree sizes at its end. Value pools move by exactly what the
 * transactions say: a shielded payment takes a transparent faucet input
 * (amount + ZIP 317 fee) and puts the amount into its pool; background
 * traffic migrates Orchard value into Ironwood (fixed denominations) and
 * shields transparent value, as mainnet does after NU6.3.
 *
 * Note commitment trees are real (merkle.ts): before the first block each
 * pool's tree is a deterministic synthetic frontier of INITIAL_TREES leaves
 * (a valid tree state, as if those leaves existed: made-up subtree roots);
 * every block appends its transactions' cmu / cmx in order and keeps a
 * snapshot of the three frontiers at its end (a few dozen nodes), so tree
 * states are served at every height, including the one before the first
 * block (`treeStateAt`), and a reorg rolls them back with the blocks.
 *
 * Not modelled: proofs, signatures and the transparent UTXO set (faucet
 * inputs spend made-up prevouts).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes } from "@noble/hashes/utils.js";
import type { Clock } from "../src/core/clock.js";
import { decodeZcashAddress } from "../src/chains/zcash/addresses.js";
import { bigintToLeBytes, bytesToHex, concatBytes, hexToBytes, leBytesToBigint, u32le } from "../src/chains/zcash/bytes.js";
import type { CompactBlock, CompactTx, PoolType } from "../src/chains/zcash/compact.js";
import { jubjubMul, saplingDiversifyHash } from "../src/chains/zcash/jubjub.js";
import type { ZcashNetwork } from "../src/chains/zcash/network.js";
import { decryptTransaction, encodeTextMemo, saplingNoteCommit, scanKeysFromUfvk, type FoundNote } from "../src/chains/zcash/note-decrypt.js";
import { saplingNullifier } from "../src/chains/zcash/nullifier.js";
import { PALLAS_P, prfExpand, toScalarSapling } from "../src/chains/zcash/prf.js";
import { saplingInternalDfvk } from "../src/chains/zcash/sapling-keys.js";
import { parseTransaction, type ParsedTx } from "../src/chains/zcash/tx-parse.js";
import { transactionId } from "../src/chains/zcash/txid.js";
import { ZCASH_POOLS, type ZcashPool } from "../src/chains/zcash/zebrad.js";
import { CommitmentTree, SAPLING_NODE_MODULUS, type TreePool } from "../src/chains/zcash/merkle.js";
import type { UnifiedFullViewingKey } from "../src/chains/zcash/zip316.js";
import { seededRandom } from "./seeded-random.js";
import {
  BRANCH_ID_NU6_2,
  BRANCH_ID_NU6_3,
  buildTx,
  coinbaseInput,
  encryptAction,
  encryptSapling,
  fillerInput,
  p2pkhScript,
  p2shScript,
  randomOrchardAddress,
  type TxParts,
} from "./zcash-sender.js";

export const DEVNET_ZCASH_NETWORK: ZcashNetwork = "testnet";
/** NU6.3 (Ironwood) activation on the devnet: the testnet height. */
export const DEVNET_ZCASH_NU63_HEIGHT = 4_134_000;
/** Blocks of history before NU6.3. */
export const DEVNET_ZCASH_PRE_NU63_BLOCKS = 10;
/** First block of the devnet chain. */
export const DEVNET_ZCASH_START_HEIGHT = DEVNET_ZCASH_NU63_HEIGHT - DEVNET_ZCASH_PRE_NU63_BLOCKS;
/** Block subsidy after the 2024 halving, zatoshi. */
export const DEVNET_ZCASH_SUBSIDY = 156_250_000n;
export const DEVNET_ZCASH_LOCKBOX_SHARE = (DEVNET_ZCASH_SUBSIDY * 12n) / 100n;
export const DEVNET_ZCASH_DIFFICULTY = 1.0203;
/** Largest single devnet payment: 21 million ZEC. */
export const DEVNET_ZCASH_MAX_SEND = 21_000_000n * 100_000_000n;
const ZAT = 100_000_000n;
/** Header and solution of a block, bytes (the transactions are added). */
const HEADER_BYTES = 1_487;

/** Testnet network upgrades (research zcash.md §5.4): branch id → name, activation height. */
export const DEVNET_ZCASH_UPGRADES: readonly [string, string, number][] = [
  ["76b809bb", "Sapling", 280_000],
  ["e9ff75a6", "Canopy", 1_028_500],
  ["c2d6d0b4", "NU5", 1_842_420],
  ["c8e71055", "NU6", 2_976_000],
  ["4dec4df0", "NU6.1", 3_536_500],
  ["5437f330", "NU6.2", 4_052_000],
  ["37a5165b", "NU6.3", DEVNET_ZCASH_NU63_HEIGHT],
];

/** Value pools before the first devnet block (about mainnet's proportions). */
const INITIAL_POOLS: Record<ZcashPool, bigint> = {
  transparent: 11_824_310n * ZAT + 12_500_000n,
  sprout: 25_412n * ZAT + 4_000_000n,
  sapling: 1_046_885n * ZAT + 77_000_000n,
  orchard: 3_911_204n * ZAT + 31_000_000n,
  lockbox: 289_687n * ZAT + 50_000_000n,
  ironwood: 0n,
};

/** Note commitment tree sizes before the first devnet block. */
const INITIAL_TREES = { sapling: 1_214_337, orchard: 648_201, ironwood: 0 };

/** The three note commitment trees (frontiers) at one point of the chain. */
export type DevnetZcashTrees = Record<TreePool, CommitmentTree>;

/**
 * A valid frontier of `size` leaves whose nodes are made up (deterministic
 * field elements): the legacy tree holds the last one or two leaves and one
 * complete left subtree per set bit of the rest, so that is all it takes.
 */
export function syntheticTree(pool: TreePool, size: number): CommitmentTree {
  const modulus = pool === "sapling" ? SAPLING_NODE_MODULUS : PALLAS_P;
  const made = (what: string) => bigintToLeBytes(leBytesToBigint(sha256(new TextEncoder().encode(`vigil-devnet-zcash-tree:${pool}:${what}`))) % modulus, 32);
  if (size === 0) return CommitmentTree.empty(pool);
  const pairs = size % 2 === 0 ? 2 : 1;
  const rest = size - pairs;
  const parents: (Uint8Array | null)[] = [];
  for (let i = 0; 2 ** (i + 1) <= rest; i++) parents.push(Math.floor(rest / 2 ** (i + 1)) % 2 === 1 ? made(`parent:${i}`) : null);
  return new CommitmentTree(CommitmentTree.empty(pool).hasher, made("left"), pairs === 2 ? made("right") : null, parents);
}

let initialTrees: DevnetZcashTrees | undefined;
/** The trees before the first devnet block (built once; callers clone before appending). */
export function devnetInitialTrees(): DevnetZcashTrees {
  initialTrees ??= { sapling: syntheticTree("sapling", INITIAL_TREES.sapling), orchard: syntheticTree("orchard", INITIAL_TREES.orchard), ironwood: syntheticTree("ironwood", INITIAL_TREES.ironwood) };
  return initialTrees;
}

/** The tree state at the end of a block (or before the first block: the all-zero hash its parent link names). */
export interface DevnetZcashTreeState {
  height: number;
  /** Display hex. */
  hash: string;
  time: number;
  trees: DevnetZcashTrees;
}

/** ZIP 318-style fixed migration denominations (zatoshi) and their weights. */
const DENOMINATIONS: readonly [bigint, number][] = [
  [ZAT / 100n, 2],
  [ZAT / 10n, 4],
  [ZAT, 6],
  [10n * ZAT, 5],
  [100n * ZAT, 3],
  [1_000n * ZAT, 1],
];

/** The miner's P2PKH key hash (coinbase outputs) and the faucet's (change of spends). */
export const DEVNET_ZCASH_MINER_HASH = sha256(new TextEncoder().encode("vigil-devnet-zcash-miner")).slice(0, 20);
export const DEVNET_ZCASH_FAUCET_HASH = sha256(new TextEncoder().encode("vigil-devnet-zcash-faucet")).slice(0, 20);

/** A refused devnet control request (bad address, amount, note…): answered 400 with this code. */
export class DevnetZcashError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "DevnetZcashError";
  }
}

export type DevnetZcashTxKind = "coinbase" | "payment" | "spend" | "background" | "submitted";

export interface DevnetZcashTx {
  /** Display hex (reversed ZIP 244 digest). */
  txid: string;
  raw: Uint8Array;
  parsed: ParsedTx;
  size: number;
  /** Unix seconds it was created. */
  time: number;
  fee: bigint;
  /** What the transaction does to each value pool (zatoshi; fees leave the transparent pool and return in the coinbase). */
  deltas: Partial<Record<ZcashPool, bigint>>;
  kind: DevnetZcashTxKind;
}

export interface DevnetZcashBlock {
  height: number;
  /** Display hex. */
  hash: string;
  previousHash: string;
  time: number;
  size: number;
  txs: DevnetZcashTx[];
  pools: Record<ZcashPool, bigint>;
  deltas: Record<ZcashPool, bigint>;
  /** Note commitment tree sizes at the end of the block. */
  trees: { sapling: number; orchard: number; ironwood: number };
  /** The note commitment trees at the end of the block (never changed once built). */
  commitmentTrees: DevnetZcashTrees;
}

export interface DevnetZcashSendResult {
  txid: string;
  address: string;
  pool: "transparent" | "sapling" | "orchard" | "ironwood";
  amount_zatoshi: string;
  fee_zatoshi: string;
  /** Height of the block that will include it. */
  height: number;
}

export interface DevnetZcashSpendResult {
  txid: string;
  pool: "sapling" | "orchard" | "ironwood";
  /** The spent note's nullifier, hex (as in the transaction). */
  nullifier: string;
  value_zatoshi: string;
  fee_zatoshi: string;
}

/** ZIP 317 conventional fee: 5000 zatoshi per logical action, at least two. */
export function zip317Fee(tx: ParsedTx): bigint {
  const logical =
    Math.max(tx.vin.length, tx.vout.length) +
    Math.max(tx.sapling.spends.length, tx.sapling.outputs.length) +
    (tx.orchard?.actions.length ?? 0) +
    (tx.ironwood?.actions.length ?? 0);
  return 5_000n * BigInt(Math.max(2, logical));
}

export const isCoinbase = (tx: ParsedTx): boolean => tx.vin.length === 1 && tx.vin[0]!.prevoutIndex === 0xffffffff && tx.vin[0]!.prevoutHash.every((b) => b === 0);
const reverseHex = (hex: string): Uint8Array => Uint8Array.from(hexToBytes(hex)).reverse();
const emptyMemo = () => encodeTextMemo("");

function shieldedDeltas(tx: ParsedTx): Partial<Record<ZcashPool, bigint>> {
  const d: Partial<Record<ZcashPool, bigint>> = {};
  if (tx.sapling.spends.length + tx.sapling.outputs.length > 0) d.sapling = -tx.sapling.valueBalance;
  if (tx.orchard) d.orchard = -tx.orchard.valueBalance;
  if (tx.ironwood) d.ironwood = -tx.ironwood.valueBalance;
  return d;
}

/** Receivers of background traffic and dummy outputs: a few throwaway keys, made once. */
let throwaway: Uint8Array[] | undefined;
let throwawayNext = 0;
function throwawayAddress(): Uint8Array {
  throwaway ??= Array.from({ length: 4 }, () => randomOrchardAddress());
  return throwaway[throwawayNext++ % throwaway.length]!;
}

export class DevnetZcashChain {
  readonly blocks: DevnetZcashBlock[] = [];
  mempool: DevnetZcashTx[] = [];
  /** Transactions of blocks a reorg replaced and did not re-mine (lightwalletd reports them "mined on a fork"). */
  readonly orphaned = new Map<string, DevnetZcashTx>();
  private timer: NodeJS.Timeout | undefined;
  private arrivals = 0;

  constructor(
    private readonly clock: Clock,
    private readonly blockSeconds: number,
  ) {}

  /** Builds `n` blocks of history ending now, spaced blockSeconds (1 s when mining by hand), with some background traffic. */
  open(n: number): void {
    if (this.blocks.length > 0) throw new Error("chain already open");
    const spacing = Math.max(this.blockSeconds, 1);
    const now = Math.floor(this.clock.now() / 1000);
    for (let i = n - 1; i >= 0; i--) {
      const time = now - i * spacing;
      // Background traffic in every fourth block of history: trial encryption is slow, and the chain opens at every start.
      this.build(time, this.blocks.length > 0 && this.blocks.length % 4 === 0 ? this.backgroundTxs(1, time) : []);
    }
    this.arrive(1);
  }

  /** Mines a block every blockSeconds (timer unref'd) until stopTimer. */
  startTimer(onError?: (e: unknown) => void): void {
    if (this.blockSeconds <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      try {
        this.mine(1);
      } catch (e) {
        onError?.(e);
      }
    }, this.blockSeconds * 1000);
    this.timer.unref();
  }

  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  tip(): DevnetZcashBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  byHeight(h: number): DevnetZcashBlock | undefined {
    const first = this.blocks[0]?.height ?? 0;
    return h >= first ? this.blocks[h - first] : undefined;
  }

  byHash(hash: string): DevnetZcashBlock | undefined {
    return this.blocks.find((b) => b.hash === hash);
  }

  /** The tree state at the end of block `height`; height first − 1 is the state the chain started from. */
  treeStateAt(height: number): DevnetZcashTreeState | undefined {
    const b = this.byHeight(height);
    if (b) return { height, hash: b.hash, time: b.time, trees: b.commitmentTrees };
    const first = this.blocks[0];
    if (first && height === first.height - 1) return { height, hash: first.previousHash, time: first.time - Math.max(this.blockSeconds, 1), trees: devnetInitialTrees() };
    return undefined;
  }

  /** Height of the next block, and so of the transactions built now. */
  nextHeight(): number {
    return this.tip().height + 1;
  }

  /** A transaction by display-hex txid: mined (with its block), in the mempool, or orphaned by a reorg. */
  findTx(txid: string): { tx: DevnetZcashTx; block?: DevnetZcashBlock; orphaned?: boolean } | undefined {
    const id = txid.toLowerCase();
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i]!;
      const tx = b.txs.find((t) => t.txid === id);
      if (tx) return { tx, block: b };
    }
    const m = this.mempool.find((t) => t.txid === id);
    if (m) return { tx: m };
    const o = this.orphaned.get(id);
    return o ? { tx: o, orphaned: true } : undefined;
  }

  /** Mines n blocks now: the first takes the whole mempool; background transactions arrive after each. */
  mine(n = 1): string[] {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const now = Math.max(Math.floor(this.clock.now() / 1000), this.tip().time + 1);
      const txs = this.mempool;
      this.mempool = [];
      out.push(this.build(now, txs).hash);
      this.arrive(Math.floor(seededRandom(this.tip().height ^ 0x5eed)() * 3));
    }
    return out;
  }

  /** Puts `count` background transactions in the mempool; returns their txids. */
  addMempoolTxs(count: number): string[] {
    return this.arrive(count).map((t) => t.txid);
  }

  /**
   * Replaces the newest `depth` blocks with as many new ones (same heights,
   * new hashes). Without `drop`, every non-coinbase transaction of the
   * replaced blocks is dropped; with it, only the listed txids are dropped and
   * the others are mined again in the first replacement block.
   */
  reorg(depth: number, drop?: string[]): { height: number; dropped: string[]; replaced: string[] } {
    if (!Number.isInteger(depth) || depth < 1 || depth >= this.blocks.length) throw new DevnetZcashError("invalid_depth", `depth must be 1..${this.blocks.length - 1}`);
    const removed = this.blocks.splice(this.blocks.length - depth, depth);
    const dropSet = drop ? new Set(drop.map((t) => t.toLowerCase())) : undefined;
    const txs = removed.flatMap((b) => b.txs.filter((t) => t.kind !== "coinbase"));
    const kept = dropSet ? txs.filter((t) => !dropSet.has(t.txid)) : [];
    const dropped = txs.filter((t) => !kept.includes(t));
    for (const t of dropped) this.orphaned.set(t.txid, t);
    const start = this.tip().time;
    for (let i = 0; i < depth; i++) this.build(Math.max(removed[i]!.time, start + i + 1) + 1, i === 0 ? kept : []);
    // Mempool transactions built for the old chain stay valid: same heights, same rules.
    return { height: this.tip().height, dropped: dropped.map((t) => t.txid), replaced: removed.map((b) => b.hash) };
  }

  /** Nullifiers revealed so far (mined and pending), per pool. */
  revealedNullifiers(pool: "sapling" | "orchard" | "ironwood"): Set<string> {
    const out = new Set<string>();
    const add = (t: DevnetZcashTx) => {
      if (pool === "sapling") for (const s of t.parsed.sapling.spends) out.add(bytesToHex(s.nullifier));
      else for (const a of t.parsed[pool]?.actions ?? []) out.add(bytesToHex(a.nullifier));
    };
    for (const b of this.blocks) b.txs.forEach(add);
    this.mempool.forEach(add);
    return out;
  }

  /**
   * Pays `zatoshi` to a testnet address: a unified address pays its Orchard
   * receiver (Ironwood note from NU6.3 on, Orchard before), else its Sapling
   * receiver, else its transparent one; a Sapling address gets a Sapling note;
   * a t-address a transparent output. The transaction goes to the mempool.
   */
  send(address: string, zatoshi: bigint, memo?: string): DevnetZcashSendResult {
    if (zatoshi <= 0n || zatoshi > DEVNET_ZCASH_MAX_SEND) throw new DevnetZcashError("invalid_amount", "amount must be more than 0 and at most 21,000,000 ZEC");
    const addr = decodeZcashAddress(address, DEVNET_ZCASH_NETWORK);
    const height = this.nextHeight();
    const v6 = height >= DEVNET_ZCASH_NU63_HEIGHT;
    let memoBytes: Uint8Array;
    try {
      memoBytes = memo === undefined ? emptyMemo() : encodeTextMemo(memo);
    } catch {
      throw new DevnetZcashError("invalid_memo", "A memo holds at most 512 bytes of UTF-8.");
    }
    const parts: TxParts = { vin: [fillerInput()], expiryHeight: height + 40 };
    let pool: DevnetZcashSendResult["pool"];
    const ua = addr.kind === "unified" ? addr.ua : undefined;
    if (ua?.orchard) {
      pool = v6 ? "ironwood" : "orchard";
      const spec = { outputs: [encryptAction(ua.orchard, zatoshi, memoBytes, v6 ? 0x03 : 0x02)], valueBalance: -zatoshi };
      if (v6) parts.ironwood = spec;
      else parts.orchard = spec;
    } else if (ua?.sapling || addr.kind === "sapling") {
      pool = "sapling";
      parts.sapling = [encryptSapling(ua?.sapling ?? (addr as { raw: Uint8Array }).raw, zatoshi, memoBytes)];
      parts.saplingValueBalance = -zatoshi;
    } else {
      if (memo !== undefined) throw new DevnetZcashError("memo_not_allowed", "A transparent output carries no memo.");
      pool = "transparent";
      const script = ua?.p2pkh ? p2pkhScript(ua.p2pkh) : ua?.p2sh ? p2shScript(ua.p2sh) : addr.kind === "p2pkh" ? p2pkhScript(addr.hash) : addr.kind === "p2sh" ? p2shScript(addr.hash) : undefined;
      if (!script) throw new DevnetZcashError("unsupported_address", "This address has no receiver the devnet can pay.");
      parts.vout = [{ value: zatoshi, script }];
    }
    const tx = this.finish(parts, height, "payment");
    this.mempool.push(tx);
    return { txid: tx.txid, address: addr.canonical, pool, amount_zatoshi: zatoshi.toString(), fee_zatoshi: tx.fee.toString(), height };
  }

  /**
   * Spends a note that `ufvk` received in transaction `txid` (mined): the new
   * transaction reveals the note's nullifier (Sapling: from nk and the note's
   * tree position; Orchard/Ironwood: from nk, ρ, ψ) in the note's pool and
   * sends its value, less the fee, to the faucet's transparent address.
   */
  spend(ufvk: UnifiedFullViewingKey, txid: string, pick: { pool?: "sapling" | "orchard" | "ironwood"; outputIndex?: number } = {}): DevnetZcashSpendResult {
    const found = this.findTx(txid);
    if (!found?.block) throw new DevnetZcashError("unknown_transaction", "No mined transaction with this txid on the devnet chain.");
    const block = found.block;
    const notes = decryptTransaction(found.tx.parsed, scanKeysFromUfvk(ufvk), block.height).filter(
      (n) => (pick.pool === undefined || n.pool === pick.pool) && (pick.outputIndex === undefined || n.outputIndex === pick.outputIndex),
    );
    const note = notes[0];
    if (!note) throw new DevnetZcashError("note_not_found", "This transaction pays no matching note to the wallet.");
    const nf = note.pool === "sapling" ? this.saplingNoteNullifier(ufvk, note, found.tx, block) : note.nullifier!;
    if (this.revealedNullifiers(note.pool).has(bytesToHex(nf))) throw new DevnetZcashError("note_spent", "This note is already spent.");
    const height = this.nextHeight();
    const v6 = height >= DEVNET_ZCASH_NU63_HEIGHT;
    if (note.pool === "ironwood" && !v6) throw new DevnetZcashError("invalid_pool", "Ironwood notes are spent from NU6.3 on.");
    const parts: TxParts = { expiryHeight: height + 40 };
    if (note.pool === "sapling") {
      parts.saplingSpends = [nf];
      parts.saplingValueBalance = note.value;
    } else {
      // The action's output is a zero-value dummy; its ρ is the spent note's nullifier.
      const spec = { outputs: [encryptAction(throwawayAddress(), 0n, emptyMemo(), note.pool === "ironwood" ? 0x03 : 0x02, undefined, nf)], valueBalance: note.value };
      parts[note.pool] = spec;
    }
    const fee = 10_000n;
    if (note.value <= fee) throw new DevnetZcashError("note_too_small", "The note does not cover the fee.");
    parts.vout = [{ value: note.value - fee, script: p2pkhScript(DEVNET_ZCASH_FAUCET_HASH) }];
    const tx = this.finish(parts, height, "spend");
    this.mempool.push(tx);
    return { txid: tx.txid, pool: note.pool, nullifier: bytesToHex(nf), value_zatoshi: note.value.toString(), fee_zatoshi: tx.fee.toString() };
  }

  /** A raw transaction from SendTransaction: parsed, deltas from its value balances, ZIP 317 fee assumed. */
  submit(raw: Uint8Array): DevnetZcashTx {
    const parsed = parseTransaction(raw);
    const txid = transactionId(parsed);
    if (this.findTx(txid) && !this.orphaned.has(txid)) throw new Error("transaction already known");
    const fee = zip317Fee(parsed);
    const d = shieldedDeltas(parsed);
    const shieldedOut = Object.values(d).reduce((s, v) => s - (v ?? 0n), 0n);
    const tx: DevnetZcashTx = { txid, raw, parsed, size: raw.length, time: Math.floor(this.clock.now() / 1000), fee, deltas: { ...d, transparent: shieldedOut - fee }, kind: "submitted" };
    this.orphaned.delete(txid);
    this.mempool.push(tx);
    return tx;
  }

  private saplingNoteNullifier(ufvk: UnifiedFullViewingKey, note: FoundNote, tx: DevnetZcashTx, block: DevnetZcashBlock): Uint8Array {
    const ext = ufvk.sapling!;
    const dfvk = note.scope === "external" ? ext : saplingInternalDfvk(ext);
    const keys = scanKeysFromUfvk(ufvk).sapling.find((k) => k.scope === note.scope)!;
    const gd = saplingDiversifyHash(note.diversifier)!;
    const pkd = jubjubMul(gd, keys.ivk);
    const rcm = note.leadByte === 0x02 ? toScalarSapling(prfExpand(note.rseed, Uint8Array.of(0x04))) : leBytesToBigint(note.rseed);
    const cm = saplingNoteCommit(gd, pkd, note.value, rcm);
    // Position: tree size before the block + Sapling outputs of the earlier transactions + index in this one.
    let before = block.trees.sapling;
    for (const t of block.txs) before -= t.parsed.sapling.outputs.length;
    for (const t of block.txs) {
      if (t === tx) break;
      before += t.parsed.sapling.outputs.length;
    }
    return saplingNullifier(dfvk.nk, cm, BigInt(before + note.outputIndex));
  }

  /**
   * Serializes with the branch of `height` and computes txid, ZIP 317 fee and
   * pool deltas. With transparent inputs, the (made-up) faucet input carries
   * the outputs, the value entering shielded pools and the fee; without, the
   * value leaving shielded pools must pay the outputs and the fee exactly.
   */
  private finish(parts: TxParts, height: number, kind: DevnetZcashTxKind): DevnetZcashTx {
    const v6 = height >= DEVNET_ZCASH_NU63_HEIGHT;
    const raw = buildTx(v6 ? 6 : 5, parts, v6 ? BRANCH_ID_NU6_3 : BRANCH_ID_NU6_2);
    const parsed = parseTransaction(raw);
    const fee = zip317Fee(parsed);
    const d = shieldedDeltas(parsed);
    const vout = parsed.vout.reduce((s, o) => s + o.value, 0n);
    const intoShielded = Object.values(d).reduce((s, v) => s + (v ?? 0n), 0n);
    let input = 0n;
    if (parsed.vin.length > 0) input = vout + intoShielded + fee;
    else if (-intoShielded !== vout + fee) throw new Error(`devnet transaction does not balance at the ZIP 317 fee ${fee}`);
    const deltas: Partial<Record<ZcashPool, bigint>> = { ...d, transparent: vout - input };
    return { txid: transactionId(parsed), raw, parsed, size: raw.length, time: Math.floor(this.clock.now() / 1000), fee, deltas, kind };
  }

  /** Background traffic: Orchard → Ironwood migration and shielding after NU6.3; shielding into Orchard before. */
  private backgroundTxs(count: number, time: number): DevnetZcashTx[] {
    const out: DevnetZcashTx[] = [];
    const height = this.nextHeight();
    for (let i = 0; i < count; i++) {
      const rand = seededRandom(height * 131 + this.arrivals++ * 7919 + time);
      const totalWeight = DENOMINATIONS.reduce((s, [, w]) => s + w, 0);
      let pick = rand() * totalWeight;
      let moved = DENOMINATIONS[0]![0];
      for (const [d, w] of DENOMINATIONS) {
        if (pick < w) {
          moved = d;
          break;
        }
        pick -= w;
      }
      const shield = rand() < 0.5 ? (BigInt(1 + Math.floor(rand() * 50)) * ZAT) / 10n : 0n;
      const parts: TxParts = { expiryHeight: height + 40 };
      if (height >= DEVNET_ZCASH_NU63_HEIGHT) {
        const orchardLeft = (this.blocks.length ? this.tip().pools.orchard : INITIAL_POOLS.orchard) - this.pendingOrchardOutflow();
        // Two logical actions (one Orchard, one Ironwood; the faucet input adds none): 10,000 zatoshi.
        const fee = 10_000n;
        if (moved + fee > orchardLeft) moved = 0n;
        const shielded = shield > 0n || moved === 0n ? (shield > 0n ? shield : ZAT / 10n) : 0n;
        // The migration's fee comes out of Orchard; with a faucet input, the faucet pays it.
        if (moved > 0n) parts.orchard = { outputs: [encryptAction(throwawayAddress(), 0n, emptyMemo(), 0x02)], valueBalance: moved + (shielded > 0n ? 0n : fee) };
        if (shielded > 0n) parts.vin = [fillerInput()];
        parts.ironwood = { outputs: [encryptAction(throwawayAddress(), moved + shielded, emptyMemo(), 0x03)], valueBalance: -(moved + shielded) };
      } else {
        parts.vin = [fillerInput()];
        const amount = shield > 0n ? shield : ZAT / 10n;
        parts.orchard = { outputs: [encryptAction(throwawayAddress(), amount, emptyMemo(), 0x02)], valueBalance: -amount };
      }
      const tx = this.finish(parts, height, "background");
      tx.time = time;
      out.push(tx);
    }
    return out;
  }

  private pendingOrchardOutflow(): bigint {
    return this.mempool.reduce((s, t) => s - (t.deltas.orchard ?? 0n), 0n);
  }

  private arrive(count: number): DevnetZcashTx[] {
    const added = this.backgroundTxs(count, Math.floor(this.clock.now() / 1000));
    this.mempool.push(...added);
    return added;
  }

  private build(time: number, txs: DevnetZcashTx[]): DevnetZcashBlock {
    const prev = this.blocks[this.blocks.length - 1];
    const height = prev ? prev.height + 1 : DEVNET_ZCASH_START_HEIGHT;
    const v6 = height >= DEVNET_ZCASH_NU63_HEIGHT;
    const fees = txs.reduce((s, t) => s + t.fee, 0n);
    const coinbaseRaw = buildTx(v6 ? 6 : 5, { vin: [coinbaseInput(height)], vout: [{ value: DEVNET_ZCASH_SUBSIDY - DEVNET_ZCASH_LOCKBOX_SHARE + fees, script: p2pkhScript(DEVNET_ZCASH_MINER_HASH) }], expiryHeight: height }, v6 ? BRANCH_ID_NU6_3 : BRANCH_ID_NU6_2);
    const coinbaseParsed = parseTransaction(coinbaseRaw);
    const coinbase: DevnetZcashTx = {
      txid: transactionId(coinbaseParsed),
      raw: coinbaseRaw,
      parsed: coinbaseParsed,
      size: coinbaseRaw.length,
      time,
      fee: 0n,
      deltas: { transparent: DEVNET_ZCASH_SUBSIDY - DEVNET_ZCASH_LOCKBOX_SHARE + fees },
      kind: "coinbase",
    };
    const all = [coinbase, ...txs];
    const pools = { ...(prev ? prev.pools : INITIAL_POOLS) };
    pools.lockbox += DEVNET_ZCASH_LOCKBOX_SHARE;
    for (const t of all) for (const [p, v] of Object.entries(t.deltas)) pools[p as ZcashPool] += v!;
    const before = prev ? prev.pools : INITIAL_POOLS;
    const deltas = {} as Record<ZcashPool, bigint>;
    for (const p of ZCASH_POOLS) deltas[p] = pools[p] - before[p];
    const trees = { ...(prev ? prev.trees : INITIAL_TREES) };
    for (const t of all) {
      trees.sapling += t.parsed.sapling.outputs.length;
      trees.orchard += t.parsed.orchard?.actions.length ?? 0;
      trees.ironwood += t.parsed.ironwood?.actions.length ?? 0;
    }
    // Appending is O(1) hashes per leaf (amortized); the frontiers are copied, never rebuilt.
    const before0 = prev ? prev.commitmentTrees : devnetInitialTrees();
    const commitmentTrees: DevnetZcashTrees = { sapling: before0.sapling.clone(), orchard: before0.orchard.clone(), ironwood: before0.ironwood.clone() };
    for (const t of all) {
      for (const o of t.parsed.sapling.outputs) commitmentTrees.sapling.append(o.cmu);
      for (const a of t.parsed.orchard?.actions ?? []) commitmentTrees.orchard.append(a.cmx);
      for (const a of t.parsed.ironwood?.actions ?? []) commitmentTrees.ironwood.append(a.cmx);
    }
    const previousHash = prev ? prev.hash : "00".repeat(32);
    // A header-like preimage: version, parent, a Merkle-like commitment to the txids, time, nonce.
    const txCommit = sha256(concatBytes(...all.map((t) => reverseHex(t.txid))));
    const header = concatBytes(u32le(v6 ? 5 : 4), reverseHex(previousHash), txCommit, u32le(time), u32le(height), randomBytes(32));
    const hash = bytesToHex(Uint8Array.from(sha256(sha256(header))).reverse());
    const size = HEADER_BYTES + all.reduce((s, t) => s + t.size, 0);
    const block: DevnetZcashBlock = { height, hash, previousHash, time, size, txs: all, pools, deltas, trees, commitmentTrees };
    this.blocks.push(block);
    return block;
  }
}

// ---- compact forms (lightwalletd) ----

const ALL_SHIELDED: PoolType[] = ["sapling", "orchard", "ironwood"];

/**
 * The compact form of a transaction, keeping only the requested pools
 * (default Sapling + Orchard + Ironwood; "transparent" adds vin and vout,
 * coinbase inputs excluded). Null when nothing requested is left.
 */
export function compactTx(tx: DevnetZcashTx, index: number, pools: PoolType[] = ALL_SHIELDED): CompactTx | null {
  const p = tx.parsed;
  const want = new Set(pools.length ? pools : ALL_SHIELDED);
  const action = (a: { nullifier: Uint8Array; cmx: Uint8Array; ephemeralKey: Uint8Array; encCiphertext: Uint8Array }) => ({
    nullifier: a.nullifier,
    cmx: a.cmx,
    ephemeralKey: a.ephemeralKey,
    ciphertext: a.encCiphertext.subarray(0, 52),
  });
  const c: CompactTx = {
    index,
    txid: reverseHex(tx.txid),
    fee: Number(tx.fee),
    spends: want.has("sapling") ? p.sapling.spends.map((s) => ({ nf: s.nullifier })) : [],
    outputs: want.has("sapling") ? p.sapling.outputs.map((o) => ({ cmu: o.cmu, ephemeralKey: o.ephemeralKey, ciphertext: o.encCiphertext.subarray(0, 52) })) : [],
    actions: want.has("orchard") ? (p.orchard?.actions ?? []).map(action) : [],
    ironwoodActions: want.has("ironwood") ? (p.ironwood?.actions ?? []).map(action) : [],
    vin: want.has("transparent") && !isCoinbase(p) ? p.vin.map((i) => ({ prevoutTxid: i.prevoutHash, prevoutIndex: i.prevoutIndex })) : [],
    vout: want.has("transparent") ? p.vout.map((o) => ({ value: o.value, scriptPubKey: o.scriptPubKey })) : [],
  };
  const any = c.spends.length + c.outputs.length + c.actions.length + c.ironwoodActions.length + c.vin.length + c.vout.length;
  return any > 0 ? c : null;
}

export function compactBlock(b: DevnetZcashBlock, pools?: PoolType[]): CompactBlock {
  return {
    height: b.height,
    hash: reverseHex(b.hash),
    prevHash: reverseHex(b.previousHash),
    time: b.time,
    vtx: b.txs.map((t, i) => compactTx(t, i, pools)).filter((t): t is CompactTx => t !== null),
    chainMetadata: { saplingCommitmentTreeSize: b.trees.sapling, orchardCommitmentTreeSize: b.trees.orchard, ironwoodCommitmentTreeSize: b.trees.ironwood },
  };
}

