/**
 * Binary transaction and block parsing (prefix + RingCT base; the prunable
 * part is only hashed), plus the same ScanTx from monerod's decoded JSON.
 * Layouts: cryptonote_basic.h (transaction_prefix, block_header, txin/txout
 * variants), rctTypes.h (serialize_rctsig_base). All entry points return a
 * ParseResult and never throw. The FCMP++/Carrot format (fork v17, sources in
 * carrot/constants.ts) adds the output txout_to_carrot_v1 (tag 0x00: K_o,
 * 3-byte view tag, 16-byte encrypted anchor), RingCT type 7 whose base is laid
 * out as type 6's (fee, 8-byte amounts, outPk), and in blocks the FCMP++ tree
 * (layer count, root) after tx_hashes; carrot/tx.ts turns such a ScanTx into enotes.
 */
import { FCMP_PLUS_PLUS_MAX_LAYERS, HF_VERSION_FCMP_PLUS_PLUS, JANUS_ANCHOR_BYTES, RCT_TYPE_FCMP_PLUS_PLUS, TXOUT_TAG, VIEW_TAG_BYTES } from "./carrot/constants.js";
import { keccak } from "./crypto.js";
import { ByteReader, ParseError, bytesToHex, concatBytes, encodeVarint, hexToBytesStrict } from "./encoding.js";
import type { DaemonTxJson, JsonU64, ParseResult, ParsedBlock, ScanOutput, ScanTx } from "./types.js";

const TXIN_GEN = 0xff;
const TXIN_TO_KEY = 0x02;
const TXOUT_TO_KEY = TXOUT_TAG.toKey;
const TXOUT_TO_TAGGED_KEY = TXOUT_TAG.taggedKey;
const TXOUT_TO_CARROT_V1 = TXOUT_TAG.carrotV1;
/** Highest RingCT type this parser knows (6 = BulletproofPlus, 7 = FcmpPlusPlus). */
export const MAX_RCT_TYPE = RCT_TYPE_FCMP_PLUS_PLUS;
const ZERO32 = new Uint8Array(32);

interface ParsedTxInternal {
  tx: ScanTx;
  /** Byte offsets: prefix end, rct base end (= prunable start). */
  prefixEnd: number;
  baseEnd: number;
  /** Number of ring members per input (v1 signature size). */
  ringSizes: number[];
}

function readPrefix(r: ByteReader): { tx: ScanTx; ringSizes: number[] } {
  const version = r.varintNumber(0xffff);
  if (version !== 1 && version !== 2) throw new ParseError(`unsupported transaction version ${version}`);
  const unlockTime = r.varint();
  const nIn = r.varintNumber(r.remaining);
  let isCoinbase = false;
  let coinbaseHeight: bigint | undefined;
  const keyImages: string[] = [];
  const ringSizes: number[] = [];
  for (let i = 0; i < nIn; i++) {
    const tag = r.byte();
    if (tag === TXIN_GEN) {
      if (nIn !== 1) throw new ParseError("a gen input must be the only input");
      isCoinbase = true;
      coinbaseHeight = r.varint();
      ringSizes.push(0);
    } else if (tag === TXIN_TO_KEY) {
      r.varint(); // amount (0 for RingCT)
      const n = r.varintNumber(r.remaining);
      for (let j = 0; j < n; j++) r.varint();
      keyImages.push(bytesToHex(r.take(32)));
      ringSizes.push(n);
    } else {
      throw new ParseError(`unsupported input type 0x${tag.toString(16)}`);
    }
  }
  const nOut = r.varintNumber(r.remaining);
  const outputs: ScanOutput[] = [];
  for (let i = 0; i < nOut; i++) {
    const amount = r.varint();
    const tag = r.byte();
    if (tag === TXOUT_TO_KEY) {
      outputs.push({ amount, publicKey: Uint8Array.from(r.take(32)) });
    } else if (tag === TXOUT_TO_TAGGED_KEY) {
      const publicKey = Uint8Array.from(r.take(32));
      outputs.push({ amount, publicKey, viewTag: r.byte() });
    } else if (tag === TXOUT_TO_CARROT_V1) {
      const publicKey = Uint8Array.from(r.take(32));
      const viewTag = Uint8Array.from(r.take(VIEW_TAG_BYTES));
      outputs.push({ amount, publicKey, carrot: { viewTag, encryptedAnchor: Uint8Array.from(r.take(JANUS_ANCHOR_BYTES)) } });
    } else {
      throw new ParseError(`unsupported output type 0x${tag.toString(16)}`);
    }
  }
  const extraLen = r.varintNumber(r.remaining);
  const extra = Uint8Array.from(r.take(extraLen));
  const tx: ScanTx = { txid: "", version, extra, isCoinbase, unlockTime, rctType: 0, fee: 0n, outputs, keyImages };
  if (coinbaseHeight !== undefined) tx.coinbaseHeight = coinbaseHeight;
  return { tx, ringSizes };
}

function readRctBase(r: ByteReader, tx: ScanTx, nInputs: number): void {
  const type = r.byte();
  tx.rctType = type;
  if (type === 0) return;
  if (type > MAX_RCT_TYPE) throw new ParseError(`unknown RingCT type ${type}`);
  tx.fee = r.varint();
  if (type === 2) r.take(32 * nInputs); // pseudoOuts (RCTTypeSimple keeps them in the base)
  for (const out of tx.outputs) {
    if (type >= 4) {
      out.encryptedAmount = Uint8Array.from(r.take(8));
    } else {
      out.encryptedMaskV1 = Uint8Array.from(r.take(32));
      out.encryptedAmountV1 = Uint8Array.from(r.take(32));
    }
  }
  for (const out of tx.outputs) out.commitment = Uint8Array.from(r.take(32));
}

/** Parses one transaction starting at r.pos. `inBlock`: stop after the RingCT base of a coinbase. */
function readTransaction(r: ByteReader, inBlock: boolean): ParsedTxInternal {
  const start = r.pos;
  const { tx, ringSizes } = readPrefix(r);
  const prefixEnd = r.pos;
  if (tx.version === 1) {
    // v1: ring signatures follow, 64 bytes per ring member of each input; amounts are clear.
    if (!inBlock || !tx.isCoinbase) r.take(ringSizes.reduce((a, n) => a + 64 * n, 0));
    return { tx, prefixEnd: prefixEnd - start, baseEnd: r.pos - start, ringSizes };
  }
  readRctBase(r, tx, ringSizes.length);
  if (inBlock && tx.rctType !== 0) throw new ParseError("a block's miner transaction must have RingCT type 0");
  return { tx, prefixEnd: prefixEnd - start, baseEnd: r.pos - start, ringSizes };
}

/** Transaction hash from the full blob; "" when the blob is pruned (the prunable hash is unknown). */
function transactionHash(blob: Uint8Array, parsed: ParsedTxInternal): string {
  if (parsed.tx.version === 1) return bytesToHex(keccak(blob));
  const prefix = blob.subarray(0, parsed.prefixEnd);
  const base = blob.subarray(parsed.prefixEnd, parsed.baseEnd);
  const prunable = blob.subarray(parsed.baseEnd);
  let prunableHash: Uint8Array;
  if (parsed.tx.rctType === 0) prunableHash = ZERO32;
  else if (prunable.length === 0) return "";
  else prunableHash = keccak(prunable);
  return bytesToHex(keccak(concatBytes(keccak(prefix), keccak(base), prunableHash)));
}

function failure(e: unknown): { ok: false; error: string } {
  return { ok: false, error: e instanceof Error ? e.message : String(e) };
}

/**
 * A serialized transaction (full or pruned). For a full blob the prunable
 * part is only hashed (for the txid). For a v1 transaction the blob must end
 * after its signatures.
 */
export function parseTransactionBlob(bytes: Uint8Array): ParseResult<ScanTx> {
  try {
    if (!(bytes instanceof Uint8Array)) return { ok: false, error: "not bytes" };
    const r = new ByteReader(bytes);
    const parsed = readTransaction(r, false);
    if (parsed.tx.version === 1 && r.remaining !== 0) return { ok: false, error: "trailing bytes after a v1 transaction" };
    if (parsed.tx.version === 2 && parsed.tx.rctType === 0 && r.remaining !== 0) {
      return { ok: false, error: "trailing bytes after a RingCT type 0 transaction" };
    }
    parsed.tx.txid = transactionHash(bytes, parsed);
    return { ok: true, value: parsed.tx };
  } catch (e) {
    return failure(e);
  }
}

/** Monero's tree_hash (crypto/tree-hash.c) over 32-byte hashes. */
export function treeHash(hashes: Uint8Array[]): Uint8Array {
  const n = hashes.length;
  if (n === 0) throw new RangeError("tree hash of nothing");
  if (n === 1) return hashes[0]!;
  if (n === 2) return keccak(concatBytes(hashes[0]!, hashes[1]!));
  let cnt = 1;
  while (cnt * 2 < n) cnt *= 2; // largest power of two below n
  const ints: Uint8Array[] = hashes.slice(0, 2 * cnt - n);
  for (let i = 2 * cnt - n; i < n; i += 2) ints.push(keccak(concatBytes(hashes[i]!, hashes[i + 1]!)));
  let level = ints;
  while (level.length > 2) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(keccak(concatBytes(level[i]!, level[i + 1]!)));
    level = next;
  }
  return keccak(concatBytes(level[0]!, level[1]!));
}

/**
 * Mainnet block 202612 was accepted with a hash computed by a buggy tree hash;
 * Monero hard-codes the id the network uses for it (calculate_block_hash).
 */
const BLOCK_202612_COMPUTED = "426d16cff04c71f8b16340b722dc4010a2dd3831c22041431f772547ba6e331a";
const BLOCK_202612_ID = "bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698";

/** The FCMP++ tree a block carries from fork v17 on. */
export interface FcmpTree {
  nTreeLayers: number;
  treeRoot: Uint8Array;
}

/**
 * Block id: Keccak(varint(len) ‖ header ‖ tree_hash(miner tx, txs) ‖ varint(n_tx + 1)).
 * From v17 the tree hash starts with the FCMP++ layer count (as a 32-byte
 * word) and tree root (get_block_content_hash); the count stays n_tx + 1.
 */
export function blockHash(headerBytes: Uint8Array, minerTxHash: Uint8Array, txHashes: Uint8Array[], fcmp?: FcmpTree): string {
  const layers = new Uint8Array(32);
  if (fcmp) layers[0] = fcmp.nTreeLayers;
  const leaves = fcmp ? [layers, fcmp.treeRoot, minerTxHash, ...txHashes] : [minerTxHash, ...txHashes];
  const hashingBlob = concatBytes(headerBytes, treeHash(leaves), encodeVarint(txHashes.length + 1));
  const id = bytesToHex(keccak(concatBytes(encodeVarint(hashingBlob.length), hashingBlob)));
  return id === BLOCK_202612_COMPUTED ? BLOCK_202612_ID : id;
}

function readFcmpTree(r: ByteReader): FcmpTree {
  const nTreeLayers = r.byte();
  if (nTreeLayers > FCMP_PLUS_PLUS_MAX_LAYERS) throw new ParseError(`FCMP++ tree of ${nTreeLayers} layers (at most ${FCMP_PLUS_PLUS_MAX_LAYERS})`);
  return { nTreeLayers, treeRoot: Uint8Array.from(r.take(32)) };
}

/** A serialized block: header, miner transaction (scanned like any tx), and the hashes of its other transactions. */
export function parseBlockBlob(bytes: Uint8Array): ParseResult<ParsedBlock> {
  try {
    if (!(bytes instanceof Uint8Array)) return { ok: false, error: "not bytes" };
    const r = new ByteReader(bytes);
    const majorVersion = r.varintNumber(0xff);
    const minorVersion = r.varintNumber(0xff);
    const timestamp = r.varint();
    const prevId = bytesToHex(r.take(32));
    const nonceBytes = r.take(4);
    const nonce = new DataView(nonceBytes.buffer, nonceBytes.byteOffset, 4).getUint32(0, true);
    const headerEnd = r.pos;
    const txStart = r.pos;
    const parsed = readTransaction(r, true);
    const minerBlob = bytes.subarray(txStart, r.pos);
    if (!parsed.tx.isCoinbase) return { ok: false, error: "the block's first transaction is not a coinbase" };
    parsed.tx.txid = transactionHash(minerBlob, parsed);
    const n = r.varintNumber(Math.floor(r.remaining / 32));
    const hashes: Uint8Array[] = [];
    for (let i = 0; i < n; i++) hashes.push(Uint8Array.from(r.take(32)));
    const fcmp = majorVersion >= HF_VERSION_FCMP_PLUS_PLUS ? readFcmpTree(r) : undefined;
    if (r.remaining !== 0) return { ok: false, error: "trailing bytes after block" };
    const hash = blockHash(bytes.subarray(0, headerEnd), hexToBytesStrict(parsed.tx.txid)!, hashes, fcmp);
    const value: ParsedBlock = { majorVersion, minorVersion, timestamp, prevId, nonce, minerTx: parsed.tx, txHashes: hashes.map(bytesToHex), hash };
    if (fcmp) value.fcmpTree = { nTreeLayers: fcmp.nTreeLayers, treeRoot: bytesToHex(fcmp.treeRoot) };
    return { ok: true, value };
  } catch (e) {
    return failure(e);
  }
}

// ---------------------------------------------------------------------------
// monerod decoded JSON (as_json of /get_transactions, miner_tx of get_block)

function u64(v: unknown, what: string): bigint {
  if (typeof v === "bigint") {
    if (v < 0n || v >= 1n << 64n) throw new ParseError(`${what} out of u64 range`);
    return v;
  }
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) throw new ParseError(`${what} is not an exact non-negative integer`);
    return BigInt(v);
  }
  if (typeof v === "string" && /^[0-9]{1,20}$/.test(v)) {
    const b = BigInt(v);
    if (b >= 1n << 64n) throw new ParseError(`${what} out of u64 range`);
    return b;
  }
  throw new ParseError(`${what} is not a u64`);
}

function hexField(v: unknown, len: number, what: string): Uint8Array {
  const b = typeof v === "string" ? hexToBytesStrict(v) : null;
  if (!b || b.length !== len) throw new ParseError(`${what} must be ${2 * len} hex characters`);
  return b;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function arrayField(v: unknown, what: string, optional = false): unknown[] {
  if (v === undefined && optional) return []; // epee omits empty arrays
  if (!Array.isArray(v)) throw new ParseError(`${what} must be an array`);
  return v;
}

/** A txout_to_carrot_v1 target as decode_as_json renders it: {"key", "view_tag", "encrypted_janus_anchor"}, hex blobs. */
function carrotTargetFromJson(t: Record<string, unknown>, i: number): Pick<ScanOutput, "publicKey" | "carrot"> {
  return {
    publicKey: hexField(t.key, 32, `vout[${i}].key`),
    carrot: {
      viewTag: hexField(t.view_tag, VIEW_TAG_BYTES, `vout[${i}].view_tag`),
      encryptedAnchor: hexField(t.encrypted_janus_anchor, JANUS_ANCHOR_BYTES, `vout[${i}].encrypted_janus_anchor`),
    },
  };
}

/**
 * monerod's decoded transaction (object, or the JSON text of `as_json`) →
 * ScanTx. u64 fields may be numbers (exact only), bigints or decimal strings.
 */
export function txFromDaemonJson(json: unknown, txid = ""): ParseResult<ScanTx> {
  try {
    const j: unknown = typeof json === "string" ? JSON.parse(json) : json;
    if (!isObject(j)) return { ok: false, error: "transaction JSON must be an object" };
    const version = Number(u64(j.version, "version"));
    if (version !== 1 && version !== 2) return { ok: false, error: `unsupported transaction version ${version}` };
    const unlockTime = u64(j.unlock_time, "unlock_time");
    const vin = arrayField(j.vin, "vin");
    let isCoinbase = false;
    let coinbaseHeight: bigint | undefined;
    const keyImages: string[] = [];
    for (const input of vin) {
      if (!isObject(input)) throw new ParseError("vin entry must be an object");
      if (isObject(input.gen)) {
        if (vin.length !== 1) throw new ParseError("a gen input must be the only input");
        isCoinbase = true;
        coinbaseHeight = u64(input.gen.height, "gen.height");
      } else if (isObject(input.key)) {
        keyImages.push(bytesToHex(hexField(input.key.k_image, 32, "k_image")));
      } else {
        throw new ParseError("unsupported input type");
      }
    }
    const outputs: ScanOutput[] = arrayField(j.vout, "vout").map((o, i) => {
      if (!isObject(o) || !isObject(o.target)) throw new ParseError(`vout[${i}] malformed`);
      const amount = u64(o.amount, `vout[${i}].amount`);
      const t = o.target;
      if (isObject(t.tagged_key)) {
        const tag = hexField(t.tagged_key.view_tag, 1, `vout[${i}].view_tag`);
        return { amount, publicKey: hexField(t.tagged_key.key, 32, `vout[${i}].key`), viewTag: tag[0]! };
      }
      if (typeof t.key === "string") return { amount, publicKey: hexField(t.key, 32, `vout[${i}].key`) };
      if (isObject(t.carrot_v1)) return { amount, ...carrotTargetFromJson(t.carrot_v1, i) };
      throw new ParseError(`vout[${i}] has an unsupported target`);
    });
    const extraArr = arrayField(j.extra, "extra", true);
    const extra = new Uint8Array(extraArr.length);
    extraArr.forEach((b, i) => {
      if (typeof b !== "number" || !Number.isInteger(b) || b < 0 || b > 255) throw new ParseError(`extra[${i}] is not a byte`);
      extra[i] = b;
    });
    const tx: ScanTx = { txid, version, extra, isCoinbase, unlockTime, rctType: 0, fee: 0n, outputs, keyImages };
    if (coinbaseHeight !== undefined) tx.coinbaseHeight = coinbaseHeight;
    if (version === 2) {
      const rct = j.rct_signatures;
      if (!isObject(rct)) throw new ParseError("rct_signatures missing");
      const type = Number(u64(rct.type, "rct_signatures.type"));
      if (type > MAX_RCT_TYPE) throw new ParseError(`unknown RingCT type ${type}`);
      tx.rctType = type;
      if (type !== 0) {
        tx.fee = u64(rct.txnFee, "txnFee");
        const ecdh = arrayField(rct.ecdhInfo, "ecdhInfo", true);
        const outPk = arrayField(rct.outPk, "outPk", true);
        if (ecdh.length !== outputs.length || outPk.length !== outputs.length) {
          throw new ParseError("ecdhInfo/outPk must have one entry per output");
        }
        outputs.forEach((out, i) => {
          const e = ecdh[i];
          if (!isObject(e)) throw new ParseError(`ecdhInfo[${i}] malformed`);
          if (type >= 4) {
            out.encryptedAmount = hexField(e.amount, 8, `ecdhInfo[${i}].amount`);
          } else {
            out.encryptedMaskV1 = hexField(e.mask, 32, `ecdhInfo[${i}].mask`);
            out.encryptedAmountV1 = hexField(e.amount, 32, `ecdhInfo[${i}].amount`);
          }
          out.commitment = hexField(outPk[i], 32, `outPk[${i}]`);
        });
      }
    }
    return { ok: true, value: tx };
  } catch (e) {
    return failure(e);
  }
}

/** Narrowing helper for callers holding `DaemonTxJson` (kept for type-directed use). */
export function daemonJsonToScanTx(json: DaemonTxJson, txid = ""): ParseResult<ScanTx> {
  return txFromDaemonJson(json, txid);
}

export type { JsonU64 };
