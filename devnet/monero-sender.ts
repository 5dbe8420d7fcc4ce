/**
 * Devnet Monero sender: builds transactions with real sender-side
 * cryptography (cryptonote_tx_utils.cpp construct_tx_with_tx_key), so that a
 * view-key watch finds them exactly as it would on mainnet:
 *   random r; R = r·G, or r·D when the only destination is one subaddress;
 *   one additional key per output (r_i·G or r_i·D) when subaddresses are mixed
 *   with other destinations; derivation 8·r·V; one-time key Hs(D‖i)·G + B;
 *   view tags; 8-byte encrypted amounts; commitments mask·G + amount·H;
 *   encrypted payment id for an integrated destination (or a dummy, as wallets do).
 * Inputs (key images, ring members) and the prunable part (BP+ proof, CLSAGs,
 * pseudo-outputs) are simulated with random data of the right shape: nothing
 * on the view-key side verifies them. The result is RingCT type 6, serialized
 * both as monerod's binary blob and as its `as_json` JSON.
 */
import { randomBytes } from "node:crypto";
import { decodeAddress } from "../src/chains/monero/address.js";
import { commit, commitmentMask, encryptAmountV2 } from "../src/chains/monero/amount.js";
import {
  L,
  decodePoint,
  deriveViewTag,
  derivationToScalar,
  keccak,
  mulBase,
  mulPoint,
  scalarFromBytes,
  scalarToBytes,
} from "../src/chains/monero/crypto.js";
import { bytesToHex, concatBytes, encodeVarint } from "../src/chains/monero/encoding.js";
import { extraAdditionalKeysField, extraNonceField, extraPubkeyField, NONCE_ENCRYPTED_PAYMENT_ID } from "../src/chains/monero/extra.js";
import { cryptPaymentId } from "../src/chains/monero/scan.js";
import { blockHash } from "../src/chains/monero/tx-binary.js";
import type { DaemonTxJson, DecodedAddress } from "../src/chains/monero/types.js";

export type RandomSource = (n: number) => Uint8Array;

export interface MoneroDestination {
  address: string;
  amount: bigint;
}

export interface BuildTransferOptions {
  destinations: MoneroDestination[];
  /** Defaults to node:crypto randomBytes; pass a seeded source for reproducible tests. */
  rng?: RandomSource;
  unlockTime?: bigint;
  /** txnFee in piconero (default 30,000,000 = 0.00003 XMR). */
  fee?: bigint;
  /** Simulated inputs (default 1) and ring size (default 16). */
  inputs?: number;
  ringSize?: number;
  /** Add the dummy encrypted payment id wallets attach to 2-output txs without an integrated destination (default true). */
  dummyPaymentId?: boolean;
  /** Test hook: force per-output additional keys even when not needed. */
  forceAdditionalKeys?: boolean;
}

export interface BuiltOutput {
  address: string;
  amount: bigint;
  outputIndex: number;
  /** One-time public key (Carrot: K_o), hex. */
  publicKey: string;
  /** The legacy 1-byte view tag as a number; a Carrot enote's 3-byte view tag as hex. */
  viewTag: number | string;
}

export interface BuiltMoneroTx {
  txid: string;
  blob: Uint8Array;
  hex: string;
  /** Pruned blob (prefix + RingCT base), as `pruned_as_hex`. */
  prunedHex: string;
  prunableHex: string;
  /** Keccak of the prunable part (`prunable_hash`); zeros for coinbase. */
  prunableHash: string;
  /** monerod's decoded JSON (u64 fields as bigint). */
  json: DaemonTxJson;
  /** The same as monerod's `as_json` text (u64 fields as bare integers). */
  asJson: string;
  txPublicKey: string;
  additionalPublicKeys: string[];
  outputs: BuiltOutput[];
  unlockTime: bigint;
  fee: bigint;
}

const defaultRng: RandomSource = (n) => new Uint8Array(randomBytes(n));

/** A uniformly random non-zero scalar (64 random bytes reduced mod l). */
export function randomScalar(rng: RandomSource = defaultRng): bigint {
  for (;;) {
    const b = rng(64);
    let v = 0n;
    for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
    const s = v % L;
    if (s !== 0n) return s;
  }
}

/** Deterministic RandomSource for tests: Keccak in counter mode over a seed. */
export function seededRng(seed: string | Uint8Array): RandomSource {
  const seedBytes = typeof seed === "string" ? new TextEncoder().encode(seed) : seed;
  let counter = 0;
  let buf: Uint8Array = new Uint8Array(0);
  return (n) => {
    while (buf.length < n) {
      buf = concatBytes(buf, keccak(concatBytes(seedBytes, encodeVarint(counter++))));
    }
    const out = buf.slice(0, n);
    buf = buf.slice(n);
    return out;
  };
}

function decodeDestination(address: string): DecodedAddress {
  const d = decodeAddress(address);
  if (!d.ok) throw new RangeError(`bad destination address: ${d.error}`);
  return d.value;
}

function randomPointBytes(rng: RandomSource): Uint8Array {
  return mulBase(randomScalar(rng)).toBytes();
}

function derivation8(secret: bigint, pub: Uint8Array): Uint8Array {
  const P = decodePoint(pub);
  if (!P) throw new RangeError("destination key is not a valid point");
  return mulPoint(P, secret).clearCofactor().toBytes();
}

const u8len = (n: number) => encodeVarint(n);

// -------------------------------------------------------------------------
// Serialization of the parts

interface TxIn {
  gen?: bigint;
  key?: { amount: bigint; keyOffsets: bigint[]; keyImage: Uint8Array };
}
interface TxOut {
  amount: bigint;
  key: Uint8Array;
  viewTag: number;
}

function serializePrefix(version: number, unlockTime: bigint, vin: TxIn[], vout: TxOut[], extra: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [encodeVarint(version), encodeVarint(unlockTime), u8len(vin.length)];
  for (const i of vin) {
    if (i.gen !== undefined) parts.push(Uint8Array.of(0xff), encodeVarint(i.gen));
    else {
      const k = i.key!;
      parts.push(Uint8Array.of(0x02), encodeVarint(k.amount), u8len(k.keyOffsets.length), ...k.keyOffsets.map((o) => encodeVarint(o)), k.keyImage);
    }
  }
  parts.push(u8len(vout.length));
  for (const o of vout) parts.push(encodeVarint(o.amount), Uint8Array.of(0x03), o.key, Uint8Array.of(o.viewTag));
  parts.push(u8len(extra.length), extra);
  return concatBytes(...parts);
}

/** A Bulletproof+ of the right shape (random points and scalars): types 6 and 7 both carry one. */
export interface SimulatedBulletproofPlus {
  A: Uint8Array;
  A1: Uint8Array;
  B: Uint8Array;
  r1: Uint8Array;
  s1: Uint8Array;
  d1: Uint8Array;
  L: Uint8Array[];
  R: Uint8Array[];
}

interface SimulatedPrunable {
  bpp: SimulatedBulletproofPlus;
  clsags: { s: Uint8Array[]; c1: Uint8Array; D: Uint8Array }[];
  pseudoOuts: Uint8Array[];
}

export function simulateBulletproofPlus(rng: RandomSource, nOutputs: number): SimulatedBulletproofPlus {
  const sc = () => scalarToBytes(randomScalar(rng));
  const pt = () => randomPointBytes(rng);
  let padded = 1;
  while (padded < nOutputs) padded *= 2;
  const rounds = 6 + Math.log2(padded); // log2(64 · padded outputs)
  return { A: pt(), A1: pt(), B: pt(), r1: sc(), s1: sc(), d1: sc(), L: Array.from({ length: rounds }, pt), R: Array.from({ length: rounds }, pt) };
}

/** Random points, e.g. pseudo-outputs. */
export function simulatePoints(rng: RandomSource, n: number): Uint8Array[] {
  return Array.from({ length: n }, () => randomPointBytes(rng));
}

function simulatePrunable(rng: RandomSource, nInputs: number, ringSize: number, nOutputs: number): SimulatedPrunable {
  const sc = () => scalarToBytes(randomScalar(rng));
  const pt = () => randomPointBytes(rng);
  return {
    bpp: simulateBulletproofPlus(rng, nOutputs),
    clsags: Array.from({ length: nInputs }, () => ({ s: Array.from({ length: ringSize }, sc), c1: sc(), D: pt() })),
    pseudoOuts: simulatePoints(rng, nInputs),
  };
}

/** The BP+ part of the prunable serialization: nbp = 1, then the proof (rctTypes.h rctSigPrunable). */
export function serializeBulletproofPlus(b: SimulatedBulletproofPlus): Uint8Array {
  return concatBytes(u8len(1), b.A, b.A1, b.B, b.r1, b.s1, b.d1, u8len(b.L.length), ...b.L, u8len(b.R.length), ...b.R);
}

function serializePrunable(p: SimulatedPrunable): Uint8Array {
  return concatBytes(serializeBulletproofPlus(p.bpp), ...p.clsags.flatMap((c) => [...c.s, c.c1, c.D]), ...p.pseudoOuts);
}

/** The BP+ as `rctsig_prunable` shows it: `nbp` and `bpp`. */
export function bulletproofPlusJson(b: SimulatedBulletproofPlus): { nbp: number; bpp: Record<string, string | string[]>[] } {
  return {
    nbp: 1,
    bpp: [{ A: bytesToHex(b.A), A1: bytesToHex(b.A1), B: bytesToHex(b.B), r1: bytesToHex(b.r1), s1: bytesToHex(b.s1), d1: bytesToHex(b.d1), L: b.L.map(bytesToHex), R: b.R.map(bytesToHex) }],
  };
}

/** JSON text with bigint fields written as bare integers, as monerod writes u64s. */
export function stringifyDaemonJson(value: unknown): string {
  const marker = "@@vigil-u64@@";
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${marker}${v.toString()}` : v), 2);
  return text.replace(new RegExp(`"${marker}(\\d+)"`, "g"), "$1");
}

/** The built transaction from its three parts: txid = H(H(prefix) ‖ H(RingCT base) ‖ prunable hash), zeros for a coinbase's prunable hash. */
export function finishTx(
  prefix: Uint8Array,
  base: Uint8Array,
  prunable: Uint8Array,
  json: DaemonTxJson,
  rest: Omit<BuiltMoneroTx, "txid" | "blob" | "hex" | "prunedHex" | "prunableHex" | "prunableHash" | "json" | "asJson">,
  isCoinbase: boolean,
): BuiltMoneroTx {
  const prunableHash = isCoinbase ? new Uint8Array(32) : keccak(prunable);
  const txid = bytesToHex(keccak(concatBytes(keccak(prefix), keccak(base), prunableHash)));
  const blob = concatBytes(prefix, base, prunable);
  return {
    txid,
    blob,
    hex: bytesToHex(blob),
    prunedHex: bytesToHex(concatBytes(prefix, base)),
    prunableHex: bytesToHex(prunable),
    prunableHash: bytesToHex(prunableHash),
    json,
    asJson: stringifyDaemonJson(json),
    ...rest,
  };
}

/** A destination with its decoded address. */
type Destination = MoneroDestination & { decoded: DecodedAddress };

/** The outputs of a transfer: one-time keys, encrypted amounts, commitments, and the additional keys when needed. */
interface TransferOutputs {
  additional: Uint8Array[];
  vout: TxOut[];
  ecdh: Uint8Array[];
  outPk: Uint8Array[];
  outputs: BuiltOutput[];
}

/** A RingCT type 6 transfer paying each destination (standard, integrated or subaddress). */
export function buildTransfer(opts: BuildTransferOptions): BuiltMoneroTx {
  const rng = opts.rng ?? defaultRng;
  const dests = checkedDestinations(opts.destinations);
  const nSub = dests.filter((d) => d.decoded.kind === "subaddress").length;
  const nStd = dests.length - nSub;
  const needAdditional = opts.forceAdditionalKeys === true || (nSub > 0 && (nStd > 0 || nSub > 1));
  const fee = opts.fee ?? 30_000_000n;
  const unlockTime = opts.unlockTime ?? 0n;
  const nInputs = opts.inputs ?? 1;
  const ringSize = opts.ringSize ?? 16;

  const r = randomScalar(rng);
  const singleSub = nStd === 0 && nSub === 1 ? dests[0]!.decoded : null;
  const R = singleSub ? mulPoint(decodePoint(singleSub.spendPublicKey)!, r) : mulBase(r);
  const RBytes = R.toBytes();
  const out = transferOutputs(dests, r, needAdditional, rng);
  const pidField = paymentIdField(dests, r, opts.dummyPaymentId !== false);
  const extra = concatBytes(
    extraPubkeyField(RBytes),
    ...(pidField ? [extraNonceField(pidField)] : []),
    ...(out.additional.length ? [extraAdditionalKeysField(out.additional)] : []),
  );
  const vin = simulateInputs(rng, nInputs, ringSize);

  const prefix = serializePrefix(2, unlockTime, vin, out.vout, extra);
  const base = concatBytes(Uint8Array.of(6), encodeVarint(fee), ...out.ecdh, ...out.outPk);
  const prunable = simulatePrunable(rng, nInputs, ringSize, dests.length);
  const json: DaemonTxJson = {
    version: 2,
    unlock_time: unlockTime,
    vin: vin.map((i) => ({ key: { amount: i.key!.amount, key_offsets: i.key!.keyOffsets, k_image: bytesToHex(i.key!.keyImage) } })),
    vout: out.vout.map((o) => ({ amount: 0n, target: { tagged_key: { key: bytesToHex(o.key), view_tag: o.viewTag.toString(16).padStart(2, "0") } } })),
    extra: [...extra],
    rct_signatures: {
      type: 6,
      txnFee: fee,
      ecdhInfo: out.ecdh.map((e) => ({ amount: bytesToHex(e) })),
      outPk: out.outPk.map(bytesToHex),
    },
    rctsig_prunable: prunableJson(prunable),
  };
  return finishTx(
    prefix,
    base,
    serializePrunable(prunable),
    json,
    { txPublicKey: bytesToHex(RBytes), additionalPublicKeys: out.additional.map(bytesToHex), outputs: out.outputs, unlockTime, fee },
    false,
  );
}

/** Decodes the destinations, refusing what monerod's wallet refuses: bad amounts, none or over 16, mixed networks, two integrated addresses. */
function checkedDestinations(destinations: MoneroDestination[]): Destination[] {
  const dests = destinations.map((d) => {
    if (typeof d.amount !== "bigint" || d.amount < 0n || d.amount >= 1n << 64n) throw new RangeError("amount must be a u64 bigint");
    return { ...d, decoded: decodeDestination(d.address) };
  });
  if (dests.length === 0) throw new RangeError("at least one destination");
  if (dests.length > 16) throw new RangeError("at most 16 outputs (BULLETPROOF_PLUS_MAX_OUTPUTS)");
  const network = dests[0]!.decoded.network;
  if (dests.some((d) => d.decoded.network !== network)) throw new RangeError("destinations on different networks");
  if (dests.filter((d) => d.decoded.kind === "integrated").length > 1) throw new RangeError("at most one integrated-address destination per transaction");
  return dests;
}

/** Each output's one-time key Hs(8·r·V‖i)·G + B, view tag, encrypted amount and commitment (with r_i per output when additional keys are needed). */
function transferOutputs(dests: Destination[], r: bigint, needAdditional: boolean, rng: RandomSource): TransferOutputs {
  const out: TransferOutputs = { additional: [], vout: [], ecdh: [], outPk: [], outputs: [] };
  dests.forEach((d, i) => {
    let derivation: Uint8Array;
    if (needAdditional) {
      const ri = randomScalar(rng);
      const base = d.decoded.kind === "subaddress" ? decodePoint(d.decoded.spendPublicKey)! : null;
      out.additional.push((base ? mulPoint(base, ri) : mulBase(ri)).toBytes());
      derivation = d.decoded.kind === "subaddress" ? derivation8(ri, d.decoded.viewPublicKey) : derivation8(r, d.decoded.viewPublicKey);
    } else {
      derivation = derivation8(r, d.decoded.viewPublicKey);
    }
    const s = derivationToScalar(derivation, i);
    const P = mulBase(s).add(decodePoint(d.decoded.spendPublicKey)!).toBytes();
    const viewTag = deriveViewTag(derivation, i);
    const k = scalarToBytes(s);
    out.vout.push({ amount: 0n, key: P, viewTag });
    out.ecdh.push(encryptAmountV2(d.amount, k));
    out.outPk.push(commit(commitmentMask(k), d.amount).toBytes());
    out.outputs.push({ address: d.address, amount: d.amount, outputIndex: i, publicKey: bytesToHex(P), viewTag });
  });
  return out;
}

/** Payment id: the integrated destination's, else a dummy zero id for 2-output txs (as wallet2 does); null for none. */
function paymentIdField(dests: Destination[], r: bigint, dummy: boolean): Uint8Array | null {
  const integrated = dests.find((d) => d.decoded.kind === "integrated");
  const pidTarget = integrated ?? (dummy && dests.length === 2 ? dests.find((d) => d.decoded.kind !== "subaddress") ?? null : null);
  if (!pidTarget) return null;
  const pid = pidTarget.decoded.paymentId ?? new Uint8Array(8);
  const D = derivation8(r, pidTarget.decoded.viewPublicKey);
  return concatBytes(Uint8Array.of(NONCE_ENCRYPTED_PAYMENT_ID), cryptPaymentId(pid, D));
}

/** Inputs of the right shape: random ring offsets (the first one absolute, far up the chain) and a random key image. */
function simulateInputs(rng: RandomSource, nInputs: number, ringSize: number): TxIn[] {
  return Array.from({ length: nInputs }, () => {
    const offsets: bigint[] = [];
    for (let j = 0; j < ringSize; j++) {
      const b = rng(4);
      offsets.push(j === 0 ? 80_000_000n + BigInt(b[0]! | (b[1]! << 8) | (b[2]! << 16)) : BigInt(1 + (b[0]! | (b[1]! << 8))));
    }
    return { key: { amount: 0n, keyOffsets: offsets, keyImage: randomPointBytes(rng) } };
  });
}

/** The prunable part as monerod's `rctsig_prunable`. */
function prunableJson(prunable: SimulatedPrunable): DaemonTxJson["rctsig_prunable"] {
  return {
    ...bulletproofPlusJson(prunable.bpp),
    CLSAGs: prunable.clsags.map((c) => ({ s: c.s.map(bytesToHex), c1: bytesToHex(c.c1), D: bytesToHex(c.D) })),
    pseudoOuts: prunable.pseudoOuts.map(bytesToHex),
  };
}

export interface BuildCoinbaseOptions {
  /** One or more payouts (P2Pool-style coinbases pay many); standard addresses, as monerod requires. */
  destinations: MoneroDestination[];
  height: bigint | number;
  rng?: RandomSource;
  /** Extra nonce bytes (pools put their own data here). */
  extraNonce?: Uint8Array;
}

/** CRYPTONOTE_MINED_MONEY_UNLOCK_WINDOW */
export const MINED_MONEY_UNLOCK_WINDOW = 60n;

/** A v2 miner transaction (RingCT type 0, clear amounts, tagged keys, unlock at height + 60). */
export function buildCoinbase(opts: BuildCoinbaseOptions): BuiltMoneroTx {
  const rng = opts.rng ?? defaultRng;
  const height = BigInt(opts.height);
  const dests = opts.destinations.map((d) => ({ ...d, decoded: decodeDestination(d.address) }));
  if (dests.length === 0) throw new RangeError("at least one destination");
  if (dests.some((d) => d.decoded.kind === "subaddress")) throw new RangeError("coinbase outputs go to standard addresses");
  const r = randomScalar(rng);
  const RBytes = mulBase(r).toBytes();
  const vout: TxOut[] = [];
  const outputs: BuiltOutput[] = [];
  dests.forEach((d, i) => {
    const derivation = derivation8(r, d.decoded.viewPublicKey);
    const P = mulBase(derivationToScalar(derivation, i)).add(decodePoint(d.decoded.spendPublicKey)!).toBytes();
    const viewTag = deriveViewTag(derivation, i);
    vout.push({ amount: d.amount, key: P, viewTag });
    outputs.push({ address: d.address, amount: d.amount, outputIndex: i, publicKey: bytesToHex(P), viewTag });
  });
  const extra = concatBytes(extraPubkeyField(RBytes), ...(opts.extraNonce ? [extraNonceField(opts.extraNonce)] : []));
  const unlockTime = height + MINED_MONEY_UNLOCK_WINDOW;
  const prefix = serializePrefix(2, unlockTime, [{ gen: height }], vout, extra);
  const base = Uint8Array.of(0);
  const json: DaemonTxJson = {
    version: 2,
    unlock_time: unlockTime,
    vin: [{ gen: { height } }],
    vout: vout.map((o) => ({ amount: o.amount, target: { tagged_key: { key: bytesToHex(o.key), view_tag: o.viewTag.toString(16).padStart(2, "0") } } })),
    extra: [...extra],
    rct_signatures: { type: 0 },
  };
  return finishTx(prefix, base, new Uint8Array(0), json, { txPublicKey: bytesToHex(RBytes), additionalPublicKeys: [], outputs, unlockTime, fee: 0n }, true);
}

export interface BuildBlockOptions {
  minerTx: BuiltMoneroTx;
  txHashes: string[];
  prevId: string;
  timestamp: bigint | number;
  majorVersion?: number;
  minorVersion?: number;
  nonce?: number;
  /** From fork v17: the FCMP++ tree (layer count, root hex) the block carries after its tx hashes. */
  fcmpTree?: { nTreeLayers: number; treeRoot: string };
}

export interface BuiltMoneroBlock {
  hash: string;
  blob: Uint8Array;
  hex: string;
  /** get_block's `json` field content (as an object and as text). */
  json: {
    major_version: number;
    minor_version: number;
    timestamp: bigint;
    prev_id: string;
    nonce: number;
    miner_tx: DaemonTxJson;
    tx_hashes: string[];
    fcmp_pp_n_tree_layers?: number;
    fcmp_pp_tree_root?: string;
  };
  asJson: string;
}

/** A serialized block around a miner tx (no proof of work: the devnet does not check it). */
export function buildBlock(opts: BuildBlockOptions): BuiltMoneroBlock {
  const major = opts.majorVersion ?? 16;
  const minor = opts.minorVersion ?? 16;
  const nonce = (opts.nonce ?? 0) >>> 0;
  const prev = Uint8Array.from(Buffer.from(opts.prevId, "hex"));
  if (prev.length !== 32) throw new RangeError("prevId must be 32 bytes hex");
  const nonceBytes = new Uint8Array(4);
  new DataView(nonceBytes.buffer).setUint32(0, nonce, true);
  const header = concatBytes(encodeVarint(major), encodeVarint(minor), encodeVarint(BigInt(opts.timestamp)), prev, nonceBytes);
  const hashes = opts.txHashes.map((h) => Uint8Array.from(Buffer.from(h, "hex")));
  const tree = opts.fcmpTree ? { nTreeLayers: opts.fcmpTree.nTreeLayers, treeRoot: Uint8Array.from(Buffer.from(opts.fcmpTree.treeRoot, "hex")) } : undefined;
  if (tree && (tree.treeRoot.length !== 32 || tree.nTreeLayers < 0 || tree.nTreeLayers > 255)) throw new RangeError("fcmpTree: a u8 layer count and a 32-byte root");
  const treeBytes = tree ? [Uint8Array.of(tree.nTreeLayers), tree.treeRoot] : [];
  const blob = concatBytes(header, opts.minerTx.blob, u8len(hashes.length), ...hashes, ...treeBytes);
  const hash = blockHash(header, Uint8Array.from(Buffer.from(opts.minerTx.txid, "hex")), hashes, tree);
  const json: BuiltMoneroBlock["json"] = {
    major_version: major,
    minor_version: minor,
    timestamp: BigInt(opts.timestamp),
    prev_id: opts.prevId,
    nonce,
    miner_tx: opts.minerTx.json,
    tx_hashes: opts.txHashes,
    // cryptonote_basic.h (PR #10027) serializes the tree after tx_hashes from v17 on.
    ...(opts.fcmpTree ? { fcmp_pp_n_tree_layers: opts.fcmpTree.nTreeLayers, fcmp_pp_tree_root: opts.fcmpTree.treeRoot } : {}),
  };
  return { hash, blob, hex: bytesToHex(blob), json, asJson: stringifyDaemonJson(json) };
}
