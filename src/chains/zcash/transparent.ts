/**
 * Transparent (P2PKH) keys: a minimal BIP-32 over secp256k1 (hardened private
 * derivation for m/44'/coin'/account', public derivation below it), the
 * ZIP 316 transparent OVKs, and Base58Check t-addresses.
 */
import { createHash, createHmac } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hmac } from "@noble/hashes/hmac.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { asciiBytes, bigintToLeBytes, concatBytes, equalBytes, leBytesToBigint, u32be } from "./bytes.js";
import { NETWORKS, ZCASH_NETWORKS, type ZcashNetwork } from "./network.js";
import { prfExpand } from "./prf.js";

const Point = secp256k1.Point;
const N = Point.CURVE().n;
const HARDENED = 0x80000000;

export const base58check = createBase58check(sha256);

const beBytesToBigint = (b: Uint8Array): bigint => leBytesToBigint(b.slice().reverse());
const bigintToBe32 = (x: bigint): Uint8Array => bigintToLeBytes(x, 32).reverse();

export const hash160 = (b: Uint8Array): Uint8Array => ripemd160(sha256(b));

/** A BIP-32 public node: chain code and compressed public key (with the metadata xpub needs). */
export interface TransparentPubNode {
  chainCode: Uint8Array;
  publicKey: Uint8Array;
  depth: number;
  parentFingerprint: number;
  childNumber: number;
}

interface PrivNode {
  chainCode: Uint8Array;
  key: bigint;
  depth: number;
  parentFingerprint: number;
  childNumber: number;
}

const pubOf = (k: bigint): Uint8Array => Point.BASE.multiply(k).toBytes(true);
const fingerprint = (pub: Uint8Array): number => new DataView(hash160(pub).buffer).getUint32(0, false);

function masterNode(seed: Uint8Array): PrivNode {
  const I = hmac(sha512, asciiBytes("Bitcoin seed"), seed);
  const k = beBytesToBigint(I.subarray(0, 32));
  if (k === 0n || k >= N) throw new Error("invalid BIP-32 master key");
  return { chainCode: I.slice(32), key: k, depth: 0, parentFingerprint: 0, childNumber: 0 };
}

function hardenedChild(parent: PrivNode, index: number): PrivNode {
  const i = (index | HARDENED) >>> 0;
  const I = hmac(sha512, parent.chainCode, concatBytes(Uint8Array.of(0), bigintToBe32(parent.key), u32be(i)));
  const il = beBytesToBigint(I.subarray(0, 32));
  const k = (il + parent.key) % N;
  // BIP-32: such an index is skipped; probability ~2^-127, so we refuse rather than silently skip.
  if (il >= N || k === 0n) throw new Error("invalid BIP-32 child key");
  return {
    chainCode: I.slice(32),
    key: k,
    depth: parent.depth + 1,
    parentFingerprint: fingerprint(pubOf(parent.key)),
    childNumber: i,
  };
}

/** CKDpub for a non-hardened index; null for the (negligible) invalid-child case. */
export function publicChild(parent: TransparentPubNode, index: number): TransparentPubNode | null {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new RangeError("non-hardened index expected");
  const I = hmac(sha512, parent.chainCode, concatBytes(parent.publicKey, u32be(index)));
  const il = beBytesToBigint(I.subarray(0, 32));
  if (il >= N) return null;
  const P = Point.fromBytes(parent.publicKey).add(Point.BASE.multiply(il));
  if (P.is0()) return null;
  return {
    chainCode: I.slice(32),
    publicKey: P.toBytes(true),
    depth: parent.depth + 1,
    parentFingerprint: fingerprint(parent.publicKey),
    childNumber: index,
  };
}

/** The transparent account node m/44'/coin'/account' as a public node. */
export function transparentAccountNode(seed: Uint8Array, coinType: number, account: number): TransparentPubNode {
  const node = hardenedChild(hardenedChild(hardenedChild(masterNode(seed), 44), coinType), account);
  return {
    chainCode: node.chainCode,
    publicKey: pubOf(node.key),
    depth: node.depth,
    parentFingerprint: node.parentFingerprint,
    childNumber: node.childNumber,
  };
}

/** ZIP 316 item bytes: chain code (32) ‖ compressed public key (33). */
export const encodeTransparentKey = (n: TransparentPubNode): Uint8Array => concatBytes(n.chainCode, n.publicKey);

/** Parses a 65-byte ZIP 316 transparent key item; null if the public key is not a valid point. */
export function decodeTransparentKey(bytes: Uint8Array, depth = 3): TransparentPubNode | null {
  if (bytes.length !== 65) return null;
  const publicKey = bytes.slice(32);
  if (publicKey[0] !== 2 && publicKey[0] !== 3) return null;
  try {
    Point.fromBytes(publicKey).assertValidity();
  } catch {
    return null;
  }
  return { chainCode: bytes.slice(0, 32), publicKey, depth, parentFingerprint: 0, childNumber: 0 };
}

/** BIP-32 serialisation (xpub/tpub) of a public node. */
export function encodeXpub(node: TransparentPubNode, network: ZcashNetwork): string {
  const head = new Uint8Array(13);
  const dv = new DataView(head.buffer);
  dv.setUint32(0, NETWORKS[network].xpubVersion, false);
  head[4] = node.depth;
  dv.setUint32(5, node.parentFingerprint >>> 0, false);
  dv.setUint32(9, node.childNumber >>> 0, false);
  return base58check.encode(concatBytes(head, node.chainCode, node.publicKey));
}

/** ZIP 316 transparent OVKs: PRF^expand(c, [0xD0] ‖ pk) split into external and internal halves. */
export function transparentOvks(node: Pick<TransparentPubNode, "chainCode" | "publicKey">): { external: Uint8Array; internal: Uint8Array } {
  const I = prfExpand(node.chainCode, Uint8Array.of(0xd0), node.publicKey);
  return { external: I.slice(0, 32), internal: I.slice(32) };
}

/** HASH160 with the platform's SHA-256 and RIPEMD-160 (about 15× the pure-JS pair; same result). */
function nativeHash160(b: Uint8Array): Uint8Array {
  return createHash("ripemd160").update(createHash("sha256").update(b).digest()).digest();
}

/**
 * Iterates P2PKH hashes of children start..start+count-1 of a chain node. Everything here is
 * derived from public data, so no secret is involved; the parent point is decoded once. HMAC and
 * HASH160 use node:crypto (the scanner derives 20 of these per watch; the curve work is @noble's).
 */
export function* p2pkhHashesOfChain(chain: TransparentPubNode, start: number, count: number): Generator<{ index: number; hash: Uint8Array }> {
  const parent = Point.fromBytes(chain.publicKey);
  const msg = new Uint8Array(37);
  msg.set(chain.publicKey);
  for (let index = start; index < start + count && index < HARDENED; index++) {
    msg.set(u32be(index), 33);
    const I = new Uint8Array(createHmac("sha512", chain.chainCode).update(msg).digest());
    const il = beBytesToBigint(I.subarray(0, 32));
    if (il >= N) continue;
    const P = Point.BASE.multiply(il).add(parent);
    if (P.is0()) continue;
    yield { index, hash: Uint8Array.from(nativeHash160(P.toBytes(true))) };
  }
}

/** P2PKH hash of child m/44'/coin'/account'/scope/index (scope 0 external, 1 internal). */
export function p2pkhHashAt(account: TransparentPubNode, scope: 0 | 1, index: number): Uint8Array | null {
  const chain = publicChild(account, scope);
  if (!chain) return null;
  const child = publicChild(chain, index);
  return child ? hash160(child.publicKey) : null;
}

export function encodeP2pkh(hash: Uint8Array, network: ZcashNetwork): string {
  return base58check.encode(concatBytes(NETWORKS[network].p2pkhPrefix, hash));
}

export function encodeP2sh(hash: Uint8Array, network: ZcashNetwork): string {
  return base58check.encode(concatBytes(NETWORKS[network].p2shPrefix, hash));
}

export type TransparentAddress = {
  kind: "p2pkh" | "p2sh";
  hash: Uint8Array;
  /** Networks sharing this prefix (testnet and regtest share theirs). */
  networks: ZcashNetwork[];
};

export type TransparentDecodeResult =
  | { ok: true; address: TransparentAddress }
  | { ok: false; reason: "invalid_checksum" | "malformed" | "unknown_prefix" };

/** Decodes a t-address (t1/t3 mainnet, tm/t2 testnet and regtest). */
export function decodeTransparentAddress(str: string): TransparentDecodeResult {
  if (typeof str !== "string" || str.length < 26 || str.length > 40) return { ok: false, reason: "malformed" };
  let raw: Uint8Array;
  try {
    raw = base58check.decode(str);
  } catch (e) {
    const msg = e instanceof Error ? e.message : "";
    return { ok: false, reason: /checksum/i.test(msg) ? "invalid_checksum" : "malformed" };
  }
  if (raw.length !== 22) return { ok: false, reason: "malformed" };
  const prefix = raw.subarray(0, 2);
  const hash = raw.slice(2);
  for (const kind of ["p2pkh", "p2sh"] as const) {
    const networks = ZCASH_NETWORKS.filter((n) => equalBytes(kind === "p2pkh" ? NETWORKS[n].p2pkhPrefix : NETWORKS[n].p2shPrefix, prefix));
    if (networks.length > 0) return { ok: true, address: { kind, hash, networks } };
  }
  return { ok: false, reason: "unknown_prefix" };
}
