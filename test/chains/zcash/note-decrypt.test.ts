import { describe, expect, it } from "vitest";
import { bigintToLeBytes, bytesToHex, hexToBytes, leBytesToBigint } from "../../../src/chains/zcash/bytes.js";
import { jubjubExtract, jubjubFromBytes, saplingDiversifyHash } from "../../../src/chains/zcash/jubjub.js";
import {
  decodeMemo,
  encodeTextMemo,
  orchardNoteCommit,
  orchardRcm,
  saplingLeadBytesAt,
  saplingNoteCommit,
  tryActionOutput,
  trySaplingOutput,
  type ScanKeys,
} from "../../../src/chains/zcash/note-decrypt.js";
import { orchardDiversifyHash, pallasExtract, pallasToBytes } from "../../../src/chains/zcash/pallas.js";
import { prfExpand, toBaseOrchard } from "../../../src/chains/zcash/prf.js";
import { loadVectors, str, vectorsPresent, warnIfAbsent, type VectorRow } from "./vectors.js";

warnIfAbsent();
const load = (f: string): VectorRow[] => (vectorsPresent ? loadVectors(f) : []);
const big = (row: VectorRow, k: string): bigint => BigInt(row[k] as string | number);
const anyDk = new Uint8Array(32);

describe.skipIf(!vectorsPresent)("Sapling note encryption vectors (lead byte 0x01)", () => {
  const rows = load("sapling_note_encryption.json");
  it("has rows", () => expect(rows.length).toBeGreaterThanOrEqual(10));
  it.each(rows.map((r, i) => [i, r] as const))("row %i: full and compact decryption find the note; NoteCommit gives cmu", (_i, row) => {
    const keys: ScanKeys = { network: "mainnet", sapling: [{ scope: "external", ivk: leBytesToBigint(hexToBytes(str(row, "ivk"))), dk: anyDk }], orchard: [] };
    const out = { cmu: hexToBytes(str(row, "cmu")), ephemeralKey: hexToBytes(str(row, "epk")), ciphertext: hexToBytes(str(row, "c_enc")) };
    // Lead byte 0x01 belongs before Canopy's grace window ends.
    const full = trySaplingOutput(keys, out, 1_000_000);
    expect(full).not.toBeNull();
    expect(full!.value).toBe(big(row, "v"));
    expect(bytesToHex(full!.diversifier)).toBe(str(row, "default_d"));
    expect(bytesToHex(full!.memo!)).toBe(str(row, "memo"));
    const compact = trySaplingOutput(keys, { ...out, ciphertext: out.ciphertext.slice(0, 52) }, 1_000_000);
    expect(compact?.value).toBe(big(row, "v"));
    expect(compact?.memo).toBeUndefined();
    // After the ZIP 212 grace period a 0x01 plaintext is refused.
    expect(trySaplingOutput(keys, out, 2_000_000)).toBeNull();
    // A different cmu, a flipped ciphertext bit or another ivk: not ours.
    const badCmu = out.cmu.slice();
    badCmu[0] ^= 1;
    expect(trySaplingOutput(keys, { ...out, cmu: badCmu }, 1_000_000)).toBeNull();
    const badCt = out.ciphertext.slice();
    badCt[100] ^= 1;
    expect(trySaplingOutput(keys, { ...out, ciphertext: badCt }, 1_000_000)).toBeNull();
    const other: ScanKeys = { ...keys, sapling: [{ scope: "external", ivk: keys.sapling[0].ivk + 1n, dk: anyDk }] };
    expect(trySaplingOutput(other, out, 1_000_000)).toBeNull();
  });
});

describe.skipIf(!vectorsPresent)("Sapling NoteCommit", () => {
  it.each(load("sapling_key_components.json").map((r, i) => [i, r] as const))("row %i: cmu recomputes", (_i, row) => {
    const gd = saplingDiversifyHash(hexToBytes(str(row, "default_d")))!;
    const pkd = jubjubFromBytes(hexToBytes(str(row, "default_pk_d")))!;
    const cm = saplingNoteCommit(gd, pkd, big(row, "note_v"), leBytesToBigint(hexToBytes(str(row, "note_r"))));
    expect(bytesToHex(jubjubExtract(cm))).toBe(str(row, "note_cmu"));
  });
});

describe.skipIf(!vectorsPresent)("Orchard note encryption vectors (lead byte 0x02)", () => {
  const rows = load("orchard_note_encryption.json");
  it("has rows", () => expect(rows.length).toBeGreaterThanOrEqual(10));
  it.each(rows.map((r, i) => [i, r] as const))("row %i: full and compact decryption find the note", (_i, row) => {
    const ivkBytes = hexToBytes(str(row, "incoming_viewing_key"));
    const keys: ScanKeys = { network: "mainnet", sapling: [], orchard: [{ scope: "internal", ivk: leBytesToBigint(ivkBytes.slice(32)), dk: ivkBytes.slice(0, 32) }] };
    const out = {
      nullifier: hexToBytes(str(row, "rho")),
      cmx: hexToBytes(str(row, "cmx")),
      ephemeralKey: hexToBytes(str(row, "ephemeral_key")),
      ciphertext: hexToBytes(str(row, "c_enc")),
    };
    const full = tryActionOutput(keys, "orchard", out);
    expect(full).not.toBeNull();
    expect(full!.value).toBe(big(row, "v"));
    expect(full!.scope).toBe("internal");
    expect(bytesToHex(full!.rseed)).toBe(str(row, "rseed"));
    expect(bytesToHex(full!.memo!)).toBe(str(row, "memo"));
    expect(full!.diversifierIndex).toBeDefined();
    expect(tryActionOutput(keys, "orchard", { ...out, ciphertext: out.ciphertext.slice(0, 52) })?.value).toBe(big(row, "v"));
    // The same action read as Ironwood (lead 0x03 required) is refused, and so is a wrong ρ.
    expect(tryActionOutput(keys, "ironwood", out)).toBeNull();
    const badRho = out.nullifier.slice();
    badRho[0] ^= 1;
    expect(tryActionOutput(keys, "orchard", { ...out, nullifier: badRho })).toBeNull();
  });
});

describe.skipIf(!vectorsPresent)("Ironwood rcm (ZIP 2005) and NoteCommit^Orchard", () => {
  it.each(load("orchard_zip2005_qr_rcm.json").map((r, i) => [i, r] as const))("row %i: v2 and v3 cmx recompute", (_i, row) => {
    const d = hexToBytes(str(row, "default_d"));
    const gd = pallasToBytes(orchardDiversifyHash(d));
    const pkd = hexToBytes(str(row, "default_pk_d"));
    const v = big(row, "note_v");
    const rho = hexToBytes(str(row, "note_rho"));
    const rseed = hexToBytes(str(row, "note_rseed"));
    const psi = toBaseOrchard(prfExpand(rseed, Uint8Array.of(0x09), rho));
    for (const [lead, col] of [
      [0x02, "note_cmx"],
      [0x03, "note_qr_cmx"],
    ] as const) {
      const cm = orchardNoteCommit(gd, pkd, v, leBytesToBigint(rho), psi, orchardRcm(lead, rseed, rho, gd, pkd, v, psi));
      expect(bytesToHex(bigintToLeBytes(pallasExtract(cm!), 32))).toBe(str(row, col));
    }
  });
});

describe("lead bytes by height (ZIP 212)", () => {
  it("follows Canopy and its grace window", () => {
    expect(saplingLeadBytesAt("mainnet", 1_046_399)).toEqual([0x01]);
    expect(saplingLeadBytesAt("mainnet", 1_046_400)).toEqual([0x01, 0x02]);
    expect(saplingLeadBytesAt("mainnet", 1_078_655)).toEqual([0x01, 0x02]);
    expect(saplingLeadBytesAt("mainnet", 1_078_656)).toEqual([0x02]);
    expect(saplingLeadBytesAt("testnet", 1_028_499)).toEqual([0x01]);
    expect(saplingLeadBytesAt("mainnet")).toEqual([0x01, 0x02]);
  });
});

describe("ZIP 302 memos", () => {
  it("decodes text, empty, binary and reserved forms", () => {
    expect(decodeMemo(encodeTextMemo("invoice 42 ✓"))).toEqual({ text: "invoice 42 ✓" });
    expect(decodeMemo(encodeTextMemo(""))).toBeNull();
    const bin = new Uint8Array(512);
    bin[0] = 0xff;
    bin[1] = 0xab;
    expect(decodeMemo(bin)).toEqual({ hex: `ab${"00".repeat(510)}` });
    const reserved = new Uint8Array(512);
    reserved[0] = 0xf5;
    expect(decodeMemo(reserved)).toEqual({ hex: `f5${"00".repeat(511)}` });
    const badUtf8 = new Uint8Array(512);
    badUtf8[0] = 0xc3;
    badUtf8[1] = 0x28;
    expect(decodeMemo(badUtf8)).toEqual({ hex: bytesToHex(badUtf8) });
    const f6junk = new Uint8Array(512);
    f6junk[0] = 0xf6;
    f6junk[9] = 1;
    expect(decodeMemo(f6junk)).toEqual({ hex: bytesToHex(f6junk) });
  });
});
