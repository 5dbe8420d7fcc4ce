import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../src/chains/zcash/bytes.js";
import { parseTransaction, TxParseError } from "../../../src/chains/zcash/tx-parse.js";
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
