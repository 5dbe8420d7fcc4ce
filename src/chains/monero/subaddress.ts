/**
 * Subaddresses (device_default.cpp get_subaddress_*):
 *   m = Hs("SubAddr\0" ‖ a ‖ LE32(major) ‖ LE32(minor)), D = B + m·G, C = a·D.
 * Index (0,0) is the primary address (B, A) itself.
 */
import { encodeAddress } from "./address.js";
import { batchBasePlusPoint } from "./edwards-fast.js";
import { Point, decodePoint, hashToScalar, mulBase, mulPoint, scalarFromBytes, type EdPoint } from "./crypto.js";
import { concatBytes } from "./encoding.js";
import type { MoneroNetwork, SubaddressIndex, SubaddressLookahead } from "./types.js";

const SUBADDR_SALT = new TextEncoder().encode("SubAddr\0"); // C string including its terminating zero: 8 bytes

function le32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
}

function assertIndex(index: SubaddressIndex): void {
  for (const v of [index.major, index.minor]) {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError("subaddress index must be a u32");
  }
}

/** m(i,j), the subaddress secret offset. */
export function subaddressSecretOffset(viewSecretBytes: Uint8Array, index: SubaddressIndex): bigint {
  assertIndex(index);
  return hashToScalar(concatBytes(SUBADDR_SALT, viewSecretBytes, le32(index.major), le32(index.minor)));
}

/** D(i,j) = B + m·G as a point ((0,0) gives B). */
export function subaddressSpendPoint(viewSecretBytes: Uint8Array, spendPublic: EdPoint, index: SubaddressIndex): EdPoint {
  if (index.major === 0 && index.minor === 0) return spendPublic;
  return spendPublic.add(mulBase(subaddressSecretOffset(viewSecretBytes, index)));
}

export function subaddressSpendPublicKey(viewSecretBytes: Uint8Array, spendPublicKey: Uint8Array, index: SubaddressIndex): Uint8Array {
  const B = decodePoint(spendPublicKey);
  if (!B) throw new RangeError("public spend key is not a valid point");
  return subaddressSpendPoint(viewSecretBytes, B, index).toBytes();
}

/** The encoded address for (i,j): the standard address for (0,0), a subaddress otherwise. */
export function deriveSubaddress(
  network: MoneroNetwork,
  viewSecretBytes: Uint8Array,
  spendPublicKey: Uint8Array,
  index: SubaddressIndex,
): string {
  const B = decodePoint(spendPublicKey);
  if (!B) throw new RangeError("public spend key is not a valid point");
  const a = scalarFromBytes(viewSecretBytes);
  if (index.major === 0 && index.minor === 0) {
    return encodeAddress(network, "standard", spendPublicKey, mulBase(a).toBytes());
  }
  const D = subaddressSpendPoint(viewSecretBytes, B, index);
  return encodeAddress(network, "subaddress", D.toBytes(), mulPoint(D, a).toBytes());
}

/**
 * Spend-key table {hex(D(i,j)) → (i,j)} for majors 0..accounts-1 and minors
 * 0..minors-1, (0,0) → B, and the issued ranges past that rectangle. Affine
 * conversion is batched (one inversion).
 */
export function buildSpendKeyTable(
  viewSecretBytes: Uint8Array,
  spendPublicKey: Uint8Array,
  lookahead: SubaddressLookahead,
): Map<string, SubaddressIndex> {
  const B = decodePoint(spendPublicKey);
  if (!B) throw new RangeError("public spend key is not a valid point");
  const table = new Map<string, SubaddressIndex>();
  table.set(tableKey(spendPublicKey), { major: 0, minor: 0 });
  const indices: SubaddressIndex[] = [];
  for (let major = 0; major < lookahead.accounts; major++) {
    for (let minor = 0; minor < lookahead.minors; minor++) {
      if (major === 0 && minor === 0) continue;
      indices.push({ major, minor });
    }
  }
  for (const range of lookahead.issued ?? []) {
    // Inside the rectangle already: only the minors past it are new.
    const from = range.major < lookahead.accounts ? lookahead.minors : 0;
    for (let minor = Math.max(from, range.major === 0 ? 1 : 0); minor < range.minors; minor++) indices.push({ major: range.major, minor });
  }
  addSpendKeys(table, viewSecretBytes, B, indices);
  return table;
}

/**
 * A table key: the same lowercase hex as bytesToHex, as one flat string. bytesToHex
 * builds its answer by appending two digits at a time, a chain of 32 pieces that
 * holds ~1 KiB until something flattens it; a table of 10,000 such keys kept ~9 MiB
 * (bench:lookahead). Lookups may still use bytesToHex: a Map compares contents.
 */
export function tableKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Adds D(i,j) → (i,j) for the given indices ((0,0) maps to B itself). */
export function addSpendKeys(table: Map<string, SubaddressIndex>, viewSecretBytes: Uint8Array, B: EdPoint, indices: SubaddressIndex[]): void {
  const nonPrimary = indices.filter((i) => !(i.major === 0 && i.minor === 0));
  if (nonPrimary.length !== indices.length) table.set(tableKey(B.toBytes()), { major: 0, minor: 0 });
  const encoded = batchBasePlusPoint(B, nonPrimary.map((i) => subaddressSecretOffset(viewSecretBytes, i)));
  for (let i = 0; i < encoded.length; i++) table.set(tableKey(encoded[i]!), { major: nonPrimary[i]!.major, minor: nonPrimary[i]!.minor });
}
