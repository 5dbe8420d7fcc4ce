import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256 } from "@noble/hashes/sha2.js";
import { bigintToLeBytes, bytesToHex, concatBytes, hexToBytes, leBytesToBigint, u32le, writeCompactSize } from "../../../src/chains/zcash/bytes.js";
import { decryptTransaction, type ScanKeys } from "../../../src/chains/zcash/note-decrypt.js";
import { parseTransaction, parseTransactionHex, TxParseError } from "../../../src/chains/zcash/tx-parse.js";
import { authDigestHex, transactionId, zip244AuthDigest, zip244TxidDigest } from "../../../src/chains/zcash/txid.js";
import { loadVectors, str, vectorsPresent, warnIfAbsent } from "./vectors.js";

warnIfAbsent();
const rows = vectorsPresent ? loadVectors("zip_0244.json") : [];

describe.skipIf(!vectorsPresent)("ZIP 244 vectors", () => {
  it("has rows", () => expect(rows.length).toBeGreaterThanOrEqual(10));
  it.each(rows.map((r, i) => [i, r] as const))("row %i: parses end to end, txid and auth digest match", (_i, row) => {
    const tx = parseTransaction(hexToBytes(str(row, "tx")));
    expect(tx.version).toBe(5);
    // The vectors hold digests in internal byte order; ids are shown reversed.
    expect(bytesToHex(zip244TxidDigest(tx))).toBe(str(row, "txid"));
    expect(bytesToHex(zip244AuthDigest(tx))).toBe(str(row, "auth_digest"));
    expect(transactionId(tx)).toBe(bytesToHex(hexToBytes(str(row, "txid")).reverse()));
    expect(authDigestHex(tx)).toBe(bytesToHex(hexToBytes(str(row, "auth_digest")).reverse()));
  });
});

const rowsOrEmpty = vectorsPresent ? rows : [];
const vectorTxs = rowsOrEmpty.map((r) => hexToBytes(str(r, "tx")));

function expectParseError(bytes: Uint8Array): void {
  try {
    parseTransaction(bytes);
  } catch (e) {
    expect(e).toBeInstanceOf(TxParseError);
    return;
  }
  throw new Error("expected a TxParseError");
}

describe.skipIf(!vectorsPresent)("parser properties on the ZIP 244 transactions", () => {
  it("every strict prefix fails with TxParseError", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: vectorTxs.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true }), (i, f) => {
        const tx = vectorTxs[i];
        expectParseError(tx.subarray(0, Math.floor(f * tx.length) % tx.length));
      }),
      { numRuns: 300 },
    );
  });
  it("trailing bytes fail with TxParseError", () => {
    for (const tx of vectorTxs) expectParseError(Uint8Array.of(...tx, 0));
  });
  it("mutated bytes either parse or fail with TxParseError; a parse still yields a txid", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: vectorTxs.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        (i, flips) => {
          const tx = vectorTxs[i].slice();
          for (const [pos, x] of flips) tx[pos % tx.length] ^= x;
          try {
            const parsed = parseTransaction(tx);
            expect(typeof transactionId(parsed)).toBe("string");
          } catch (e) {
            expect(e).toBeInstanceOf(TxParseError);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
  it("random bytes with a valid header either parse or fail with TxParseError", () => {
    fc.assert(
      fc.property(fc.constantFrom(4, 5, 6), fc.uint8Array({ maxLength: 3000 }), (v, body) => {
        const group = v === 4 ? [0x85, 0x20, 0x2f, 0x89] : v === 5 ? [0x0a, 0x27, 0xa7, 0x26] : [0x98, 0xb6, 0x84, 0xd8];
        try {
          parseTransaction(Uint8Array.of(v, 0, 0, 0x80, ...group, ...body));
        } catch (e) {
          expect(e).toBeInstanceOf(TxParseError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("header checks", () => {
  it("refuses v1-v3, non-overwintered and mismatched group ids", () => {
    const cases = [
      [0x01, 0, 0, 0],
      [0x03, 0, 0, 0x80, 0x70, 0x82, 0xc4, 0x03],
      [0x05, 0, 0, 0x00, 0x0a, 0x27, 0xa7, 0x26],
      [0x05, 0, 0, 0x80, 0x85, 0x20, 0x2f, 0x89],
      [0x07, 0, 0, 0x80, 0x0a, 0x27, 0xa7, 0x26],
    ];
    for (const c of cases) {
      try {
        parseTransaction(Uint8Array.from(c));
        throw new Error("parsed");
      } catch (e) {
        expect(e).toBeInstanceOf(TxParseError);
        expect((e as TxParseError).problem).toBe("unsupported_version");
      }
    }
    expect(() => parseTransactionHex("0g")).toThrow(TxParseError);
  });
});

describe.skipIf(!vectorsPresent)("v4 (Sapling) transactions", () => {
  const enc = loadVectors("sapling_note_encryption.json")[0];
  const i64 = (v: bigint) => bigintToLeBytes(BigInt.asUintN(64, v), 8);
  const fill = (n: number, b: number) => new Uint8Array(n).fill(b);
  // One transparent input and output, one Sapling spend, one Sapling output carrying the vector ciphertext.
  const v4 = concatBytes(
    u32le(0x80000004),
    u32le(0x892f2085),
    writeCompactSize(1),
    fill(32, 0x11),
    u32le(2),
    writeCompactSize(3),
    Uint8Array.of(1, 2, 3),
    u32le(0xffffffff),
    writeCompactSize(1),
    i64(5000n),
    writeCompactSize(2),
    Uint8Array.of(0x51, 0x52),
    u32le(0),
    u32le(1_000_100),
    i64(-100n),
    writeCompactSize(1),
    fill(32 * 4 + 192 + 64, 0x22),
    writeCompactSize(1),
    fill(32, 0x33),
    hexToBytes(str(enc, "cmu")),
    hexToBytes(str(enc, "epk")),
    hexToBytes(str(enc, "c_enc")),
    fill(80 + 192, 0x44),
    writeCompactSize(0),
    fill(64, 0x55),
  );
  it("parses, gets the double-SHA-256 txid, and its output decrypts with lead 0x01", () => {
    const tx = parseTransaction(v4);
    expect(tx.version).toBe(4);
    expect(tx.vin[0].prevoutIndex).toBe(2);
    expect(tx.vout[0].value).toBe(5000n);
    expect(tx.sapling.valueBalance).toBe(-100n);
    expect(tx.sapling.spends.length).toBe(1);
    expect(tx.expiryHeight).toBe(1_000_100);
    expect(transactionId(tx)).toBe(bytesToHex(sha256(sha256(v4)).reverse()));
    const keys: ScanKeys = { network: "mainnet", sapling: [{ scope: "external", ivk: leBytesToBigint(hexToBytes(str(enc, "ivk"))), dk: new Uint8Array(32) }], orchard: [] };
    const found = decryptTransaction(tx, keys, 1_000_000);
    expect(found.map((n) => [n.pool, n.outputIndex, n.value])).toEqual([["sapling", 0, 100000000n]]);
    expect(decryptTransaction(tx, keys, 3_000_000)).toEqual([]);
  });
  it("JoinSplits without their key and signature are a truncation", () => {
    const withJs = concatBytes(v4.subarray(0, v4.length - 65), writeCompactSize(1), fill(1698, 0));
    expectParseError(withJs);
  });
});
