/**
 * Signer recovery gives exactly what viem's recoverAddress /
 * recoverTransactionAddress give, whether a candidate key is confirmed,
 * refused or unknown, with or without its precomputed table: for real
 * signatures, for signatures with the parity flipped or s mirrored, for
 * arbitrary (r, s), and it fails where viem fails. Each memory policy in use
 * is held to it: the devnet chain's (a table at the first confirmation), the
 * local facilitator's (a table after several), and a table built at once.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Address, type Hex, bytesToHex, numberToHex, recoverAddress, recoverTransactionAddress, type TransactionSerialized } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { signerRecovery, splitSignature } from "../../src/x402/signer-recovery.js";
import { recoverSignerAddress as devnetRecovers } from "../../devnet/secp256k1-recover.js";
import { payerRecovery } from "../../src/x402/quick-verify.js";
import { decodeSignedTransaction } from "../../devnet/evm-tx.js";
import { DEVNET_CHAIN_ID } from "../../devnet/evm.js";

const N = secp256k1.Point.Fn.ORDER;
const P = secp256k1.Point.Fp.ORDER;

/** viem's answer, or "throws". */
async function viemRecovers(digest: Hex, r: bigint, s: bigint, yParity: number): Promise<Address | "throws"> {
  try {
    return await recoverAddress({ hash: digest, signature: { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), yParity } });
  } catch {
    return "throws";
  }
}

/** The policies in use, and a table built at once. */
const POLICIES = [
  ["the devnet chain's", () => devnetRecovers],
  ["the local facilitator's payers'", () => payerRecovery()],
  ["a table at recovery", () => signerRecovery({ maxKeys: 64, maxTables: 64, tableWindow: 6, tableAfter: 0 })],
  ["no table", () => signerRecovery({ maxKeys: 64, maxTables: 64, tableWindow: 4, tableAfter: Number.MAX_SAFE_INTEGER })],
  ["tables for two keys only, taken and lost in turn", () => signerRecovery({ maxKeys: 64, maxTables: 2, tableWindow: 4, tableAfter: 1 })],
] as const;

const secretKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((k) => secp256k1.utils.isValidSecretKey(k));
const digest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b));
const scalar = fc.bigInt({ min: 1n, max: N - 1n });

describe.each(POLICIES)("secp256k1 signer recovery, %s", (_, make) => {
  const recoverSignerAddress = make();
  const oursRecovers = (digest: Hex, r: bigint, s: bigint, yParity: number, candidates: Address[]): Address | "throws" => {
    try {
      return recoverSignerAddress(digest, { r, s, yParity }, candidates);
    } catch {
      return "throws";
    }
  };

  it("recovers real signatures as viem does, with the signer, another key or nothing as the candidate", async () => {
    const other = privateKeyToAccount(bytesToHex(secp256k1.utils.randomSecretKey()));
    // Makes `other` a known key, so it is tried and must be refused.
    recoverSignerAddress(digestOf(1), splitSignature(await other.sign({ hash: digestOf(1) })));
    await fc.assert(
      fc.asyncProperty(secretKey, digest, digest, async (key, d1, d2) => {
        const account = privateKeyToAccount(bytesToHex(key));
        for (const [d, candidates] of [
          [d1, []],
          [d1, [account.address]],
          [d2, [other.address, account.address]],
          [d2, [account.address]],
        ] as const) {
          const sig = splitSignature(await account.sign({ hash: d }));
          expect(recoverSignerAddress(d, sig, candidates)).toBe(account.address);
          expect(await viemRecovers(d, sig.r, sig.s, sig.yParity)).toBe(account.address);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("does not confirm a known signer for its signature with the parity flipped or s mirrored, and agrees with viem on them", async () => {
    await fc.assert(
      fc.asyncProperty(secretKey, digest, async (key, d) => {
        const account = privateKeyToAccount(bytesToHex(key));
        const sig = splitSignature(await account.sign({ hash: d }));
        recoverSignerAddress(d, sig); // now known
        for (const [s, yParity] of [
          [sig.s, 1 - sig.yParity],
          [N - sig.s, sig.yParity],
          [N - sig.s, 1 - sig.yParity],
        ] as const) {
          const ours = oursRecovers(d, sig.r, s, yParity, [account.address]);
          expect(ours).toBe(await viemRecovers(d, sig.r, s, yParity));
        }
        // Mirrored s with the parity flipped is the same signature over the same key (ECDSA malleability).
        expect(oursRecovers(d, sig.r, N - sig.s, 1 - sig.yParity, [account.address])).toBe(account.address);
        expect(oursRecovers(d, sig.r, sig.s, 1 - sig.yParity, [account.address])).not.toBe(account.address);
      }),
      { numRuns: 30 },
    );
  });

  it("agrees with viem on arbitrary (r, s, parity), a known key as the candidate", async () => {
    const known = privateKeyToAccount(bytesToHex(secp256k1.utils.randomSecretKey()));
    recoverSignerAddress(digestOf(2), splitSignature(await known.sign({ hash: digestOf(2) })));
    await fc.assert(
      fc.asyncProperty(digest, scalar, scalar, fc.integer({ min: 0, max: 1 }), async (d, r, s, yParity) => {
        expect(oursRecovers(d, r, s, yParity, [known.address])).toBe(await viemRecovers(d, r, s, yParity));
      }),
      { numRuns: 60 },
    );
  });

  it("fails where viem fails: r or s zero or not below n, a parity other than 0/1, r that is no point's x", async () => {
    const d = digestOf(3);
    const s = 12345n;
    let offCurve = 5n;
    // The smallest x ≥ 5 with x³ + 7 not a square mod p: no point has it.
    while (isSquare((offCurve ** 3n + 7n) % P)) offCurve++;
    for (const [r, ss, yParity] of [
      [0n, s, 0],
      [5n, 0n, 0],
      [N, s, 0],
      [5n, N, 1],
      [offCurve, s, 0],
      [offCurve, s, 1],
    ] as const) {
      expect(await viemRecovers(d, r, ss, yParity)).toBe("throws");
      expect(oursRecovers(d, r, ss, yParity, [])).toBe("throws");
    }
    expect(oursRecovers(d, 5n, s, 2, [])).toBe("throws");
    expect(() => splitSignature("0x1234")).toThrow(/65 bytes/);
  });

  it("confirms signers many times over, through the building and loss of their tables, and refuses another key's signature", async () => {
    const signers = [1, 2, 3, 4].map(() => privateKeyToAccount(bytesToHex(secp256k1.utils.randomSecretKey())));
    for (let i = 0; i < 8; i++) {
      for (const [j, a] of signers.entries()) {
        const b = signers[(j + 1) % signers.length]!;
        const d = digestOf(100 + i * 10 + j);
        expect(recoverSignerAddress(d, splitSignature(await a.sign({ hash: d })), [a.address])).toBe(a.address);
        // b's signature with a as the candidate: a is not confirmed, b is recovered (or confirmed, once tried).
        expect(recoverSignerAddress(d, splitSignature(await b.sign({ hash: d })), [a.address])).toBe(b.address);
        expect(recoverSignerAddress(d, splitSignature(await b.sign({ hash: d })), [a.address, b.address])).toBe(b.address);
      }
    }
  });
});

describe("the devnet chain's senders", () => {

  it("are recovered as recoverTransactionAddress does, senders alternating (recent ones are tried first)", async () => {
    const accounts = [1, 2, 3, 4, 5].map(() => privateKeyToAccount(bytesToHex(secp256k1.utils.randomSecretKey())));
    const sign = (i: number, nonce: number, type: "eip1559" | "legacy" | "eip2930") => {
      const account = accounts[i % accounts.length]!;
      const base = { chainId: DEVNET_CHAIN_ID, to: "0x000000000000000000000000000000000000dEaD" as Address, nonce, gas: 50_000n };
      if (type === "eip1559") return account.signTransaction({ ...base, type, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n });
      return account.signTransaction({ ...base, type, gasPrice: 10n ** 9n });
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 1000 }), fc.constantFrom("eip1559" as const, "legacy" as const, "eip2930" as const)), { minLength: 1, maxLength: 8 }),
        async (txs) => {
          for (const [i, nonce, type] of txs) {
            const raw = await sign(i, nonce, type);
            const decoded = await decodeSignedTransaction(raw);
            expect(decoded.from).toBe(accounts[i]!.address);
            expect(decoded.from).toBe(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized }));
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});

function digestOf(n: number): Hex {
  return numberToHex(BigInt(n) * 0x1000193n + 0xabcdefn, { size: 32 });
}

/** Euler's criterion over secp256k1's field. */
function isSquare(a: bigint): boolean {
  let result = 1n;
  let base = a % P;
  let e = (P - 1n) / 2n;
  while (e > 0n) {
    if (e & 1n) result = (result * base) % P;
    base = (base * base) % P;
    e >>= 1n;
  }
  return result === 1n;
}
