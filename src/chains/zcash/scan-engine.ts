/**
 * The pure Zcash scanning engine (research/zcash.md §4.5, §4.6): compact
 * blocks in, each watch's notes and spends out. No I/O: the scanner
 * (scanner.ts) fetches blocks and full transactions and calls in here.
 *
 * Per block, for the watches that stand right before it, transaction by
 * transaction in block order:
 *   1. spends first: Sapling spend nullifiers, Orchard action nullifiers and
 *      Ironwood action nullifiers are looked up, each in the nullifier set
 *      of its own pool only (an Orchard nullifier never spends an Ironwood
 *      note), and transparent inputs by their outpoint;
 *   2. then outputs: every Sapling output, Orchard action and Ironwood
 *      action is trial-decrypted for all those watches at once through the
 *      batch functions (batch-decrypt.ts) with the external and internal
 *      keys; a note counts only when its commitment recomputes (checked by
 *      the decryption). Sapling notes get their tree position from the
 *      block's ChainMetadata (end-of-block tree size minus the block's
 *      Sapling outputs, plus the output's place among them) and from it
 *      their nullifier; Orchard/Ironwood notes carry theirs from the
 *      decryption. Transparent P2PKH outputs are matched against the UFVK's
 *      external chain, within the gap limit past the last used index (the
 *      window moves as addresses are used).
 * Malformed compact data never throws out of here: a transaction that
 * cannot be read is skipped as a whole, an output that does not decrypt is
 * not ours.
 */
import { batchTryAction, batchTrySapling, prepareKeys, type PreparedKeys } from "./batch-decrypt.js";
import { bytesToHex, leBytesToBigint } from "./bytes.js";
import type { CompactBlock, CompactTx } from "./compact.js";
import { jubjubExtract, jubjubMul, saplingDiversifyHash } from "./jubjub.js";
import { decodeMemo, saplingNoteCommit, type DecodedMemo, type DecryptedNote } from "./note-decrypt.js";
import { saplingNullifier } from "./nullifier.js";
import { prfExpand, toScalarSapling } from "./prf.js";
import { addNote, markScanned, type StoredNote, type ZcashPool, type ZcashScanState } from "./scan-state.js";
import { parseTransaction, type ParsedTx } from "./tx-parse.js";
import type { TransparentChain, WatchKeys } from "./watch-keys.js";

/** Default transparent gap limit: addresses tNext … tNext + gap − 1 are watched. */
export const TRANSPARENT_GAP_LIMIT = 20;

/** One watch as the engine sees it during one pass. */
export interface EngineWatch {
  keys: WatchKeys;
  state: ZcashScanState;
}

/** A note found in this pass, whose memo the scanner may fetch. */
export interface FoundNote {
  watch: EngineWatch;
  note: StoredNote;
}

/** Display hex of a protocol-order hash (txids and block hashes are shown reversed). */
export const displayHex = (protocol: Uint8Array): string => bytesToHex(Uint8Array.from(protocol).reverse());

/** The outpoint key of a transparent output: protocol-order txid hex ‖ index. */
const outpointKey = (txidProtocolHex: string, index: number): string => `${txidProtocolHex}${index.toString(16).padStart(8, "0")}`;

/**
 * Who is waiting for which nullifier / outpoint / P2PKH hash in this pass.
 * Built from the watches' unspent notes and transparent chains, and kept
 * current as notes are found.
 */
export class SpendIndex {
  /** `${pool}:${nf}` → unspent notes. */
  private readonly nfs = new Map<string, FoundNote[]>();
  /** P2PKH hash hex → (watch, address index); a watch is added when a transparent output is first looked up for it. */
  private readonly p2pkh = new Map<string, { watch: EngineWatch; index: number }[]>();
  private readonly indexed = new Set<EngineWatch>();
  private readonly indexedFor = new WeakSet<ReadonlySet<EngineWatch>>();

  constructor(
    watches: readonly EngineWatch[],
    private readonly gapLimit = TRANSPARENT_GAP_LIMIT,
  ) {
    for (const w of watches) for (const n of w.state.notes) if (!n.spent && n.nf) this.addNote(w, n);
  }

  /** Derives the transparent window of the watches not indexed yet (only now: most blocks need none). */
  private indexAll(ready: ReadonlySet<EngineWatch>): void {
    if (this.indexedFor.has(ready)) return;
    for (const w of ready) {
      if (this.indexed.has(w)) continue;
      this.indexed.add(w);
      let t: TransparentChain | undefined;
      try {
        t = w.keys.transparent;
      } catch {
        continue; // a key that does not decode receives nothing (the scanner reports it)
      }
      if (!t) continue;
      t.ensure(w.state.tNext + this.gapLimit);
      for (const [hash, index] of t.byHash) if (index < w.state.tNext + this.gapLimit) this.addHash(w, hash, index);
    }
    this.indexedFor.add(ready);
  }

  addNote(watch: EngineWatch, note: StoredNote): void {
    if (!note.nf) return;
    const key = `${note.pool}:${note.nf}`;
    const list = this.nfs.get(key) ?? [];
    list.push({ watch, note });
    this.nfs.set(key, list);
  }

  private addHash(watch: EngineWatch, hash: string, index: number): void {
    const list = this.p2pkh.get(hash) ?? [];
    if (!list.some((x) => x.watch === watch)) list.push({ watch, index });
    this.p2pkh.set(hash, list);
  }

  /** Marks the notes of the `ready` watches that this nullifier spends. */
  spend(pool: ZcashPool, nf: string, ready: ReadonlySet<EngineWatch>, at: { height: number; txid: string }): void {
    const key = `${pool}:${nf}`;
    const list = this.nfs.get(key);
    if (!list) return;
    const rest: FoundNote[] = [];
    for (const x of list) {
      if (ready.has(x.watch) && !x.note.spent) x.note.spent = { ...at };
      else rest.push(x);
    }
    if (rest.length > 0) this.nfs.set(key, rest);
    else this.nfs.delete(key);
  }

  /** The unspent notes of `watches` that this nullifier (or outpoint) would spend; nothing is marked. */
  spenders(pool: ZcashPool, nf: string, watches: ReadonlySet<EngineWatch>): FoundNote[] {
    return (this.nfs.get(`${pool}:${nf}`) ?? []).filter((x) => watches.has(x.watch) && !x.note.spent);
  }

  /** The ready watches a P2PKH hash pays. */
  payees(hash: string, ready: ReadonlySet<EngineWatch>): { watch: EngineWatch; index: number }[] {
    this.indexAll(ready);
    return (this.p2pkh.get(hash) ?? []).filter((x) => ready.has(x.watch));
  }

  /** A transparent address at `index` was used: moves the watch's gap window. */
  used(watch: EngineWatch, index: number): void {
    if (index < watch.state.tNext) return;
    watch.state.tNext = index + 1;
    if (!this.indexed.has(watch)) return; // indexed (with the moved window) when first looked up
    const t = watch.keys.transparent;
    if (!t) return;
    t.ensure(watch.state.tNext + this.gapLimit);
    for (const [hash, i] of t.byHash) if (i < watch.state.tNext + this.gapLimit) this.addHash(watch, hash, i);
  }
}

/** P2PKH script: OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG → the 20-byte hash. */
export function p2pkhHashOf(script: Uint8Array): Uint8Array | null {
  return script.length === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[2] === 0x14 && script[23] === 0x88 && script[24] === 0xac
    ? script.subarray(3, 23)
    : null;
}

/** The Sapling note commitment point of a decrypted note (to derive its nullifier). */
function saplingCm(note: DecryptedNote, ivk: bigint) {
  const gd = saplingDiversifyHash(note.diversifier);
  if (!gd) return null;
  const rcm = note.leadByte === 0x02 ? toScalarSapling(prfExpand(note.rseed, Uint8Array.of(0x04))) : leBytesToBigint(note.rseed);
  return saplingNoteCommit(gd, jubjubMul(gd, ivk), note.value, rcm);
}

/** Sapling nullifier of a note at `position`, or null when the keys or the position are missing. */
export function saplingNoteNullifier(keys: WatchKeys, note: DecryptedNote, position: number | null, cmu?: Uint8Array): string | null {
  if (position === null || !keys.sapling) return null;
  const k = keys.sapling[note.scope];
  const cm = saplingCm(note, k.ivk);
  if (!cm) return null;
  if (cmu && bytesToHex(jubjubExtract(cm)) !== bytesToHex(cmu)) return null;
  return bytesToHex(saplingNullifier(k.nk, cm, BigInt(position)));
}

function storedFrom(note: DecryptedNote, txid: string, index: number, height: number, nf: string | null): StoredNote {
  return {
    pool: note.pool,
    txid,
    index,
    value: note.value.toString(),
    height,
    scope: note.scope,
    di: note.diversifierIndex !== undefined ? note.diversifierIndex.toString() : null,
    nf,
    spent: null,
  };
}

/**
 * Prepared keys for a set of watches, reused while the same set scans
 * consecutive blocks (the common case: every watch at the tip).
 */
export class PreparedKeyCache {
  private lastIds = "";
  private last: PreparedKeys | null = null;

  for(watches: readonly EngineWatch[]): PreparedKeys {
    const ids = watches.map((w) => w.keys.id).join(",");
    if (ids !== this.lastIds || !this.last) {
      this.last = prepareKeys(watches.map((w) => w.keys.scan));
      this.lastIds = ids;
    }
    return this.last;
  }
}

/** Prepared keys, or a function building them on first need (a block without shielded outputs needs none). */
export type LazyPreparedKeys = PreparedKeys | (() => PreparedKeys);

const lazy = (p: LazyPreparedKeys): (() => PreparedKeys) => {
  if (typeof p !== "function") return () => p;
  let built: PreparedKeys | undefined;
  return () => (built ??= p());
};

/** What a set of compact transactions needs from the watches' keys. */
export function keysNeeded(txs: readonly CompactTx[]): { shielded: boolean; p2pkh: boolean } {
  let shielded = false;
  let p2pkh = false;
  try {
    for (const tx of txs) {
      if ((tx.outputs?.length ?? 0) > 0 || (tx.actions?.length ?? 0) > 0 || (tx.ironwoodActions?.length ?? 0) > 0) shielded = true;
      if (!p2pkh) for (const o of tx.vout ?? []) if (o.scriptPubKey instanceof Uint8Array && p2pkhHashOf(o.scriptPubKey)) p2pkh = true;
      if (shielded && p2pkh) break;
    }
  } catch {
    // Malformed data: assume everything is needed; the engine skips what it cannot read.
    return { shielded: true, p2pkh: true };
  }
  return { shielded, p2pkh };
}

/** Total Sapling outputs of a block (for the tree position of its first output). */
function saplingOutputsIn(block: CompactBlock): number {
  let n = 0;
  for (const tx of block.vtx) n += tx.outputs?.length ?? 0;
  return n;
}

/**
 * Scans one mined block for the `ready` watches (each standing at
 * block.height − 1) and marks it scanned for them. Returns the new notes.
 */
export function scanBlock(
  block: CompactBlock,
  ready: readonly EngineWatch[],
  index: SpendIndex,
  preparedKeys: LazyPreparedKeys,
  reorgWindow: number,
): FoundNote[] {
  const prepared = lazy(preparedKeys);
  const found: FoundNote[] = [];
  const readySet = new Set(ready);
  const height = block.height;
  let saplingPos: number | null = null;
  try {
    const total = saplingOutputsIn(block);
    const end = block.chainMetadata?.saplingCommitmentTreeSize;
    // A server that does not fill ChainMetadata sends 0: positions (and Sapling spends) are then unknown.
    if (Number.isSafeInteger(end) && end! >= total && (end! > 0 || total === 0)) saplingPos = end! - total;
  } catch {
    saplingPos = null;
  }
  for (const tx of block.vtx) {
    const consumed = scanTx(tx, height, ready, readySet, index, prepared, saplingPos, found);
    if (saplingPos !== null) saplingPos += consumed;
  }
  const hash = displayHex(block.hash);
  for (const w of ready) markScanned(w.state, { height, hash }, reorgWindow);
  return found;
}

/** Scans one mined transaction; returns the number of Sapling outputs it holds (for positions). */
function scanTx(
  tx: CompactTx,
  height: number,
  ready: readonly EngineWatch[],
  readySet: ReadonlySet<EngineWatch>,
  index: SpendIndex,
  prepared: () => PreparedKeys,
  saplingPos: number | null,
  found: FoundNote[],
): number {
  let outputs = 0;
  try {
    outputs = tx.outputs.length;
    const txidProtocol = bytesToHex(tx.txid);
    const txid = displayHex(tx.txid);
    const at = { height, txid };
    // 1. Spends, each pool in its own nullifier set.
    for (const s of tx.spends) index.spend("sapling", bytesToHex(s.nf), readySet, at);
    for (const a of tx.actions) index.spend("orchard", bytesToHex(a.nullifier), readySet, at);
    for (const a of tx.ironwoodActions ?? []) index.spend("ironwood", bytesToHex(a.nullifier), readySet, at);
    for (const i of tx.vin ?? []) index.spend("transparent", outpointKey(bytesToHex(i.prevoutTxid), i.prevoutIndex), readySet, at);
    // 2. Outputs.
    const record = (w: EngineWatch, note: StoredNote) => {
      if (addNote(w.state, note)) {
        index.addNote(w, note);
        found.push({ watch: w, note });
      }
    };
    tx.outputs.forEach((out, i) => {
      for (const hit of batchTrySapling(prepared(), { cmu: out.cmu, ephemeralKey: out.ephemeralKey, ciphertext: out.ciphertext }, height)) {
        const w = ready[hit.watch]!;
        const nf = saplingNoteNullifier(w.keys, hit.note, saplingPos === null ? null : saplingPos + i, out.cmu);
        record(w, storedFrom(hit.note, txid, i, height, nf));
      }
    });
    for (const pool of ["orchard", "ironwood"] as const) {
      const actions = pool === "orchard" ? tx.actions : (tx.ironwoodActions ?? []);
      actions.forEach((a, i) => {
        for (const hit of batchTryAction(prepared(), pool, { nullifier: a.nullifier, cmx: a.cmx, ephemeralKey: a.ephemeralKey, ciphertext: a.ciphertext })) {
          const w = ready[hit.watch]!;
          record(w, storedFrom(hit.note, txid, i, height, hit.note.nullifier ? bytesToHex(hit.note.nullifier) : null));
        }
      });
    }
    (tx.vout ?? []).forEach((o, i) => {
      const h = p2pkhHashOf(o.scriptPubKey);
      if (!h || typeof o.value !== "bigint" || o.value < 0n) return;
      for (const { watch, index: addrIndex } of index.payees(bytesToHex(h), readySet)) {
        record(watch, {
          pool: "transparent",
          txid,
          index: i,
          value: o.value.toString(),
          height,
          scope: "external",
          di: String(addrIndex),
          nf: outpointKey(txidProtocol, i),
          spent: null,
        });
        index.used(watch, addrIndex);
      }
    });
  } catch {
    // Malformed compact data: the transaction is skipped, the scan goes on.
  }
  return Number.isSafeInteger(outputs) ? outputs : 0;
}

/** A note seen in the mempool (not stored: reported as pending while it stays there). */
export interface PendingNote {
  note: StoredNote;
}

/**
 * Trial-decrypts mempool transactions for the watches. Pending notes have
 * height −1 in the StoredNote shape (the snapshot reports them as height null).
 */
export function scanMempoolTx(
  tx: CompactTx,
  watches: readonly EngineWatch[],
  preparedKeys: LazyPreparedKeys,
  index: SpendIndex,
  /** The height the transaction would be mined at (tip + 1): decides the Sapling lead bytes allowed. */
  height?: number,
): { watch: number; note: StoredNote }[] {
  const hits: { watch: number; note: StoredNote }[] = [];
  const prepared = lazy(preparedKeys);
  try {
    const txid = displayHex(tx.txid);
    const txidProtocol = bytesToHex(tx.txid);
    tx.outputs.forEach((out, i) => {
      for (const hit of batchTrySapling(prepared(), { cmu: out.cmu, ephemeralKey: out.ephemeralKey, ciphertext: out.ciphertext }, height)) {
        hits.push({ watch: hit.watch, note: storedFrom(hit.note, txid, i, -1, null) });
      }
    });
    for (const pool of ["orchard", "ironwood"] as const) {
      const actions = pool === "orchard" ? tx.actions : (tx.ironwoodActions ?? []);
      actions.forEach((a, i) => {
        for (const hit of batchTryAction(prepared(), pool, { nullifier: a.nullifier, cmx: a.cmx, ephemeralKey: a.ephemeralKey, ciphertext: a.ciphertext }))
          hits.push({ watch: hit.watch, note: storedFrom(hit.note, txid, i, -1, null) });
      });
    }
    const all = new Set(watches);
    (tx.vout ?? []).forEach((o, i) => {
      const h = p2pkhHashOf(o.scriptPubKey);
      if (!h || typeof o.value !== "bigint" || o.value < 0n) return;
      for (const { watch, index: addrIndex } of index.payees(bytesToHex(h), all)) {
        hits.push({
          watch: watches.indexOf(watch),
          note: { pool: "transparent", txid, index: i, value: o.value.toString(), height: -1, scope: "external", di: String(addrIndex), nf: outpointKey(txidProtocol, i), spent: null },
        });
      }
    });
  } catch {
    // Malformed: nothing pending from this transaction.
  }
  return hits;
}

/**
 * The mined notes of `watches` that a mempool transaction spends (Sapling spend, Orchard and
 * Ironwood action nullifiers, each in its own pool; transparent inputs by outpoint). Nothing is
 * marked: the spend counts only once mined. Needs no keys, only the notes' stored nullifiers.
 */
export function mempoolSpendsOf(tx: CompactTx, watches: ReadonlySet<EngineWatch>, index: SpendIndex): FoundNote[] {
  const out: FoundNote[] = [];
  try {
    for (const s of tx.spends) out.push(...index.spenders("sapling", bytesToHex(s.nf), watches));
    for (const a of tx.actions) out.push(...index.spenders("orchard", bytesToHex(a.nullifier), watches));
    for (const a of tx.ironwoodActions ?? []) out.push(...index.spenders("ironwood", bytesToHex(a.nullifier), watches));
    for (const i of tx.vin ?? []) out.push(...index.spenders("transparent", outpointKey(bytesToHex(i.prevoutTxid), i.prevoutIndex), watches));
  } catch {
    // Malformed: no pending spend from this transaction.
  }
  return out;
}

/**
 * The memo of a note from its full transaction: the 580-byte ciphertext of
 * the same output, decrypted with the watch's keys (through the batch
 * functions). undefined when the transaction does not parse or the output
 * does not decrypt to the same note.
 */
export function memoFromTransaction(raw: Uint8Array, note: StoredNote, keys: WatchKeys, height?: number): DecodedMemo | undefined {
  if (note.pool === "transparent") return null;
  let tx: ParsedTx;
  try {
    tx = parseTransaction(raw);
  } catch {
    return undefined;
  }
  try {
    const prepared = prepareKeys([keys.scan]);
    let hits;
    if (note.pool === "sapling") {
      const o = tx.sapling.outputs[note.index];
      if (!o) return undefined;
      hits = batchTrySapling(prepared, { cmu: o.cmu, ephemeralKey: o.ephemeralKey, ciphertext: o.encCiphertext }, height);
    } else {
      const a = tx[note.pool]?.actions[note.index];
      if (!a) return undefined;
      hits = batchTryAction(prepared, note.pool, { nullifier: a.nullifier, cmx: a.cmx, ephemeralKey: a.ephemeralKey, ciphertext: a.encCiphertext });
    }
    const hit = hits[0];
    if (!hit || hit.note.value.toString() !== note.value || !hit.note.memo) return undefined;
    return decodeMemo(hit.note.memo);
  } catch {
    return undefined;
  }
}
