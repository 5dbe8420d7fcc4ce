/**
 * The check of a batch-settlement voucher's signature, exactly as the escrow
 * contract makes it when the voucher is claimed, at the cost a per-call
 * payment can bear.
 *
 * The contract (x402BatchSettlement._processVoucherClaim) recovers the signer
 * of the EIP-712 digest of `Voucher(bytes32 channelId, uint128
 * maxClaimableAmount)` under the domain "x402 Batch Settlement" / "1" /
 * chain id / the escrow's address with OpenZeppelin's ECDSA.recoverCalldata,
 * and requires it to be the channel's payerAuthorizer. That recovery accepts
 * only a 65-byte r ‖ s ‖ v with v 27 or 28 and s in the lower half of the
 * curve order; anything else reverts the claim. So a voucher is accepted here
 * only on those same terms: a signature the official facilitator's
 * viem-based check would pass but the contract would refuse (v 0/1, a high s)
 * is refused before any work is done for it.
 *
 * Cost: the digest is two keccaks over fixed layouts (the domain separator is
 * computed once per chain), and the recovery runs in libsecp256k1 through the
 * `secp256k1` package's native binding (prebuilt in the package): about 50 µs,
 * against 2–3 ms for viem's verifyTypedData on @noble/curves 1.x
 * (bench:signer-recovery prints both). Where the native binding cannot load,
 * @noble/curves 2 recovers instead (~1 ms) and `nativeRecovery` says so.
 */
import { createRequire } from "node:module";
import { secp256k1 as nobleSecp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN } from "@x402/evm";
import { bytesToHex, domainSeparator as eip712DomainSeparator, hexToBytes, type Hex } from "viem";

/** secp256k1 n / 2: OpenZeppelin's ECDSA refuses signatures with a higher s (malleable). */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const VOUCHER_TYPEHASH = keccak_256(new TextEncoder().encode("Voucher(bytes32 channelId,uint128 maxClaimableAmount)"));
const UINT128_MAX = (1n << 128n) - 1n;

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

/** The native binding, or null where it cannot load (then @noble/curves recovers). */
function loadNative(): NativeSecp256k1 | null {
  try {
    // `secp256k1/bindings` is the native build only; the package's main entry would fall back to elliptic silently.
    return createRequire(import.meta.url)("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    return null;
  }
}

const native = loadNative();

/** Whether voucher signatures are recovered by libsecp256k1 (true) or by @noble/curves. */
export const nativeRecovery = native !== null;

const domainSeparators = new Map<number, Uint8Array>();

/** The escrow's EIP-712 domain separator on a chain. */
function domainSeparator(chainId: number): Uint8Array {
  let d = domainSeparators.get(chainId);
  if (!d) {
    d = hexToBytes(eip712DomainSeparator({ domain: { ...BATCH_SETTLEMENT_DOMAIN, chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS } }));
    domainSeparators.set(chainId, d);
  }
  return d;
}

/** The EIP-712 digest a payer signs for a voucher (the contract's getVoucherDigest). */
export function voucherDigest(chainId: number, channelId: Hex, maxClaimableAmount: bigint): Uint8Array {
  if (maxClaimableAmount < 0n || maxClaimableAmount > UINT128_MAX) throw new Error("maxClaimableAmount is not a uint128");
  const struct = new Uint8Array(96);
  struct.set(VOUCHER_TYPEHASH, 0);
  struct.set(hexToBytes(channelId), 32);
  struct.set(hexToBytes(`0x${maxClaimableAmount.toString(16).padStart(64, "0")}`), 64);
  const envelope = new Uint8Array(66);
  envelope[0] = 0x19;
  envelope[1] = 0x01;
  envelope.set(domainSeparator(chainId), 2);
  envelope.set(keccak_256(struct), 34);
  return keccak_256(envelope);
}

/** The address a 64-byte compact signature with recovery id `recid` recovers to over `digest`, lower case. */
function recoverAddress(digest: Uint8Array, compact: Uint8Array, recid: number): string {
  const key = native
    ? native.ecdsaRecover(compact, recid, digest, false)
    : nobleSecp256k1.Signature.fromBytes(compact, "compact").addRecoveryBit(recid).recoverPublicKey(digest).toBytes(false);
  return bytesToHex(keccak_256(key.subarray(1)).subarray(12));
}

/**
 * The lower-case signer of a voucher as the escrow's ecrecover sees it, or
 * null when the contract would refuse the signature outright (its length, v,
 * a high s, no point for r).
 */
export function voucherSigner(chainId: number, channelId: Hex, maxClaimableAmount: bigint, signature: string): string | null {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  const bytes = hexToBytes(signature as Hex);
  const v = bytes[64]!;
  if (v !== 27 && v !== 28) return null;
  const s = BigInt(bytesToHex(bytes.subarray(32, 64)));
  if (s === 0n || s > HALF_N) return null;
  try {
    return recoverAddress(voucherDigest(chainId, channelId, maxClaimableAmount), bytes.subarray(0, 64), v - 27);
  } catch {
    return null;
  }
}
