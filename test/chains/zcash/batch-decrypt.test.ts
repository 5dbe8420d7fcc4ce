/**
 * The batch trial decryption (per-output tables, batched affine additions,
 * lead-byte rejection) must answer exactly what the reference answers watch
 * by watch: property tests over random keys and outputs built with the
 * sender-side crypto, the exceptional additions of the table method, and the
 * official vectors.
 */
import fc from "fast-check";
import { randomBytes } from "@noble/hashes/utils.js";
import { chacha20 } from "@noble/ciphers/chacha.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { kdf64, kdfState } from "../../../src/chains/zcash/blake2b-kdf.js";
import { describe, expect, it } from "vitest";
import { BATCH_MIN_KEYS, batchTryAction, batchTrySapling, chachaFirstByte, prepareKeys, type BatchHit } from "../../../src/chains/zcash/batch-decrypt.js";
import { hexToBytes, leBytesToBigint } from "../../../src/chains/zcash/bytes.js";
import { buildTable, chooseWindow, multiplyMany, recode, windowCount } from "../../../src/chains/zcash/curve-batch.js";
import { JubjubPoint } from "../../../src/chains/zcash/jubjub.js";
import { tryActionOutput, trySaplingOutput, type ActionOutputData, type SaplingOutputData, type ScanKeys } from "../../../src/chains/zcash/note-decrypt.js";
import { orchardFvkFromSk, orchardIvkParts } from "../../../src/chains/zcash/orchard-keys.js";
import { PallasPoint, pallasMul, pallasToBytes } from "../../../src/chains/zcash/pallas.js";
import { JUBJUB_R, PALLAS_P, PALLAS_Q } from "../../../src/chains/zcash/prf.js";
import { actionOutputTo, randomOrchardIvk, randomSaplingIvk, randomWatch, saplingOutputTo, windowBases } from "./batch-fixtures.js";
import { encryptAction } from "./sender.js";
import { loadVectors, str, vectorsPresent, type VectorRow } from "./vectors.js";

/** Stable text of hits (bigints and byte arrays included) for exact comparison. */
const text = (x: unknown): string =>
  JSON.stringify(x, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v));

function referenceSapling(watches: ScanKeys[], out: SaplingOutputData, height?: number): BatchHit[] {
  return watches.flatMap((k, watch) => {
    if (k.sapling.length === 0) return [];
    const note = trySaplingOutput(k, out, height);
    return note ? [{ watch, note }] : [];
  });
}
function referenceAction(watches: ScanKeys[], pool: "orchard" | "ironwood", out: ActionOutputData): BatchHit[] {
  return watches.flatMap((k, watch) => {
    if (k.orchard.length === 0) return [];
    const note = tryActionOutput(k, pool, out);
    return note ? [{ watch, note }] : [];
  });
}

// Enough watches that both protocols take the table path.
const WATCHES = Math.ceil(BATCH_MIN_KEYS / 2) + 4;

describe("curve-batch: table multiplication equals plain scalar multiplication", () => {
  const pallas = { p: PALLAS_P, a: 0n };
  const affineOf = (s: bigint, q: InstanceType<typeof PallasPoint>) => {
    const r = pallasMul(q, s);
    return r.is0() ? null : r.toAffine();
  };

  it("Pallas, every window size the chooser can pick, random and edge scalars", () => {
    const q = PallasPoint.BASE.multiply(leBytesToBigint(randomBytes(31)) + 1n);
    for (const w of [4, 5, 8, 10, 12]) {
      const n = windowCount(255, w);
      const table = buildTable(pallas, windowBases(q, w, n), w);
      const scalars = [0n, 1n, 2n, 3n, PALLAS_Q - 1n, PALLAS_Q - 2n, (1n << 254n) - 1n, ...Array.from({ length: 12 }, () => leBytesToBigint(randomBytes(32)) % PALLAS_Q)];
      const got = multiplyMany(pallas, table, scalars.map((s) => recode(s, 255, w)));
      scalars.forEach((s, i) => expect(got[i], `w=${w} s=${s}`).toEqual(affineOf(s, q)));
    }
  });

  it("Pallas: scalars whose last addition is a doubling (accumulator = table entry)", () => {
    const q = PallasPoint.BASE.multiply(7n);
    let found = 0;
    for (const w of [4, 8, 9, 10]) {
      const n = windowCount(255, w);
      const table = buildTable(pallas, windowBases(q, w, n), w);
      const top = 1n << BigInt(w * (n - 1));
      for (let d = 1n; d <= 1n << BigInt(w - 1); d++) {
        const s = 2n * d * top - PALLAS_Q; // lower part ≡ d·top (mod q): the exceptional doubling
        if (s < 0n || s >= PALLAS_Q || recode(s, 255, w)[n - 1] !== Number(d)) continue;
        found++;
        expect(multiplyMany(pallas, table, [recode(s, 255, w)])[0], `w=${w} d=${d}`).toEqual(affineOf(s, q));
      }
    }
    expect(found).toBeGreaterThan(0);
  });

  it("recoding round-trips and refuses scalars that are too wide", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 255n) - 1n }), fc.integer({ min: 4, max: 12 }), (s, w) => {
        const d = recode(s, 255, w);
        const back = Array.from(d).reduce((acc, di, i) => acc + BigInt(di) * (1n << BigInt(w * i)), 0n);
        expect(back).toBe(s);
        for (const di of d) expect(Math.abs(di)).toBeLessThanOrEqual(1 << (w - 1));
      }),
      { numRuns: 200 },
    );
    expect(() => recode(1n << 256n, 255, 8)).toThrow(RangeError);
    expect(chooseWindow(2000, 255)).toBeGreaterThanOrEqual(8);
  });
});

describe("ChaCha20 lead byte", () => {
  it("is byte 0 of the keystream with counter 1", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (key) => {
        expect(chachaFirstByte(key)).toBe(chacha20(key, new Uint8Array(12), new Uint8Array(1), undefined, 1)[0]);
      }),
      { numRuns: 100 },
    );
  });
});

describe("batch trial decryption equals the reference", () => {
  it("Sapling: hits for either scope, misses, full and compact ciphertexts, heights around Canopy", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: WATCHES - 1 }),
        fc.constantFrom(0, 1),
        fc.boolean(),
        fc.constantFrom(undefined, 1_046_399, 1_050_000, 3_000_000),
        fc.integer({ min: 0, max: 3 }),
        (target, scope, full, height, noise) => {
          const watches = Array.from({ length: WATCHES }, () => randomWatch());
          const prepared = prepareKeys(watches);
          const outs: SaplingOutputData[] = [saplingOutputTo(watches[target]!.sapling[scope]!.ivk, 1234n, full)];
          // A payment to nobody, garbage ciphertext under a real point, and the small-order ephemeral keys.
          outs.push(saplingOutputTo(randomSaplingIvk(), 5n, full));
          outs.push({ ...outs[0]!, ciphertext: randomBytes(full ? 580 : 52) });
          if (noise === 1) outs.push({ ...outs[0]!, ephemeralKey: JubjubPoint.ZERO.toBytes() });
          if (noise === 2) outs.push({ ...outs[0]!, ephemeralKey: randomBytes(32) });
          if (noise === 3) outs.push({ ...outs[0]!, ciphertext: randomBytes(60) });
          for (const out of outs) expect(text(batchTrySapling(prepared, out, height))).toBe(text(referenceSapling(watches, out, height)));
          if (height === undefined || height >= 1_046_400) expect(batchTrySapling(prepared, outs[0]!, height).map((h) => h.watch)).toEqual([target]);
        },
      ),
      { numRuns: 10 },
    );
  }, 300_000);

  it("Orchard and Ironwood: hits for either scope, the wrong pool, misses, bad ρ", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: WATCHES - 1 }),
        fc.constantFrom(0, 1),
        fc.constantFrom(0x02 as const, 0x03 as const),
        fc.boolean(),
        (target, scope, lead, full) => {
          const watches = Array.from({ length: WATCHES }, () => randomWatch());
          const prepared = prepareKeys(watches);
          const hit = actionOutputTo(watches[target]!.orchard[scope]!.ivk, 99n, lead, full);
          const outs: ActionOutputData[] = [hit, actionOutputTo(randomOrchardIvk(), 1n, lead, full), { ...hit, ciphertext: randomBytes(52) }];
          outs.push({ ...hit, nullifier: Uint8Array.from({ length: 32 }, () => 0xff) });
          outs.push({ ...hit, ephemeralKey: new Uint8Array(32) });
          for (const out of outs)
            for (const pool of ["orchard", "ironwood"] as const) expect(text(batchTryAction(prepared, pool, out))).toBe(text(referenceAction(watches, pool, out)));
          expect(batchTryAction(prepared, lead === 0x02 ? "orchard" : "ironwood", hit).map((h) => h.watch)).toEqual([target]);
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);

  it("watches without a protocol, with out-of-range Sapling ivks, on other networks, and a payment to two watches' shared key", () => {
    const watches = Array.from({ length: WATCHES }, (_, i) => randomWatch(i % 3 === 0 ? "testnet" : "mainnet"));
    watches[1] = { ...watches[1]!, sapling: [] };
    watches[2] = { ...watches[2]!, orchard: [] };
    watches[3] = { ...watches[3]!, sapling: [{ ...watches[3]!.sapling[0]!, ivk: JUBJUB_R + 5n }, watches[3]!.sapling[1]!] };
    watches[4] = { ...watches[4]!, sapling: [{ ...watches[4]!.sapling[0]!, ivk: 0n }, watches[4]!.sapling[1]!], orchard: [{ ...watches[4]!.orchard[0]!, ivk: PALLAS_Q }, watches[4]!.orchard[1]!] };
    watches[5] = { ...watches[5]!, sapling: [watches[6]!.sapling[0]!], orchard: [watches[6]!.orchard[1]!] };
    const prepared = prepareKeys(watches);
    const sOuts = [saplingOutputTo(watches[3]!.sapling[1]!.ivk, 3n), saplingOutputTo(watches[6]!.sapling[0]!.ivk, 6n), saplingOutputTo(watches[0]!.sapling[0]!.ivk, 9n)];
    for (const out of sOuts)
      for (const h of [undefined, 1_030_000, 1_100_000]) expect(text(batchTrySapling(prepared, out, h))).toBe(text(referenceSapling(watches, out, h)));
    expect(batchTrySapling(prepared, sOuts[1]!).map((h) => h.watch)).toEqual([5, 6]);
    const aOut = actionOutputTo(watches[6]!.orchard[1]!.ivk, 8n, 0x02);
    expect(batchTryAction(prepared, "orchard", aOut).map((h) => h.watch)).toEqual([5, 6]);
    expect(text(batchTryAction(prepared, "orchard", aOut))).toBe(text(referenceAction(watches, "orchard", aOut)));
  }, 180_000);

  it("a single watch (reference path) gives the same answers", () => {
    const watches = [randomWatch()];
    const prepared = prepareKeys(watches);
    const out = saplingOutputTo(watches[0]!.sapling[1]!.ivk, 1n);
    expect(text(batchTrySapling(prepared, out))).toBe(text(referenceSapling(watches, out)));
    expect(batchTrySapling(prepared, out)).toHaveLength(1);
  });
});

const load = (f: string): VectorRow[] => (vectorsPresent ? loadVectors(f) : []);

describe.skipIf(!vectorsPresent)("batch trial decryption on the official vectors", () => {
  it("Sapling (lead 0x01, before the end of Canopy's grace window): every row's key is found among random watches", () => {
    for (const row of load("sapling_note_encryption.json")) {
      const watches = Array.from({ length: WATCHES }, () => randomWatch());
      watches[7] = { network: "mainnet", sapling: [watches[7]!.sapling[0]!, { scope: "internal", ivk: leBytesToBigint(hexToBytes(str(row, "ivk"))), dk: new Uint8Array(32) }], orchard: [] };
      const prepared = prepareKeys(watches);
      const out = { cmu: hexToBytes(str(row, "cmu")), ephemeralKey: hexToBytes(str(row, "epk")), ciphertext: hexToBytes(str(row, "c_enc")) };
      for (const ct of [out.ciphertext, out.ciphertext.slice(0, 52)]) {
        const o = { ...out, ciphertext: ct };
        const hits = batchTrySapling(prepared, o, 1_000_000);
        expect(hits.map((h) => h.watch)).toEqual([7]);
        expect(text(hits)).toBe(text(referenceSapling(watches, o, 1_000_000)));
        expect(batchTrySapling(prepared, o, 2_000_000)).toEqual([]);
      }
    }
  }, 300_000);

  it("Orchard (lead 0x02): every row's key is found, and refused in the Ironwood pool", () => {
    for (const row of load("orchard_note_encryption.json")) {
      const ivkBytes = hexToBytes(str(row, "incoming_viewing_key"));
      const watches = Array.from({ length: WATCHES }, () => randomWatch());
      watches[2] = { network: "mainnet", sapling: [], orchard: [watches[2]!.orchard[0]!, { scope: "internal", ivk: leBytesToBigint(ivkBytes.slice(32)), dk: ivkBytes.slice(0, 32) }] };
      const prepared = prepareKeys(watches);
      const out = { nullifier: hexToBytes(str(row, "rho")), cmx: hexToBytes(str(row, "cmx")), ephemeralKey: hexToBytes(str(row, "ephemeral_key")), ciphertext: hexToBytes(str(row, "c_enc")) };
      for (const ct of [out.ciphertext, out.ciphertext.slice(0, 52)]) {
        const o = { ...out, ciphertext: ct };
        const hits = batchTryAction(prepared, "orchard", o);
        expect(hits.map((h) => h.watch)).toEqual([2]);
        expect(text(hits)).toBe(text(referenceAction(watches, "orchard", o)));
        expect(batchTryAction(prepared, "ironwood", o)).toEqual([]);
      }
    }
  }, 300_000);

  it("Ironwood (lead 0x03, ZIP 2005 rcm): notes to the vectors' addresses are found with their keys", () => {
    for (const row of load("orchard_zip2005_qr_rcm.json").slice(0, 4)) {
      const fvk = orchardFvkFromSk(hexToBytes(str(row, "sk")));
      const parts = orchardIvkParts(fvk, "external")!;
      const addr = new Uint8Array([...hexToBytes(str(row, "default_d")), ...hexToBytes(str(row, "default_pk_d"))]);
      const enc = encryptAction(addr, 42n, new Uint8Array(512), 0x03, hexToBytes(str(row, "note_rseed")));
      const watches = Array.from({ length: WATCHES }, () => randomWatch());
      watches[9] = { network: "mainnet", sapling: [], orchard: [{ scope: "external", ivk: parts.ivk, dk: parts.dk, nk: fvk.nk }] };
      const prepared = prepareKeys(watches);
      const out = { nullifier: enc.rho!, cmx: enc.cmu, ephemeralKey: enc.ephemeralKey, ciphertext: enc.encCiphertext.slice(0, 52) };
      const hits = batchTryAction(prepared, "ironwood", out);
      expect(hits.map((h) => h.watch)).toEqual([9]);
      expect(hits[0]!.note.value).toBe(42n);
      expect(text(hits)).toBe(text(referenceAction(watches, "ironwood", out)));
    }
  }, 300_000);
});

describe("BLAKE2b KDF (one 64-byte block)", () => {
  it("equals @noble/hashes for both personalisations", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.constantFrom("Zcash_SaplingKDF", "Zcash_OrchardKDF"), (msg, pers) => {
        const p = new TextEncoder().encode(pers);
        expect(Buffer.from(kdf64(kdfState(p), msg)).toString("hex")).toBe(Buffer.from(blake2b(msg, { dkLen: 32, personalization: p })).toString("hex"));
      }),
      { numRuns: 300 },
    );
  });
});
