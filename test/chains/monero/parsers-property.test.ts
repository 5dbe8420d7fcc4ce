import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseExtra } from "../../../src/chains/monero/extra.js";
import { makeViewAccount } from "../../../src/chains/monero/keys.js";
import { scanTx } from "../../../src/chains/monero/scan.js";
import { parseBlockBlob, parseTransactionBlob, txFromDaemonJson } from "../../../src/chains/monero/tx-binary.js";
import { buildCoinbase, buildTransfer, seededRng } from "../../../devnet/monero-sender.js";
import { bytesToHex, hexToBytes } from "../../../src/chains/monero/encoding.js";
import { makeWallet } from "./helpers.js";

const w = makeWallet("prop-wallet");
const account = makeViewAccount(w.address, w.viewSecretHex, { lookahead: { accounts: 1, minors: 4 } });
const transfer = buildTransfer({ destinations: [{ address: w.sub(0, 1), amount: 10n }, { address: w.address, amount: 20n }], rng: seededRng("prop") });
const coinbase = buildCoinbase({ destinations: [{ address: w.address, amount: 30n }], height: 5, rng: seededRng("prop-cb") });

function scanIfParsed(bytes: Uint8Array): void {
  const r = parseTransactionBlob(bytes);
  expect(typeof r.ok).toBe("boolean");
  if (r.ok) expect(Array.isArray(scanTx(r.value, account))).toBe(true);
}

describe("parsers never throw past the public API", () => {
  it("random bytes: tx/block parsers return an error value", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (b) => {
        scanIfParsed(b);
        expect(typeof parseBlockBlob(b).ok).toBe("boolean");
      }),
      { numRuns: 500 },
    );
  });

  it("random bytes after a valid-looking version byte still never throw", () => {
    fc.assert(
      fc.property(fc.constantFrom(1, 2), fc.uint8Array({ maxLength: 400 }), (v, b) => {
        const bytes = new Uint8Array(b.length + 1);
        bytes[0] = v;
        bytes.set(b, 1);
        scanIfParsed(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it("mutated and truncated real transactions: parse or fail cleanly; scanning never throws", () => {
    for (const blob of [transfer.blob, coinbase.blob]) {
      fc.assert(
        fc.property(fc.nat(blob.length - 1), fc.integer({ min: 0, max: 255 }), fc.nat(blob.length), (pos, val, cut) => {
          const m = Uint8Array.from(blob);
          m[pos] = val;
          scanIfParsed(m);
          scanIfParsed(blob.subarray(0, cut));
        }),
        { numRuns: 120 },
      );
    }
  });

  it("random extra: parseExtra keeps what it read and never throws; scanning with it never throws", () => {
    const parsed = parseTransactionBlob(transfer.blob);
    if (!parsed.ok) throw new Error(parsed.error);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (extra) => {
        const e = parseExtra(extra);
        expect(Array.isArray(e.txPublicKeys)).toBe(true);
        expect(scanTx({ ...parsed.value, extra }, account)).toEqual(expect.any(Array));
      }),
      { numRuns: 300 },
    );
  });

  it("malformed extra keeps the keys read before the bad field (wallet2 behaviour)", () => {
    const key = hexToBytes(transfer.txPublicKey);
    const e = parseExtra(Uint8Array.from([0x01, ...key, 0x99, 1, 2, 3]));
    expect(e.complete).toBe(false);
    expect(e.error).toMatch(/unknown extra tag 0x99/);
    expect(e.txPublicKeys.map(bytesToHex)).toEqual([transfer.txPublicKey]);
    // Padding and the docs' coinbase example: pubkey + 17-byte nonce.
    const cb = parseExtra(Uint8Array.from([1, ...key, 2, 17, 0, 0, 0, 41, 122, 120, 122, ...new Array(10).fill(0)]));
    expect([cb.complete, cb.nonces[0]!.length, cb.txPublicKeys.length]).toEqual([true, 17, 1]);
    expect(parseExtra(Uint8Array.from([1, ...key, 0, 0, 0])).paddingBytes).toBe(3);
    expect(parseExtra(Uint8Array.from([1, ...key, 0, 0, 1])).complete).toBe(false);
    // A 0x04 list whose length differs from the output count is ignored by the scanner, not fatal.
    const parsed = parseTransactionBlob(transfer.blob);
    if (!parsed.ok) throw new Error(parsed.error);
    const outputsFound = scanTx(parsed.value, account).length;
    expect(outputsFound).toBe(2);
  });

  it("the scanner survives a tx whose tx public key is not a point", () => {
    const parsed = parseTransactionBlob(transfer.blob);
    if (!parsed.ok) throw new Error(parsed.error);
    const extra = Uint8Array.from(parsed.value.extra);
    extra.fill(0xff, 1, 33); // y ≥ p: does not decode
    expect(scanTx({ ...parsed.value, extra }, account)).toEqual(expect.any(Array));
  });

  it("random JSON values: txFromDaemonJson returns an error value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (j) => {
        expect(typeof txFromDaemonJson(j).ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(typeof txFromDaemonJson(s).ok).toBe("boolean");
      }),
    );
  });
});
