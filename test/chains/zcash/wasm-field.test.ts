/**
 * The WebAssembly field and curve arithmetic (wasm-field.ts, curve-wasm.ts)
 * against plain bigint arithmetic: every field operation for both primes on
 * random and edge values, and the table multiplication against curve-batch.ts
 * (itself tested against @noble) for random, edge and exceptional scalars; the
 * batch trial decryption then answers the same with either engine.
 */
import fc from "fast-check";
import { randomBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { actionMayMatch, batchTryAction, batchTrySapling, chachaFirstByte, edwardsToW, JUBJUB_W, prepareKeys, saplingMayMatch, setCurveEngine } from "../../../src/chains/zcash/batch-decrypt.js";
import { actionNoteFromKey, saplingNoteFromKey, type ScanKey } from "../../../src/chains/zcash/note-decrypt.js";
import { kdf64, kdfState } from "../../../src/chains/zcash/blake2b-kdf.js";
import { leBytesToBigint } from "../../../src/chains/zcash/bytes.js";
import { buildTable, multiplyMany, recode, windowCount, type WeierstrassCurve } from "../../../src/chains/zcash/curve-batch.js";
import { layout, wasmBuildTable, wasmMultiplyMany, wasmScalarMul, wasmWindowBases } from "../../../src/chains/zcash/curve-wasm.js";
import { JubjubPoint } from "../../../src/chains/zcash/jubjub.js";
import { PallasPoint } from "../../../src/chains/zcash/pallas.js";
import { JUBJUB_R, PALLAS_P, PALLAS_Q } from "../../../src/chains/zcash/prf.js";
import { ELEM, MEM, WasmField } from "../../../src/chains/zcash/wasm-field.js";
import { actionOutputTo, randomOrchardIvk, randomSaplingIvk, randomWatch, saplingOutputTo, windowBases } from "./batch-fixtures.js";

const FQ = JubjubPoint.CURVE().p;
const PRIMES = [
  ["Pallas p", PALLAS_P],
  ["Jubjub base field (BLS12-381 r)", FQ],
] as const;

const mod = (v: bigint, p: bigint) => ((v % p) + p) % p;
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("wasm field arithmetic equals bigint arithmetic", () => {
  for (const [name, p] of PRIMES) {
    it(`${name}: mul, add, sub, inv, pack on random and edge values`, () => {
      const f = new WasmField(p, 5n);
      const [A, B, R] = [MEM.FREE, MEM.FREE + ELEM, MEM.FREE + 2 * ELEM];
      const edges = [0n, 1n, 2n, p - 1n, p - 2n, (p - 1n) / 2n, (p + 1n) / 2n, (1n << 232n) - 1n, 1n << 232n, (1n << 29n) - 1n, 1n << 29n, (1n << 254n) % p, p - (1n << 128n)];
      const value = fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min: 0n, max: p - 1n }));
      fc.assert(
        fc.property(value, value, (a, b) => {
          f.write(A, a);
          f.write(B, b);
          f.fx.mul(R, A, B);
          expect(f.read(R)).toBe((a * b) % p);
          expect(f.readPlain(R) < p).toBe(true); // fully reduced: equal values, equal bytes
          f.fx.mul(R, A, A);
          expect(f.read(R)).toBe((a * a) % p);
          f.fx.add(R, A, B);
          expect(f.read(R)).toBe((a + b) % p);
          expect(f.readPlain(R) < p).toBe(true);
          f.fx.sub(R, A, B);
          expect(f.read(R)).toBe(mod(a - b, p));
          expect(f.readPlain(R) < p).toBe(true);
          f.fx.pack(MEM.PACKED, A);
          expect(leBytesToBigint(f.bytes.slice(MEM.PACKED, MEM.PACKED + 32))).toBe(a);
          f.fx.inv(R, A);
          if (a === 0n) expect(f.read(R)).toBe(0n);
          else expect((f.read(R) * a) % p).toBe(1n);
          // in place: r = a
          f.fx.mul(A, A, B);
          expect(f.read(A)).toBe((a * b) % p);
        }),
        { numRuns: 400 },
      );
    });
  }

  it("leads: BLAKE2b KDF and the first ChaCha20 byte equal blake2b-kdf.ts and chachaFirstByte", () => {
    const f = new WasmField(PALLAS_P, 0n);
    const [SEC, EPK, ST, OUT] = [MEM.FREE, MEM.FREE + 32 * 64, MEM.FREE + 32 * 64 + 64, MEM.FREE + 32 * 64 + 128];
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 64 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom("Zcash_SaplingKDF", "Zcash_OrchardKDF"),
        fc.integer({ min: 0, max: 255 }),
        (secrets, epk, pers, c0) => {
          const state = kdfState(new TextEncoder().encode(pers));
          secrets.forEach((s, k) => f.bytes.set(s, SEC + 32 * k));
          f.bytes.set(epk, EPK);
          f.words.set(state, ST >> 2);
          f.fx.leads(secrets.length, SEC, EPK, ST, c0, OUT);
          secrets.forEach((s, k) => {
            const key = kdf64(state, new Uint8Array([...s, ...epk]));
            expect(f.bytes[OUT + k]).toBe(c0 ^ chachaFirstByte(key));
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it("refuses a modulus the limb layout cannot carry", () => {
    expect(() => new WasmField((1n << 255n) + 95n, 0n)).toThrow(RangeError);
    expect(() => new WasmField(1n << 200n, 0n)).toThrow(RangeError);
  });
});


describe("wasm table multiplication equals curve-batch.ts", () => {
  const pallas: WeierstrassCurve = { p: PALLAS_P, a: 0n };
  function both(curve: WeierstrassCurve, baseList: { x: bigint; y: bigint }[], w: number, bits: number, scalars: bigint[]) {
    const n = windowCount(bits, w);
    const digits = scalars.map((s) => recode(s, bits, w));
    const want = multiplyMany(curve, buildTable(curve, baseList, w), digits);
    const f = new WasmField(curve.p, curve.a);
    const L = layout(w, n, scalars.length);
    const flat = new Int16Array(n * scalars.length);
    digits.forEach((d, j) => d.forEach((v, i) => (flat[i * scalars.length + j] = v)));
    wasmBuildTable(f, L, baseList);
    const zero = wasmMultiplyMany(f, L, curve, flat);
    const got = scalars.map((_, j) => (zero[j] === 1 ? null : { x: f.read(L.acc + 2 * ELEM * j), y: f.read(L.acc + 2 * ELEM * j + ELEM) }));
    return { want, got };
  }

  it("Pallas: random and edge scalars for several window sizes, including sums that are the identity", () => {
    const q = PallasPoint.BASE.multiply(leBytesToBigint(randomBytes(31)) + 1n);
    for (const w of [4, 5, 8, 10]) {
      const n = windowCount(255, w);
      const scalars = [0n, 1n, 2n, 3n, PALLAS_Q - 1n, PALLAS_Q, PALLAS_Q + 1n, PALLAS_Q - 2n, (1n << 254n) - 1n, ...Array.from({ length: 24 }, () => leBytesToBigint(randomBytes(32)) % PALLAS_Q)];
      const { want, got } = both(pallas, windowBases(q, w, n), w, 255, scalars);
      expect(got).toEqual(want);
      expect(got[5]).toBeNull(); // q·Q: the last addition meets its own negation
    }
  });

  it("Pallas: scalars whose last addition is a doubling (accumulator = table entry)", () => {
    const q = PallasPoint.BASE.multiply(7n);
    let found = 0;
    for (const w of [4, 8, 9]) {
      const n = windowCount(255, w);
      const top = 1n << BigInt(w * (n - 1));
      const scalars: bigint[] = [];
      for (let d = 1n; d <= 1n << BigInt(w - 1); d++) {
        const s = 2n * d * top - PALLAS_Q;
        if (s < 0n || s >= PALLAS_Q || recode(s, 255, w)[n - 1] !== Number(d)) continue;
        scalars.push(s);
      }
      found += scalars.length;
      if (scalars.length === 0) continue;
      const { want, got } = both(pallas, windowBases(q, w, n), w, 255, scalars);
      expect(got).toEqual(want);
    }
    expect(found).toBeGreaterThan(0);
  });

  it("Jubjub (Weierstrass model): random and edge scalars", () => {
    const q = JubjubPoint.BASE.multiply(leBytesToBigint(randomBytes(31)) % JUBJUB_R).clearCofactor();
    for (const w of [5, 10]) {
      const n = windowCount(252, w);
      const scalars = [0n, 1n, JUBJUB_R - 1n, JUBJUB_R, ...Array.from({ length: 20 }, () => leBytesToBigint(randomBytes(32)) % JUBJUB_R)];
      const { want, got } = both(JUBJUB_W, edwardsToW(windowBases(q, w, n)), w, 252, scalars);
      expect(got).toEqual(want);
      expect(got[3]).toBeNull();
    }
  });
});

describe("wasm window bases and single scalar multiplication equal @noble", () => {
  it("Pallas and Jubjub: window bases 2^(w·i)·Q written as table entries (i, 1)", () => {
    const pq = PallasPoint.BASE.multiply(leBytesToBigint(randomBytes(31)) + 1n);
    const jq = JubjubPoint.BASE.multiply(leBytesToBigint(randomBytes(31)) + 1n).clearCofactor();
    for (const [curve, q, bits] of [
      [{ p: PALLAS_P, a: 0n }, pq, 255],
      [JUBJUB_W, jq, 252],
    ] as const) {
      const w = 7;
      const n = windowCount(bits, w);
      const f = new WasmField(curve.p, curve.a);
      const L = layout(w, n, 1);
      const want = curve === JUBJUB_W ? edwardsToW(windowBases(jq, w, n)) : windowBases(pq, w, n);
      wasmWindowBases(f, L, want[0]!);
      for (let i = 0; i < n; i++) {
        const e = L.table + i * (1 << (w - 1)) * 3 * ELEM;
        expect({ x: f.read(e), y: f.read(e + ELEM) }).toEqual(want[i]);
      }
    }
  });

  it("[k]·Q for random and edge scalars", () => {
    const f = new WasmField(PALLAS_P, 0n);
    const g = new WasmField(FQ, JUBJUB_W.a);
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: PALLAS_Q - 1n }), fc.bigInt({ min: 1n, max: JUBJUB_R - 1n }), fc.integer({ min: 1, max: 1000 }), (k, kj, m) => {
        const q = PallasPoint.BASE.multiply(BigInt(m));
        expect(wasmScalarMul(f, q.toAffine(), k)).toEqual(q.multiply(k).toAffine());
        const jq = JubjubPoint.BASE.multiply(BigInt(m)).clearCofactor();
        expect(wasmScalarMul(g, edwardsToW([jq.toAffine()])[0]!, kj)).toEqual(edwardsToW([jq.multiply(kj).toAffine()])[0]);
      }),
      { numRuns: 25, examples: [[1n, 1n, 1], [2n, 2n, 1], [PALLAS_Q - 1n, JUBJUB_R - 1n, 3], [PALLAS_Q - 2n, JUBJUB_R - 2n, 5]] },
    );
  });
});

describe("batch trial decryption: the wasm and bigint engines answer alike", () => {
  it("random watches, hits and misses, identity and invalid ephemeral keys", () => {
    const watches = Array.from({ length: 12 }, () => randomWatch());
    const prepared = prepareKeys(watches);
    const sOuts = [saplingOutputTo(watches[3]!.sapling[1]!.ivk, 7n), saplingOutputTo(randomSaplingIvk(), 1n)];
    sOuts.push({ ...sOuts[0]!, ephemeralKey: JubjubPoint.ZERO.toBytes() }, { ...sOuts[0]!, ephemeralKey: randomBytes(32) });
    const aOuts = [actionOutputTo(watches[8]!.orchard[0]!.ivk, 9n, 0x02), actionOutputTo(randomOrchardIvk(), 2n, 0x03)];
    aOuts.push({ ...aOuts[0]!, ephemeralKey: new Uint8Array(32) });
    const run = () => [
      ...sOuts.map((o) => batchTrySapling(prepared, o, 3_000_000)),
      ...aOuts.flatMap((o) => [batchTryAction(prepared, "orchard", o), batchTryAction(prepared, "ironwood", o)]),
    ];
    const text = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? hex(v) : v));
    const wasm = text(run());
    setCurveEngine("bigint");
    try {
      expect(text(run())).toBe(wasm);
    } finally {
      setCurveEngine("wasm");
    }
    expect(wasm).toContain('"watch":3');
    expect(wasm).toContain('"watch":8');
  }, 120_000);
});

describe("early rejection never rejects what the reference accepts", () => {
  /** Random KDF keys whose first plaintext byte is `lead` (the keys that reach the check). */
  function keysWithLead(ct: Uint8Array, lead: number, n: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    while (out.length < n) {
      const k = randomBytes(32);
      if ((ct[0]! ^ chachaFirstByte(k)) === lead) out.push(k);
    }
    return out;
  }
  const someKey = (ivk: bigint): ScanKey => ({ scope: "external", ivk, dk: randomBytes(32) });

  it("Sapling (lead 0x02) and Orchard/Ironwood: wrong keys are rejected and so does the reference; the right key passes", () => {
    const w = randomWatch();
    const sOut = saplingOutputTo(w.sapling[0]!.ivk, 5n, true);
    const aOut = actionOutputTo(w.orchard[1]!.ivk, 6n, 0x02);
    const iOut = actionOutputTo(w.orchard[0]!.ivk, 7n, 0x03);
    for (const key of keysWithLead(sOut.ciphertext, 0x02, 12)) {
      expect(saplingMayMatch(key, sOut)).toBe(false);
      expect(saplingNoteFromKey(someKey(w.sapling[0]!.ivk), key, sOut, [0x02])).toBeNull();
    }
    for (const [out, lead, pool] of [
      [aOut, 0x02, "orchard"],
      [iOut, 0x03, "ironwood"],
    ] as const) {
      const rho = leBytesToBigint(out.nullifier);
      for (const key of keysWithLead(out.ciphertext, lead, 8)) {
        expect(actionMayMatch(key, out)).toBe(false);
        expect(actionNoteFromKey(someKey(w.orchard[0]!.ivk), pool, key, out, rho)).toBeNull();
      }
    }
    // The right keys: found by the batch path (which applies the check before the reference).
    const prepared = prepareKeys(Array.from({ length: 10 }, (_, i) => (i === 4 ? w : randomWatch())));
    expect(batchTrySapling(prepared, sOut, 3_000_000).map((h) => h.watch)).toEqual([4]);
    expect(batchTryAction(prepared, "orchard", aOut).map((h) => h.watch)).toEqual([4]);
    expect(batchTryAction(prepared, "ironwood", iOut).map((h) => h.watch)).toEqual([4]);
  }, 120_000);
});
