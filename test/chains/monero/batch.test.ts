import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { batchDerivations, chooseWindow, scanTxForAccounts, signedDigits } from "../../../src/chains/monero/batch.js";
import { generateKeyDerivation, L, mulBase, scalarFromBytes, scalarToBytes } from "../../../src/chains/monero/crypto.js";
import { bytesToHex, hexToBytes } from "../../../src/chains/monero/encoding.js";
import { fe, feAdd, feFromBigint, feMul, feSqr, feSub, feToBigint, fePack } from "../../../src/chains/monero/field25519.js";
import { makeViewAccount } from "../../../src/chains/monero/keys.js";
import { scanTx } from "../../../src/chains/monero/scan.js";
import { parseTransactionBlob } from "../../../src/chains/monero/tx-binary.js";
import type { ViewAccount } from "../../../src/chains/monero/types.js";
import { buildTransfer, seededRng } from "../../../devnet/monero-sender.js";
import { makeWallet } from "./helpers.js";
import { readVector, vectorsPresent } from "./vectors.js";

const P = (1n << 255n) - 19n;

function fakeAccount(a: bigint): ViewAccount {
  return { viewSecret: a } as ViewAccount; // batchDerivations only reads viewSecret
}

describe("16-limb field arithmetic", () => {
  it("matches bigint arithmetic mod p, including values near p and non-canonical encodings", () => {
    const big = fc.bigInt({ min: 0n, max: P - 1n });
    fc.assert(
      fc.property(big, big, (x, y) => {
        const a = feFromBigint(fe(), x);
        const b = feFromBigint(fe(), y);
        const o = fe();
        feMul(o, a, b);
        expect(feToBigint(o)).toBe((x * y) % P);
        feSqr(o, a);
        expect(feToBigint(o)).toBe((x * x) % P);
        const bytes = new Uint8Array(32);
        fePack(bytes, 0, o);
        expect(bytesToHex(bytes)).toBe(bytesToHex(scalarToBytes((x * x) % P)));
      }),
      { numRuns: 300 },
    );
    // Unreduced inputs as the point formulas produce them: sums and differences of products.
    fc.assert(
      fc.property(big, big, big, big, (x, y, z, u) => {
        const [a, b, c, d] = [x, y, z, u].map((v) => feFromBigint(fe(), v));
        const s1 = fe();
        const s2 = fe();
        const o = fe();
        feMul(a!, a!, b!); // carried
        feMul(c!, c!, d!);
        feAdd(s1, a!, c!);
        feAdd(s1, s1, c!); // a + 2c
        feSub(s2, fe(), a!);
        feSub(s2, s2, c!); // −a − c
        feMul(o, s1, s2);
        const ab = (x * y) % P;
        const cd = (z * u) % P;
        expect(feToBigint(o)).toBe((((ab + 2n * cd) * (-(ab + cd))) % P + P) % P);
      }),
      { numRuns: 300 },
    );
    for (const v of [0n, 1n, P - 1n, P - 2n, 19n, (1n << 255n) - 20n]) {
      const bytes = new Uint8Array(32);
      fePack(bytes, 0, feFromBigint(fe(), v));
      expect(scalarFromBytes(bytes)).toBe(v);
    }
  });
});

describe("signed window digits", () => {
  it("recompose to the scalar for every window width", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: L - 1n }), fc.integer({ min: 2, max: 11 }), (a, w) => {
        const d = signedDigits(a, w);
        let v = 0n;
        for (let j = d.length - 1; j >= 0; j--) v = (v << BigInt(w)) + BigInt(d[j]!);
        expect(v).toBe(a);
        for (const x of d) expect(Math.abs(x)).toBeLessThanOrEqual(1 << (w - 1));
      }),
    );
  });
  it("window width grows with the number of watches", () => {
    expect(chooseWindow(3)).toBeLessThan(chooseWindow(10_000));
  });
});

describe.skipIf(!vectorsPresent)("batch derivation = generate_key_derivation on every Monero vector line", () => {
  it("all 71 lines (63 with torsion components), for several window widths", () => {
    const rows = readVector("crypto-tests.txt").split("\n").filter((l) => l.startsWith("generate_key_derivation ")).map((l) => l.trim().split(" "));
    expect(rows.length).toBe(71);
    for (const w of [2, 5]) {
      // Group all lines' scalars against each R so the batch path really batches.
      for (const [, R, a, ok, D] of rows) {
        const accounts = [fakeAccount(scalarFromBytes(hexToBytes(a!))), fakeAccount(12345n), fakeAccount(L - 1n)];
        const got = batchDerivations(hexToBytes(R!), accounts, w);
        if (ok === "true") {
          expect(got[0] && bytesToHex(got[0])).toBe(D);
          expect(bytesToHex(got[1]!)).toBe(bytesToHex(generateKeyDerivation(hexToBytes(R!), 12345n)!));
          expect(bytesToHex(got[2]!)).toBe(bytesToHex(generateKeyDerivation(hexToBytes(R!), L - 1n)!));
        } else expect(got[0]).toBeNull();
      }
    }
  });
});

describe("batch scanning equals per-watch scanning", () => {
  it("random keys and points: batch derivations match noble", () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 1n, max: L - 1n }), { minLength: 3, maxLength: 8 }), fc.bigInt({ min: 1n, max: L - 1n }), (as, r) => {
        const R = mulBase(r).toBytes();
        const expected = as.map((a) => bytesToHex(generateKeyDerivation(R, a)!));
        expect(batchDerivations(R, as.map(fakeAccount)).map((d) => bytesToHex(d!))).toEqual(expected);
        if (as.length === 3) expect(batchDerivations(R, as.map(fakeAccount), 10).map((d) => bytesToHex(d!))).toEqual(expected);
      }),
      { numRuns: 15 },
    );
  });

  it("a block of devnet txs against many watches finds exactly what scanTx finds", () => {
    const wallets = Array.from({ length: 6 }, (_, i) => makeWallet(`batch-${i}`));
    const accounts = wallets.map((w) => makeViewAccount(w.address, w.viewSecretHex, { lookahead: { accounts: 1, minors: 5 } }));
    const subWatch = makeViewAccount(wallets[1]!.sub(0, 4), wallets[1]!.viewSecretHex, { subaddressIndex: { major: 0, minor: 4 } });
    const all = [...accounts, subWatch];
    const txs = [
      buildTransfer({ destinations: [{ address: wallets[0]!.address, amount: 1n }, { address: wallets[1]!.sub(0, 4), amount: 2n }], rng: seededRng("b1") }),
      buildTransfer({ destinations: [{ address: wallets[2]!.sub(0, 3), amount: 3n }], rng: seededRng("b2") }),
      buildTransfer({ destinations: [{ address: wallets[3]!.address, amount: 4n }, { address: wallets[3]!.address, amount: 5n }], rng: seededRng("b3") }),
    ].map((t) => {
      const p = parseTransactionBlob(t.blob);
      if (!p.ok) throw new Error(p.error);
      return p.value;
    });
    for (const tx of txs) {
      const batch = scanTxForAccounts(tx, all);
      expect(batch).toEqual(all.map((a) => scanTx(tx, a)));
    }
    const counts = txs.map((tx) => scanTxForAccounts(tx, all).map((r) => r.length));
    expect(counts).toEqual([
      [1, 1, 0, 0, 0, 0, 1],
      [0, 0, 1, 0, 0, 0, 0],
      [0, 0, 0, 2, 0, 0, 0],
    ]);
  });
});

describe("MoneroScanPool (worker threads)", () => {
  it("returns the same result[tx][account] as the calling-thread batch scanner", async () => {
    const { MoneroScanPool } = await import("../../../src/chains/monero/pool.js");
    const wallets = Array.from({ length: 5 }, (_, i) => makeWallet(`pool-${i}`));
    const accounts = wallets.map((w) => makeViewAccount(w.address, w.viewSecretHex, { lookahead: { accounts: 1, minors: 3 } }));
    const txs = [
      buildTransfer({ destinations: [{ address: wallets[4]!.address, amount: 11n }, { address: wallets[0]!.sub(0, 2), amount: 12n }], rng: seededRng("p1") }),
      buildTransfer({ destinations: [{ address: wallets[2]!.address, amount: 13n }], rng: seededRng("p2") }),
    ].map((t) => {
      const p = parseTransactionBlob(t.blob);
      if (!p.ok) throw new Error(p.error);
      return p.value;
    });
    const pool = new MoneroScanPool({ threads: 2 });
    try {
      await pool.setAccounts(accounts);
      const pooled = await pool.scanTxs(txs);
      expect(pooled).toEqual(txs.map((tx) => scanTxForAccounts(tx, accounts)));
      expect(pooled.map((perTx) => perTx.map((o) => o.map((x) => x.amount)))).toEqual([
        [[12n], [], [], [], [11n]],
        [[], [], [13n], [], []],
      ]);
    } finally {
      await pool.close();
    }
  });
});

describe("single-scalar fast path", () => {
  it("mul8Single equals noble's R·a·8 for random scalars and torsioned points", async () => {
    const { mul8Single } = await import("../../../src/chains/monero/edwards-fast.js");
    const { Point } = await import("../../../src/chains/monero/crypto.js");
    const torsion = Point.fromHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"); // order-8 point
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: L - 1n }), fc.bigInt({ min: 1n, max: L - 1n }), fc.boolean(), (a, r, tor) => {
        const R = tor ? mulBase(r).add(torsion) : mulBase(r);
        expect(bytesToHex(mul8Single(R, a))).toBe(bytesToHex(R.multiplyUnsafe(a).clearCofactor().toBytes()));
      }),
      { numRuns: 40 },
    );
  });
});

describe("fixed-base fast paths", () => {
  it("pointMinusBaseMul and commitFast equal the noble expressions", async () => {
    const { pointMinusBaseMul, commitFast } = await import("../../../src/chains/monero/edwards-fast.js");
    const { H_POINT, Point } = await import("../../../src/chains/monero/crypto.js");
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: L - 1n }), fc.bigInt({ min: 1n, max: L - 1n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (p, s, amt) => {
        const P = mulBase(p);
        expect(bytesToHex(pointMinusBaseMul(P, s))).toBe(bytesToHex(P.subtract(mulBase(s)).toBytes()));
        const expected = mulBase(s).add(amt === 0n ? Point.ZERO : H_POINT.multiplyUnsafe(amt));
        expect(bytesToHex(commitFast(s, amt, H_POINT))).toBe(bytesToHex(expected.toBytes()));
      }),
      { numRuns: 25 },
    );
    expect(bytesToHex(commitFast(0n, 0n, H_POINT))).toBe(bytesToHex(Point.ZERO.toBytes()));
  });
});

describe("batch robustness", () => {
  it("an account with an out-of-range key gets no derivation; the others still do", () => {
    const R = mulBase(777n).toBytes();
    const got = batchDerivations(R, [fakeAccount(5n), fakeAccount(0n), fakeAccount(L), fakeAccount(6n)]);
    expect(got.map((d) => (d ? bytesToHex(d) : null))).toEqual([
      bytesToHex(generateKeyDerivation(R, 5n)!),
      null,
      null,
      bytesToHex(generateKeyDerivation(R, 6n)!),
    ]);
  });
});
