/**
 * secp256k1 signer recovery: the address ecrecover gives for a 32-byte digest
 * and a signature (r, s, y parity), exactly as viem's recoverAddress answers
 * it, at a fraction of its cost, and less again for signers seen before.
 *
 * Recovery is Q = r⁻¹·(s·R − z·G), where R is the curve point with x = r and
 * the y parity the signature names. For a candidate public key P the same
 * equation read backwards is R = u1·G + u2·P with u1 = z·s⁻¹ and u2 = r·s⁻¹:
 * P is the recovered key if and only if that point has x = r and the named
 * parity. So a candidate is confirmed by one double multiplication, cheaper
 * still once P has a precomputed table, and a wrong candidate is simply not
 * confirmed: the answer is the same either way, only its cost differs. A
 * signer not yet seen is recovered in full with @noble/curves 2 (about half
 * the cost of the 1.x copy viem pins) and remembered.
 *
 * Used by the devnet's chain (its token's ecrecover and its transactions'
 * senders) and by the local x402 facilitator's verify (quick-verify.ts).
 * bench/README.md (http, paid calls) has the figures.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { LRUCache } from "lru-cache";
import { type Address, type Hex, bytesToHex, getAddress, hexToBytes } from "viem";

const Point = secp256k1.Point;
type Point = InstanceType<typeof Point>;
const Fn = Point.Fn;
const N = Fn.ORDER;

export interface RecoverableSignature {
  r: bigint;
  s: bigint;
  /** 0 or 1: the parity of R's y. */
  yParity: number;
}

/** A 65-byte r ‖ s ‖ v signature (v 27/28 or 0/1) split as ecrecover reads it. */
export function splitSignature(signature: Hex): RecoverableSignature {
  if (signature.length !== 132) throw new Error("signature must be 65 bytes");
  const v = Number.parseInt(signature.slice(130, 132), 16);
  return { r: BigInt(`0x${signature.slice(2, 66)}`), s: BigInt(`0x${signature.slice(66, 130)}`), yParity: v >= 27 ? v - 27 : v };
}

function addressOf(key: Point): Address {
  const uncompressed = key.toBytes(false);
  return getAddress(bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12)));
}

/** Whether `key` is the key this signature recovers to (see the header). */
function confirms(key: Point, z: bigint, sig: RecoverableSignature): boolean {
  const sInv = Fn.inv(sig.s);
  const R = Point.BASE.multiplyUnsafe(Fn.mul(z, sInv)).add(key.multiplyUnsafe(Fn.mul(sig.r, sInv)));
  if (R.is0()) return false;
  const { x, y } = R.toAffine();
  return x === sig.r && Number(y & 1n) === sig.yParity;
}

export interface SignerRecoveryOptions {
  /** Signers' public keys remembered (least recently used go first): a few hundred bytes each. */
  maxKeys: number;
  /**
   * Of those, how many keep a precomputed table (least recently used lose it first). A window-4
   * table holds 110–130 kB of heap and takes ~8 ms to build, a window-6 one about 310 kB and ~20 ms
   * (Intel bench VM); a confirmation with a table costs about 0.7 ms, without one 1.3
   * (bench:signer-recovery).
   */
  maxTables: number;
  tableWindow: number;
  /**
   * A key gets its table at this many confirmations (1: at the first). A table pays for its building
   * after a dozen or so confirmations, so a service that meets many one-off signers builds them late.
   */
  tableAfter: number;
}

/**
 * The address `sig` recovers to over `digest`, as viem's recoverAddress gives
 * it; throws where it throws (r or s out of range, a parity other than 0/1,
 * no curve point with x = r, the point at infinity). `candidates` are
 * addresses the caller expects (the claimed signer, recent senders): each one
 * already seen is tried first.
 */
export type RecoverSigner = (digest: Hex, sig: RecoverableSignature, candidates?: readonly Address[]) => Address;

/** A recoverer with its own memory of signers' keys. */
export function signerRecovery(options: SignerRecoveryOptions): RecoverSigner {
  const keys = new LRUCache<string, { address: Address; key: Point; confirmations: number }>({ max: options.maxKeys });
  /**
   * Each a copy of a remembered key, with its table (a point's table is tied to the point). A key
   * that loses its table counts its confirmations from nought again, so keys that take tables from
   * each other in turn rebuild one at most every `tableAfter` confirmations.
   */
  const tables = new LRUCache<string, Point>({
    max: options.maxTables,
    dispose: (_, id) => {
      const known = keys.peek(id);
      if (known) known.confirmations = 0;
    },
  });
  const tabled = (key: Point) => Point.fromAffine(key.toAffine()).precompute(options.tableWindow, false);
  return (digest, sig, candidates = []) => {
    const { r, s, yParity } = sig;
    if (yParity !== 0 && yParity !== 1) throw new Error("invalid signature: recovery id must be 0 or 1");
    if (r <= 0n || r >= N || s <= 0n || s >= N) throw new Error("invalid signature: r or s out of range");
    const z = BigInt(digest) % N;
    for (const candidate of candidates) {
      const id = candidate.toLowerCase();
      const known = keys.get(id);
      if (!known) continue;
      let key = tables.get(id);
      if (!key && ++known.confirmations >= options.tableAfter) tables.set(id, (key = tabled(known.key)));
      if (confirms(key ?? known.key, z, sig)) return known.address;
    }
    const recovered = new secp256k1.Signature(r, s, yParity).recoverPublicKey(hexToBytes(digest));
    const address = addressOf(recovered);
    const id = address.toLowerCase();
    if (!keys.has(id)) {
      keys.set(id, { address, key: recovered, confirmations: 0 });
      if (options.tableAfter <= 0) tables.set(id, tabled(recovered));
    }
    return address;
  };
}
