import { describe, expect, it } from "vitest";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex, hexToBytes, leBytesToBigint, asciiBytes, u32le, bigintToLeBytes } from "../../../src/chains/zcash/bytes.js";
import { jubjubFromBytes, jubjubToBytes, saplingBases, saplingFindGroupHash, saplingPedersenBase } from "../../../src/chains/zcash/jubjub.js";
import { mapToIsoPallasBytes, orchardBasesGK, pallasFromBytes, pallasGroupHash, pallasToBytes, PallasPoint } from "../../../src/chains/zcash/pallas.js";
import { sinsemillaHash, sinsemillaHashToPoint, sinsemillaS, sinsemillaSFromDefinition } from "../../../src/chains/zcash/sinsemilla.js";
import { f4jumble, f4jumbleInv, F4JUMBLE_MAX } from "../../../src/chains/zcash/f4jumble.js";
import { bech32Decode, bech32mEncode, bech32Encode } from "../../../src/chains/zcash/bech32.js";
import { PALLAS_P, prfExpand } from "../../../src/chains/zcash/prf.js";
import { loadVectors, num, str, vectorsPresent, warnIfAbsent } from "./vectors.js";

warnIfAbsent();
const ascii = (hex: string) => Buffer.from(hex, "hex").toString("ascii");

describe.skipIf(!vectorsPresent)("Jubjub: Sapling generators (sapling_generators.json)", () => {
  const rows = vectorsPresent ? loadVectors("sapling_generators.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const b = saplingBases();
    const hex = (p: Parameters<typeof jubjubToBytes>[0]) => bytesToHex(jubjubToBytes(p));
    expect(hex(b.G)).toBe(str(r, "skb"));
    expect(hex(b.H)).toBe(str(r, "pkb"));
    expect(hex(b.J)).toBe(str(r, "npb"));
    expect(hex(b.R)).toBe(str(r, "wprb"));
    expect(hex(saplingFindGroupHash("Zcash_cv", asciiBytes("v")))).toBe(str(r, "vcvb"));
    expect(hex(saplingFindGroupHash("Zcash_cv", asciiBytes("r")))).toBe(str(r, "vcrb"));
    for (let i = 0; i < 4; i++) expect(hex(saplingPedersenBase(i + 1))).toBe(str(r, `pb${i}`));
    // repr_J round trip on every base
    for (const k of ["skb", "pkb", "npb", "wprb", "vcvb", "vcrb", "pb0", "pb1", "pb2", "pb3"]) {
      const p = jubjubFromBytes(hexToBytes(str(r, k)));
      expect(p).not.toBeNull();
      expect(bytesToHex(jubjubToBytes(p!))).toBe(str(r, k));
    }
  });
});

describe("Jubjub encoding", () => {
  it("rejects non-canonical and off-curve encodings", () => {
    // v = q (non-canonical) with sign 0
    const q = hexToBytes("01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73");
    expect(jubjubFromBytes(q)).toBeNull();
    expect(jubjubFromBytes(new Uint8Array(31))).toBeNull();
    // identity (v = 1, u = 0) decodes; u = 0 with the sign bit set does not (ZIP 216)
    const one = new Uint8Array(32);
    one[0] = 1;
    expect(jubjubFromBytes(one)?.is0()).toBe(true);
    const negZero = one.slice();
    negZero[31] |= 0x80;
    expect(jubjubFromBytes(negZero)).toBeNull();
  });
});

describe.skipIf(!vectorsPresent)("Pallas: Orchard generators (orchard_generators.json)", () => {
  const rows = vectorsPresent ? loadVectors("orchard_generators.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const hex = (p: PallasPoint) => bytesToHex(pallasToBytes(p));
    const { G, K } = orchardBasesGK();
    expect(hex(G)).toBe(str(r, "skb"));
    expect(hex(K)).toBe(str(r, "nkb"));
    expect(hex(pallasGroupHash("z.cash:Orchard-cv", asciiBytes("v")))).toBe(str(r, "vcvb"));
    expect(hex(pallasGroupHash("z.cash:Orchard-cv", asciiBytes("r")))).toBe(str(r, "vcrb"));
    expect(hex(pallasGroupHash("z.cash:Orchard-NoteCommit-r", new Uint8Array(0)))).toBe(str(r, "cmb"));
    expect(hex(pallasGroupHash("z.cash:SinsemillaQ", asciiBytes("z.cash:Orchard-NoteCommit-M")))).toBe(str(r, "cmq"));
    expect(hex(pallasGroupHash("z.cash:Orchard-CommitIvk-r", new Uint8Array(0)))).toBe(str(r, "ivkb"));
    expect(hex(pallasGroupHash("z.cash:SinsemillaQ", asciiBytes("z.cash:Orchard-CommitIvk-M")))).toBe(str(r, "ivkq"));
    expect(hex(pallasGroupHash("z.cash:SinsemillaQ", asciiBytes("z.cash:Orchard-MerkleCRH")))).toBe(str(r, "mcq"));
  });
});

describe.skipIf(!vectorsPresent)("Pallas GroupHash (orchard_group_hash.json)", () => {
  const rows = vectorsPresent ? loadVectors("orchard_group_hash.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const p = pallasGroupHash(hexToBytes(str(r, "domain")), hexToBytes(str(r, "msg")));
    expect(bytesToHex(pallasToBytes(p))).toBe(str(r, "point"));
    // repr_P round trip
    const back = pallasFromBytes(hexToBytes(str(r, "point")));
    expect(back && back.equals(p)).toBe(true);
  });
});

describe.skipIf(!vectorsPresent)("SSWU onto iso-Pallas (orchard_map_to_curve.json)", () => {
  const rows = vectorsPresent ? loadVectors("orchard_map_to_curve.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    expect(bytesToHex(mapToIsoPallasBytes(leBytesToBigint(hexToBytes(str(r, "u")))))).toBe(str(r, "point"));
  });
});

describe("Pallas encoding", () => {
  it("encodes the identity as zeros and rejects x ≥ p and non-points", () => {
    expect(bytesToHex(pallasToBytes(PallasPoint.ZERO))).toBe("00".repeat(32));
    expect(pallasFromBytes(new Uint8Array(32))?.is0()).toBe(true);
    expect(pallasFromBytes(bigintToLeBytes(PALLAS_P, 32))).toBeNull(); // x = p
    expect(pallasFromBytes(bigintToLeBytes(PALLAS_P + 4n, 32))).toBeNull();
    expect(pallasFromBytes(new Uint8Array(33))).toBeNull();
    // x = 0 with sign 1: 5 is not a square mod p, so there is no such point
    const z = new Uint8Array(32);
    z[31] = 0x80;
    expect(pallasFromBytes(z)).toBeNull();
    // generator (-1, 2) round trip
    const g = PallasPoint.BASE;
    expect(pallasFromBytes(pallasToBytes(g))!.equals(g)).toBe(true);
    expect(pallasFromBytes(pallasToBytes(g.negate()))!.equals(g.negate())).toBe(true);
  });
});

describe.skipIf(!vectorsPresent)("Sinsemilla (orchard_sinsemilla.json)", () => {
  const rows = vectorsPresent ? loadVectors("orchard_sinsemilla.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const msg = r.msg;
    const bits = typeof msg === "string" ? Array.from(hexToBytes(msg)) : (msg as number[]);
    const domain = ascii(str(r, "domain"));
    const p = sinsemillaHashToPoint(domain, bits);
    expect(p).not.toBeNull();
    expect(bytesToHex(pallasToBytes(p!))).toBe(str(r, "point"));
    expect(bytesToHex(Buffer.from(sinsemillaHash(domain, bits)!.toString(16).padStart(64, "0"), "hex").reverse())).toBe(str(r, "hash"));
  });
  it("rejects non-bit messages and over-long messages", () => {
    expect(() => sinsemillaHashToPoint("z.cash:test", [2])).toThrow();
    expect(() => sinsemillaHashToPoint("z.cash:test", new Array(2531).fill(0))).toThrow();
  });
});

describe("Sinsemilla S table", () => {
  it("every one of the 1024 shipped entries equals GroupHash^P(\"z.cash:SinsemillaS\", I2LEOSP_32(j))", () => {
    for (let j = 0; j < 1024; j++) expect(sinsemillaS(j).equals(sinsemillaSFromDefinition(j)), `S(${j})`).toBe(true);
  });
});

describe.skipIf(!vectorsPresent)("F4Jumble (f4jumble.json)", () => {
  const rows = vectorsPresent ? loadVectors("f4jumble.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i both directions", (_i, r) => {
    expect(bytesToHex(f4jumble(hexToBytes(str(r, "normal"))))).toBe(str(r, "jumbled"));
    expect(bytesToHex(f4jumbleInv(hexToBytes(str(r, "jumbled"))))).toBe(str(r, "normal"));
  });
});

describe.skipIf(!vectorsPresent)("F4Jumble long inputs (f4jumble_long.json)", () => {
  const rows = vectorsPresent ? loadVectors("f4jumble_long.json") : [];
  // The generator's input is bytes(i & 0xff for i in range(length)); only a BLAKE2b-512 of the output is stored.
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const len = num(r, "length");
    const m = new Uint8Array(len);
    for (let i = 0; i < len; i++) m[i] = i & 0xff;
    const j = f4jumble(m);
    expect(bytesToHex(blake2b(j))).toBe(str(r, "jumbled_hash"));
    expect(Buffer.from(f4jumbleInv(j)).equals(Buffer.from(m))).toBe(true);
  });
});

describe("F4Jumble bounds", () => {
  it("refuses lengths outside 48..4194368", () => {
    expect(() => f4jumble(new Uint8Array(47))).toThrow(RangeError);
    expect(() => f4jumbleInv(new Uint8Array(F4JUMBLE_MAX + 1))).toThrow(RangeError);
  });
});

describe("Bech32m without a length limit", () => {
  it("round-trips payloads far beyond 90 characters and tells Bech32 from Bech32m", () => {
    const data = new Uint8Array(2000).map((_, i) => (i * 37) & 0xff);
    const s = bech32mEncode("uview", data);
    expect(s.length).toBeGreaterThan(3000);
    const d = bech32Decode(s);
    expect(d.ok && d.variant === "bech32m" && d.hrp === "uview" && Buffer.from(d.data).equals(Buffer.from(data))).toBe(true);
    const b = bech32Decode(bech32Encode("zs", data.subarray(0, 43)));
    expect(b.ok && b.variant).toBe("bech32");
    expect(bech32Decode(s.toUpperCase()).ok).toBe(true);
  });
  it("reports checksum failures, mixed case and junk distinctly", () => {
    const s = bech32mEncode("u", new Uint8Array(60).fill(7));
    const flipped = s.slice(0, -1) + (s.endsWith("q") ? "p" : "q");
    expect(bech32Decode(flipped)).toEqual({ ok: false, reason: "invalid_checksum" });
    expect(bech32Decode("U" + s.slice(1))).toEqual({ ok: false, reason: "mixed_case" });
    expect(bech32Decode("hello world")).toEqual({ ok: false, reason: "malformed" });
    expect(bech32Decode("u1bio")).toEqual({ ok: false, reason: "malformed" });
  });
  it("accepts BIP-350 valid Bech32m strings", () => {
    for (const s of ["a1lqfn3a", "abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx", "split1checkupstagehandshakeupstreamerranterredcaperredlc445v"]) {
      const d = bech32Decode(s);
      expect(d.ok && d.variant).toBe("bech32m");
    }
  });
});

describe("PRF^expand", () => {
  it("is BLAKE2b-512 personalised with Zcash_ExpandSeed over sk ‖ t", () => {
    const sk = new Uint8Array(32).fill(1);
    const viaNoble = blake2b(new Uint8Array([...sk, 5, 6]), { dkLen: 64, personalization: asciiBytes("Zcash_ExpandSeed") });
    expect(bytesToHex(prfExpand(sk, Uint8Array.of(5), Uint8Array.of(6)))).toBe(bytesToHex(viaNoble));
    expect(prfExpand(sk, u32le(1)).length).toBe(64);
  });
});
