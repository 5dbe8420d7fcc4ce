import { describe, expect, it } from "vitest";
import { bigintToLeBytes, bytesToHex, hexToBytes, leBytesToBigint } from "../../../src/chains/zcash/bytes.js";
import { jubjubFromBytes, saplingDiversifyHash } from "../../../src/chains/zcash/jubjub.js";
import { orchardNoteCommit, orchardRcm, saplingNoteCommit } from "../../../src/chains/zcash/note-decrypt.js";
import { orchardNullifier, poseidonHash2, saplingNullifier } from "../../../src/chains/zcash/nullifier.js";
import { orchardDiversifyHash, pallasToBytes } from "../../../src/chains/zcash/pallas.js";
import { prfExpand, toBaseOrchard } from "../../../src/chains/zcash/prf.js";
import { loadVectors, str, vectorsPresent, warnIfAbsent, type VectorRow } from "./vectors.js";

warnIfAbsent();
const load = (f: string): VectorRow[] => (vectorsPresent ? loadVectors(f) : []);
const hex = (row: VectorRow, k: string) => hexToBytes(str(row, k));
const le = (row: VectorRow, k: string) => leBytesToBigint(hex(row, k));

describe.skipIf(!vectorsPresent)("nullifiers", () => {
  it.each(load("orchard_poseidon_hash.json").map((r, i) => [i, r] as const))("Poseidon hash row %i", (_i, row) => {
    const [a, b] = (row.input as string[]).map((x) => leBytesToBigint(hexToBytes(x)));
    expect(bytesToHex(bigintToLeBytes(poseidonHash2(a, b), 32))).toBe(str(row, "output"));
  });
  it.each(load("sapling_key_components.json").map((r, i) => [i, r] as const))("Sapling nf row %i", (_i, row) => {
    const gd = saplingDiversifyHash(hex(row, "default_d"))!;
    const pkd = jubjubFromBytes(hex(row, "default_pk_d"))!;
    const cm = saplingNoteCommit(gd, pkd, BigInt(row.note_v as number | string), le(row, "note_r"));
    const nf = saplingNullifier(jubjubFromBytes(hex(row, "nk"))!, cm, BigInt(row.note_pos as number | string));
    expect(bytesToHex(nf)).toBe(str(row, "note_nf"));
  });
  it.each(load("orchard_key_components.json").map((r, i) => [i, r] as const))("Orchard nf row %i", (_i, row) => {
    const gd = pallasToBytes(orchardDiversifyHash(hex(row, "default_d")));
    const pkd = hex(row, "default_pk_d");
    const v = BigInt(row.note_v as number | string);
    const rho = hex(row, "note_rho");
    const rseed = hex(row, "note_rseed");
    const psi = toBaseOrchard(prfExpand(rseed, Uint8Array.of(0x09), rho));
    const cm = orchardNoteCommit(gd, pkd, v, leBytesToBigint(rho), psi, orchardRcm(0x02, rseed, rho, gd, pkd, v, psi))!;
    expect(bytesToHex(orchardNullifier(le(row, "nk"), leBytesToBigint(rho), psi, cm))).toBe(str(row, "note_nf"));
  });
});

