import { describe, expect, it } from "vitest";
import { bigintToLeBytes, bytesToBitsLE, bytesToHex, hexToBytes, intToBitsLE, leBytesToBigint } from "../../../src/chains/zcash/bytes.js";
import { orchardDiversifyHash, pallasExtract, pallasToBytes } from "../../../src/chains/zcash/pallas.js";
import { prfExpand, toBaseOrchard, toScalarOrchard } from "../../../src/chains/zcash/prf.js";
import { sinsemillaCommit } from "../../../src/chains/zcash/sinsemilla.js";
import { ff1Diversifier, ff1DiversifierIndex } from "../../../src/chains/zcash/ff1.js";
import { jubjubToBytes, saplingDiversifyHash } from "../../../src/chains/zcash/jubjub.js";
import {
  encodeSaplingXfvk,
  encodeSaplingXsk,
  saplingAk,
  saplingDeriveChild,
  saplingDeriveFvkChild,
  saplingExpandSpendingKey,
  saplingExtendedFvk,
  saplingFvkFingerprint,
  saplingInternalDfvk,
  saplingIvk,
  saplingLegacyDefaultDiversifier,
  saplingMasterKey,
  saplingNk,
  saplingPkD,
  type SaplingExtendedFvk,
  type SaplingExtendedSpendingKey,
} from "../../../src/chains/zcash/sapling-keys.js";
import {
  encodeOrchardXsk,
  orchardAddressAt,
  orchardDeriveChild,
  orchardFvkFromSk,
  orchardFvkFingerprint,
  orchardInternalRivk,
  orchardIvkParts,
  orchardMasterKey,
  orchardPkD,
} from "../../../src/chains/zcash/orchard-keys.js";
import {
  decodeTransparentAddress,
  encodeP2pkh,
  hash160,
  p2pkhHashAt,
  p2pkhHashesOfChain,
  publicChild,
  transparentAccountNode,
  transparentOvks,
} from "../../../src/chains/zcash/transparent.js";
import { loadVectors, num, optStr, str, vectorsPresent, warnIfAbsent, type VectorRow } from "./vectors.js";

warnIfAbsent();
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const H = 0x80000000;
const le = (x: bigint) => bytesToHex(bigintToLeBytes(x, 32));
const hex = bytesToHex;

describe.skipIf(!vectorsPresent)("Sapling key components (sapling_key_components.json)", () => {
  const rows = vectorsPresent ? loadVectors("sapling_key_components.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const sk = hexToBytes(str(r, "sk"));
    const x = saplingExpandSpendingKey(sk);
    expect(le(x.ask)).toBe(str(r, "ask"));
    expect(le(x.nsk)).toBe(str(r, "nsk"));
    expect(hex(x.ovk)).toBe(str(r, "ovk"));
    const ak = saplingAk(x.ask);
    const nk = saplingNk(x.nsk);
    expect(hex(jubjubToBytes(ak))).toBe(str(r, "ak"));
    expect(hex(jubjubToBytes(nk))).toBe(str(r, "nk"));
    const ivk = saplingIvk(ak, nk);
    expect(le(ivk)).toBe(str(r, "ivk"));
    const d = saplingLegacyDefaultDiversifier(sk);
    expect(hex(d)).toBe(str(r, "default_d"));
    expect(hex(jubjubToBytes(saplingPkD(ivk, d)!))).toBe(str(r, "default_pk_d"));
  });
});

function checkSaplingRow(r: VectorRow, xsk: SaplingExtendedSpendingKey | null, xfvk: SaplingExtendedFvk) {
  if (xsk) {
    expect(le(xsk.ask)).toBe(str(r, "ask"));
    expect(le(xsk.nsk)).toBe(str(r, "nsk"));
    expect(hex(encodeSaplingXsk(xsk))).toBe(str(r, "xsk"));
  } else {
    expect(r.ask).toBeNull();
    expect(r.xsk).toBeNull();
  }
  expect(hex(xfvk.ovk)).toBe(str(r, "ovk"));
  expect(hex(xfvk.dk)).toBe(str(r, "dk"));
  expect(hex(xfvk.chainCode)).toBe(str(r, "c"));
  expect(hex(jubjubToBytes(xfvk.ak))).toBe(str(r, "ak"));
  expect(hex(jubjubToBytes(xfvk.nk))).toBe(str(r, "nk"));
  const ivk = saplingIvk(xfvk.ak, xfvk.nk);
  expect(le(ivk)).toBe(str(r, "ivk"));
  expect(hex(encodeSaplingXfvk(xfvk))).toBe(str(r, "xfvk"));
  expect(hex(saplingFvkFingerprint(xfvk))).toBe(str(r, "fp"));
  // FF1 diversifiers at j = 0, 1, 2, 2^88-1; null where GroupHash says the diversifier is invalid
  const js: [string, bigint][] = [["d0", 0n], ["d1", 1n], ["d2", 2n], ["dmax", (1n << 88n) - 1n]];
  for (const [k, j] of js) {
    const d = ff1Diversifier(xfvk.dk, j);
    const want = optStr(r, k);
    if (want === null) expect(saplingDiversifyHash(d)).toBeNull();
    else {
      expect(hex(d)).toBe(want);
      expect(ff1DiversifierIndex(xfvk.dk, d)).toBe(j);
    }
  }
  // internal (change) keys
  const internal = saplingInternalDfvk(xfvk);
  if (xsk) expect(le((xsk.nsk + internal.nskTweak) % 0x0e7db4ea6533afa906673b0101343b00a6682093ccc81082d0970e5ed6f72cb7n)).toBe(str(r, "internal_nsk"));
  expect(hex(internal.ovk)).toBe(str(r, "internal_ovk"));
  expect(hex(internal.dk)).toBe(str(r, "internal_dk"));
  expect(hex(jubjubToBytes(internal.nk))).toBe(str(r, "internal_nk"));
  expect(le(saplingIvk(internal.ak, internal.nk))).toBe(str(r, "internal_ivk"));
  const ixfvk = { ...xfvk, nk: internal.nk, ovk: internal.ovk, dk: internal.dk };
  expect(hex(encodeSaplingXfvk(ixfvk))).toBe(str(r, "internal_xfvk"));
  expect(hex(saplingFvkFingerprint(ixfvk))).toBe(str(r, "internal_fp"));
  if (xsk) {
    const ixsk = { ...xsk, nsk: (xsk.nsk + internal.nskTweak) % 0x0e7db4ea6533afa906673b0101343b00a6682093ccc81082d0970e5ed6f72cb7n, ovk: internal.ovk, dk: internal.dk };
    expect(hex(encodeSaplingXsk(ixsk))).toBe(str(r, "internal_xsk"));
  }
}

describe.skipIf(!vectorsPresent)("ZIP-32 Sapling hardened path m, m/1', m/1'/2', m/1'/2'/3' (sapling_zip32_hard.json)", () => {
  const rows = vectorsPresent ? loadVectors("sapling_zip32_hard.json") : [];
  it("has the four rows", () => expect(rows.length).toBe(4));
  let k = saplingMasterKey(SEED);
  const keys = [k];
  for (const i of [1, 2, 3]) keys.push((k = saplingDeriveChild(k, i + H)));
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (i, r) => checkSaplingRow(r, keys[i], saplingExtendedFvk(keys[i])));
});

describe.skipIf(!vectorsPresent)("ZIP-32 Sapling mixed path m, m/1, m/1/2', FVK(m/1/2'), FVK m/1/2'/3 (sapling_zip32.json)", () => {
  const rows = vectorsPresent ? loadVectors("sapling_zip32.json") : [];
  it("has the five rows", () => expect(rows.length).toBe(5));
  const m = saplingMasterKey(SEED);
  const m1 = saplingDeriveChild(m, 1);
  const m12 = saplingDeriveChild(m1, 2 + H);
  const f12 = saplingExtendedFvk(m12);
  const f123 = saplingDeriveFvkChild(f12, 3);
  const cases: [SaplingExtendedSpendingKey | null, SaplingExtendedFvk][] = [
    [m, saplingExtendedFvk(m)],
    [m1, saplingExtendedFvk(m1)],
    [m12, f12],
    [null, f12],
    [null, f123],
  ];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (i, r) => checkSaplingRow(r, cases[i][0], cases[i][1]));
  it("CKDsk and CKDfvk agree on a non-hardened child", () => {
    const viaSk = saplingExtendedFvk(saplingDeriveChild(m12, 3));
    expect(hex(encodeSaplingXfvk(viaSk))).toBe(hex(encodeSaplingXfvk(f123)));
  });
});

describe.skipIf(!vectorsPresent)("Orchard key components (orchard_key_components.json)", () => {
  const rows = vectorsPresent ? loadVectors("orchard_key_components.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const fvk = orchardFvkFromSk(hexToBytes(str(r, "sk")));
    expect(le(fvk.ask)).toBe(str(r, "ask"));
    expect(le(fvk.ak)).toBe(str(r, "ak"));
    expect(le(fvk.nk)).toBe(str(r, "nk"));
    expect(le(fvk.rivk)).toBe(str(r, "rivk"));
    const ext = orchardIvkParts(fvk, "external")!;
    expect(le(ext.ivk)).toBe(str(r, "ivk"));
    expect(hex(ext.ovk)).toBe(str(r, "ovk"));
    expect(hex(ext.dk)).toBe(str(r, "dk"));
    const addr = orchardAddressAt(ext, 0n);
    expect(hex(addr.subarray(0, 11))).toBe(str(r, "default_d"));
    expect(hex(addr.subarray(11))).toBe(str(r, "default_pk_d"));
    expect(hex(orchardPkD(ext.ivk, hexToBytes(str(r, "default_d"))))).toBe(str(r, "default_pk_d"));
    expect(le(orchardInternalRivk(fvk))).toBe(str(r, "internal_rivk"));
    const int = orchardIvkParts(fvk, "internal")!;
    expect(le(int.ivk)).toBe(str(r, "internal_ivk"));
    expect(hex(int.ovk)).toBe(str(r, "internal_ovk"));
    expect(hex(int.dk)).toBe(str(r, "internal_dk"));
    // SinsemillaCommit through NoteCommit^Orchard: cmx of the row's note (lead byte 0x02 rcm).
    const rho = hexToBytes(str(r, "note_rho"));
    const rseed = hexToBytes(str(r, "note_rseed"));
    const rcm = toScalarOrchard(prfExpand(rseed, Uint8Array.of(0x05), rho));
    const psi = toBaseOrchard(prfExpand(rseed, Uint8Array.of(0x09), rho));
    const d = hexToBytes(str(r, "default_d"));
    const bits = [
      ...bytesToBitsLE(pallasToBytes(orchardDiversifyHash(d))),
      ...bytesToBitsLE(hexToBytes(str(r, "default_pk_d"))),
      ...intToBitsLE(BigInt(String(r.note_v)), 64),
      ...intToBitsLE(leBytesToBigint(rho), 255),
      ...intToBitsLE(psi, 255),
    ];
    const cm = sinsemillaCommit("z.cash:Orchard-NoteCommit", bits, rcm)!;
    expect(le(pallasExtract(cm))).toBe(str(r, "note_cmx"));
  });
});

describe.skipIf(!vectorsPresent)("ZIP-32 Orchard m, m/1', m/1'/2', m/1'/2'/3' (orchard_zip32.json)", () => {
  const rows = vectorsPresent ? loadVectors("orchard_zip32.json") : [];
  it("has the four rows", () => expect(rows.length).toBe(4));
  let k = orchardMasterKey(SEED);
  const keys = [k];
  for (const i of [1, 2, 3]) keys.push((k = orchardDeriveChild(k, i + H)));
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (i, r) => {
    expect(hex(keys[i].sk)).toBe(str(r, "sk"));
    expect(hex(keys[i].chainCode)).toBe(str(r, "c"));
    expect(hex(encodeOrchardXsk(keys[i]))).toBe(str(r, "xsk"));
    const { ak, nk, rivk } = orchardFvkFromSk(keys[i].sk);
    expect(hex(orchardFvkFingerprint({ ak, nk, rivk }))).toBe(str(r, "fp"));
  });
  it("refuses non-hardened Orchard children", () => {
    expect(() => orchardDeriveChild(keys[0], 1)).toThrow(RangeError);
  });
});

describe.skipIf(!vectorsPresent)("BIP-32 transparent account keys m/44'/133'/a' (bip_0032.json)", () => {
  const rows = vectorsPresent ? loadVectors("bip_0032.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const node = transparentAccountNode(SEED, 133, num(r, "account"));
    expect(hex(node.chainCode)).toBe(str(r, "c"));
    expect(hex(node.publicKey)).toBe(str(r, "pk"));
    expect(hex(hash160(node.publicKey))).toBe(str(r, "address"));
    const ovks = transparentOvks(node);
    expect(hex(ovks.external)).toBe(str(r, "external_ovk"));
    expect(hex(ovks.internal)).toBe(str(r, "internal_ovk"));
  });
});

describe.skipIf(!vectorsPresent)("ZIP 316 transparent OVKs (zip_0316.json)", () => {
  const rows = vectorsPresent ? loadVectors("zip_0316.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const ovks = transparentOvks({ chainCode: hexToBytes(str(r, "c")), publicKey: hexToBytes(str(r, "pk")) });
    expect(hex(ovks.external)).toBe(str(r, "external_ovk"));
    expect(hex(ovks.internal)).toBe(str(r, "internal_ovk"));
  });
});

describe.skipIf(!vectorsPresent)("P2PKH receivers m/44'/133'/a'/0/i (zip_0320.json t_addr and p2pkh columns)", () => {
  const rows = vectorsPresent ? loadVectors("zip_0320.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const node = transparentAccountNode(SEED, 133, num(r, "account"));
    const h = p2pkhHashAt(node, 0, num(r, "child_index"))!;
    expect(hex(h)).toBe(str(r, "p2pkh_bytes"));
    expect(encodeP2pkh(h, "mainnet")).toBe(str(r, "t_addr"));
    const dec = decodeTransparentAddress(str(r, "t_addr"));
    expect(dec.ok && dec.address.kind === "p2pkh" && hex(dec.address.hash)).toBe(str(r, "p2pkh_bytes"));
    expect(dec.ok && dec.address.networks).toEqual(["mainnet"]);
  });
});

describe("P2PKH hashes of a chain (node:crypto HMAC and HASH160) equal the per-child derivation (@noble)", () => {
  it("for the first 30 children of the external and internal chains of two accounts", () => {
    for (const account of [0, 7]) {
      const node = transparentAccountNode(SEED, 133, account);
      for (const scope of [0, 1] as const) {
        const got = [...p2pkhHashesOfChain(publicChild(node, scope)!, 0, 30)].map((x) => [x.index, hex(x.hash)]);
        const want = Array.from({ length: 30 }, (_, i) => [i, hex(p2pkhHashAt(node, scope, i)!)]);
        expect(got).toEqual(want);
        expect([...p2pkhHashesOfChain(publicChild(node, scope)!, 12, 3)].map((x) => x.index)).toEqual([12, 13, 14]);
      }
    }
  });
});

describe("transparent address decoding", () => {
  it("knows every network prefix and reports checksum errors", () => {
    const h = new Uint8Array(20).fill(9);
    for (const n of ["mainnet", "testnet", "regtest"] as const) {
      const a = encodeP2pkh(h, n);
      const d = decodeTransparentAddress(a);
      expect(d.ok && d.address.networks.includes(n)).toBe(true);
    }
    const t = encodeP2pkh(h, "mainnet");
    expect(t.startsWith("t1")).toBe(true);
    expect(encodeP2pkh(h, "testnet").startsWith("tm")).toBe(true);
    const bad = t.slice(0, -1) + (t.endsWith("a") ? "b" : "a");
    expect(decodeTransparentAddress(bad)).toEqual({ ok: false, reason: "invalid_checksum" });
  });
});
