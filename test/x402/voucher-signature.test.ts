/**
 * The voucher check of the batch-settlement paywall (src/x402/voucher-signature.ts)
 * against viem's EIP-712 code, which the official client signs with: the same
 * digest, the same signer, for random channels, amounts and keys; and the
 * escrow's own refusals (OpenZeppelin ECDSA): v other than 27/28, a high s, a
 * signature that is not 65 bytes. The native binding must be the one that
 * loaded (the bench figures assume it).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { bytesToHex, hashTypedData, recoverTypedDataAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN, voucherTypes } from "@x402/evm";
import { nativeRecovery, voucherDigest, voucherSigner } from "../../src/x402/voucher-signature.js";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const domain = (chainId: number) => ({ ...BATCH_SETTLEMENT_DOMAIN, chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS as Hex });

const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => {
  const k = BigInt(bytesToHex(b));
  return k > 0n && k < N;
});
const channelId = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b));
const amount = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
const chainId = fc.constantFrom(8453, 84532);

async function sign(k: Uint8Array, chain: number, id: Hex, max: bigint) {
  const account = privateKeyToAccount(bytesToHex(k));
  const signature = await account.signTypedData({ domain: domain(chain), types: voucherTypes, primaryType: "Voucher", message: { channelId: id, maxClaimableAmount: max } });
  return { account, signature };
}

describe("voucher signatures", () => {
  it("are recovered by the native libsecp256k1 binding", () => {
    expect(nativeRecovery).toBe(true);
  });

  it("digest and signer agree with viem's EIP-712 for any key, channel, amount and chain", async () => {
    await fc.assert(
      fc.asyncProperty(key, chainId, channelId, amount, async (k, chain, id, max) => {
        const { account, signature } = await sign(k, chain, id, max);
        expect(bytesToHex(voucherDigest(chain, id, max))).toBe(hashTypedData({ domain: domain(chain), types: voucherTypes, primaryType: "Voucher", message: { channelId: id, maxClaimableAmount: max } }));
        expect(voucherSigner(chain, id, max, signature)).toBe(account.address.toLowerCase());
        const viemSigner = await recoverTypedDataAddress({ domain: domain(chain), types: voucherTypes, primaryType: "Voucher", message: { channelId: id, maxClaimableAmount: max }, signature });
        expect(viemSigner.toLowerCase()).toBe(account.address.toLowerCase());
      }),
      { numRuns: 60 },
    );
  });

  it("a voucher for another amount, channel or chain recovers to someone else", async () => {
    await fc.assert(
      fc.asyncProperty(key, channelId, amount, async (k, id, max) => {
        const { account, signature } = await sign(k, 84532, id, max);
        const me = account.address.toLowerCase();
        expect(voucherSigner(84532, id, max + 1n < 1n << 128n ? max + 1n : max - 1n, signature)).not.toBe(me);
        expect(voucherSigner(8453, id, max, signature)).not.toBe(me);
        const otherId = (id.slice(0, -2) + (id.endsWith("00") ? "01" : "00")) as Hex;
        expect(voucherSigner(84532, otherId, max, signature)).not.toBe(me);
      }),
      { numRuns: 30 },
    );
  });

  it("is refused as the escrow refuses it: v 0/1, a high s, a wrong length", async () => {
    const k = new Uint8Array(32).fill(7);
    const id = bytesToHex(new Uint8Array(32).fill(9));
    const { account, signature } = await sign(k, 84532, id, 1000n);
    expect(voucherSigner(84532, id, 1000n, signature)).toBe(account.address.toLowerCase());
    const v = Number.parseInt(signature.slice(130), 16);
    // v as 0/1 (EIP-2098 style recovery bit): viem accepts it, the contract's ecrecover does not.
    const v01 = `${signature.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}` as Hex;
    expect(voucherSigner(84532, id, 1000n, v01)).toBeNull();
    // The mirrored s (n - s) with the flipped parity recovers the same key on the curve; OpenZeppelin refuses it.
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const high = `${signature.slice(0, 66)}${(N - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
    expect(voucherSigner(84532, id, 1000n, high)).toBeNull();
    expect(voucherSigner(84532, id, 1000n, signature.slice(0, 130) as Hex)).toBeNull();
    expect(voucherSigner(84532, id, 1000n, `${signature}00` as Hex)).toBeNull();
    expect(voucherSigner(84532, id, 1000n, "0x" + "00".repeat(65))).toBeNull();
  });

  it("refuses an amount that is not a uint128", () => {
    expect(() => voucherDigest(84532, `0x${"11".repeat(32)}`, 1n << 128n)).toThrow(/uint128/);
  });
});
