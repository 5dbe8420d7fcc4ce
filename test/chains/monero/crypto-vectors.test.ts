import { describe, expect, it } from "vitest";
import {
  checkKey,
  derivePublicKey,
  deriveSecretKey,
  deriveViewTag,
  derivationToScalar,
  generateKeyDerivation,
  hashToScalar,
  isCanonicalScalar,
  keccak,
  scalarFromBytes,
  scalarToBytes,
  secretKeyToPublicKey,
  L,
} from "../../../src/chains/monero/crypto.js";
import { bytesToHex, encodeVarint, hexToBytes, ByteReader } from "../../../src/chains/monero/encoding.js";
import { VECTOR_DIR, readVector, vectorsPresent } from "./vectors.js";

const lines = vectorsPresent ? readVector("crypto-tests.txt").split("\n").filter((l) => l.trim() !== "") : [];
const bySection = (name: string) => lines.map((l) => l.trim().split(" ")).filter((f) => f[0] === name);
const hexOrEmpty = (s: string) => (s === "x" ? new Uint8Array(0) : hexToBytes(s));

describe.skipIf(!vectorsPresent)(`Monero crypto-tests.txt (${VECTOR_DIR})`, () => {
  it("has the documented 505 lines", () => {
    expect(lines.length).toBe(505);
  });

  it("check_scalar (every line)", () => {
    const rows = bySection("check_scalar");
    expect(rows.length).toBe(40);
    for (const [, s, res] of rows) expect(isCanonicalScalar(hexToBytes(s!)), s).toBe(res === "true");
  });

  it("hash_to_scalar (every line)", () => {
    const rows = bySection("hash_to_scalar");
    expect(rows.length).toBe(73);
    for (const [, data, s] of rows) expect(bytesToHex(scalarToBytes(hashToScalar(hexOrEmpty(data!))))).toBe(s);
  });

  it("check_key (every line)", () => {
    const rows = bySection("check_key");
    expect(rows.length).toBe(80);
    expect(rows.some((r) => r[2] === "false")).toBe(true);
    for (const [, k, res] of rows) expect(checkKey(hexToBytes(k!)), k).toBe(res === "true");
  });

  it("secret_key_to_public_key (every line)", () => {
    const rows = bySection("secret_key_to_public_key");
    expect(rows.length).toBe(60);
    for (const [, s, ok, p] of rows) {
      const pub = secretKeyToPublicKey(hexToBytes(s!));
      if (ok === "true") expect(pub && bytesToHex(pub)).toBe(p);
      else expect(pub).toBeNull();
    }
  });

  it("generate_key_derivation = 8·(a·R) (every line)", () => {
    const rows = bySection("generate_key_derivation");
    expect(rows.length).toBe(71);
    for (const [, R, a, ok, D] of rows) {
      const d = generateKeyDerivation(hexToBytes(R!), scalarFromBytes(hexToBytes(a!)));
      if (ok === "true") expect(d && bytesToHex(d), `${R} ${a}`).toBe(D);
      else expect(d).toBeNull();
    }
  });

  it("derive_public_key (every line)", () => {
    const rows = bySection("derive_public_key");
    expect(rows.length).toBe(70);
    for (const [, D, i, B, ok, P] of rows) {
      const p = derivePublicKey(hexToBytes(D!), Number(i), hexToBytes(B!));
      if (ok === "true") expect(p && bytesToHex(p)).toBe(P);
      else expect(p).toBeNull();
    }
  });

  it("derive_secret_key and derivation_to_scalar = X − b (every line)", () => {
    const rows = bySection("derive_secret_key");
    expect(rows.length).toBe(41);
    for (const [, D, i, b, X] of rows) {
      expect(bytesToHex(deriveSecretKey(hexToBytes(D!), Number(i), hexToBytes(b!)))).toBe(X);
      const s = derivationToScalar(hexToBytes(D!), Number(i));
      expect((((scalarFromBytes(hexToBytes(X!)) - scalarFromBytes(hexToBytes(b!))) % L) + L) % L).toBe(s);
    }
  });

  it("derive_view_tag, including 2-byte varint indices (every line)", () => {
    const rows = bySection("derive_view_tag");
    expect(rows.length).toBe(70);
    expect(rows.some((r) => Number(r[2]) >= 128)).toBe(true);
    for (const [, D, i, T] of rows) expect(deriveViewTag(hexToBytes(D!), Number(i)).toString(16).padStart(2, "0")).toBe(T);
  });

  it("covers every line of the file", () => {
    const sections = new Set(lines.map((l) => l.split(" ")[0]));
    expect([...sections].sort()).toEqual(
      [
        "check_key",
        "check_scalar",
        "derive_public_key",
        "derive_secret_key",
        "derive_view_tag",
        "generate_key_derivation",
        "hash_to_scalar",
        "secret_key_to_public_key",
      ].sort(),
    );
  });
});

describe.skipIf(!vectorsPresent)("Monero hash-fast.txt (Keccak-256, every line)", () => {
  it("matches all 40 lines, and is not SHA3", () => {
    const rows = readVector("hash-fast.txt").split("\n").filter((l) => l.trim()).map((l) => l.trim().split(" "));
    expect(rows.length).toBe(40);
    for (const [h, data] of rows) expect(bytesToHex(keccak(hexOrEmpty(data!)))).toBe(h);
    expect(bytesToHex(keccak(new Uint8Array(0)))).toBe("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  });
});

describe("Monero varint", () => {
  it("round-trips across byte boundaries and rejects overlong/non-canonical input", () => {
    for (const v of [0n, 1n, 127n, 128n, 300n, 16383n, 16384n, 2n ** 32n, 2n ** 63n, 2n ** 64n - 1n]) {
      const enc = encodeVarint(v);
      const r = new ByteReader(enc);
      expect(r.varint()).toBe(v);
      expect(r.remaining).toBe(0);
    }
    expect(bytesToHex(encodeVarint(128))).toBe("8001");
    expect(() => new ByteReader(Uint8Array.of(0x80, 0x00)).varint()).toThrow();
    expect(() => new ByteReader(new Uint8Array(11).fill(0xff)).varint()).toThrow();
    expect(() => new ByteReader(Uint8Array.of(0x80)).varint()).toThrow();
  });
});

describe("fast single-block Keccak equals @noble/hashes keccak_256", () => {
  it("for every length 0..300 and random content", async () => {
    const { keccak_256 } = await import("@noble/hashes/sha3.js");
    const { keccak256, viewTagByte } = await import("../../../src/chains/monero/keccak.js");
    for (let len = 0; len <= 300; len++) {
      const data = Uint8Array.from({ length: len }, (_, i) => (i * 131 + len * 7) & 0xff);
      expect(bytesToHex(keccak256(data)), `len ${len}`).toBe(bytesToHex(keccak_256(data)));
    }
    const D = Uint8Array.from({ length: 32 }, (_, i) => i * 5);
    for (const i of [0, 1, 127, 128, 300, 16384, 2 ** 31]) {
      const tag = keccak_256(Uint8Array.from([...new TextEncoder().encode("view_tag"), ...D, ...encodeVarint(i)]))[0];
      expect(viewTagByte(D, i)).toBe(tag);
    }
  });
});
