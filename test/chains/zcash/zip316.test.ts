import { describe, expect, it } from "vitest";
import { bech32Encode } from "../../../src/chains/zcash/bech32.js";
import { bytesToHex, hexToBytes } from "../../../src/chains/zcash/bytes.js";
import { orchardAddressAt, orchardIvkParts, encodeOrchardFvk } from "../../../src/chains/zcash/orchard-keys.js";
import { encodeSaplingDfvk, encodeSaplingXsk, saplingAddressAt, saplingIvk, saplingMasterKey } from "../../../src/chains/zcash/sapling-keys.js";
import { encodeTransparentKey, p2pkhHashAt, publicChild } from "../../../src/chains/zcash/transparent.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import {
  decodeUfvk,
  decodeUivk,
  decodeUnified,
  decodeUnifiedAddress,
  encodeUfvk,
  encodeUivk,
  encodeUnified,
  encodeUnifiedAddress,
  type UnifiedItem,
} from "../../../src/chains/zcash/zip316.js";
import { corruptBech32, rawUnified, serviceError } from "./helpers.js";
import { loadVectors, num, optNum, optStr, str, vectorsPresent, warnIfAbsent } from "./vectors.js";

warnIfAbsent();
const hex = bytesToHex;
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const keyCache = new Map<string, ReturnType<typeof deriveAccountViewingKeys>>();
function keysFor(seedHex: string, account: number, network: "mainnet" | "testnet" | "regtest" = "mainnet") {
  const id = `${seedHex}/${account}/${network}`;
  let k = keyCache.get(id);
  if (!k) keyCache.set(id, (k = deriveAccountViewingKeys(hexToBytes(seedHex), network, account)));
  return k;
}
const unknownOf = (tc: number | null, data: string | null): UnifiedItem[] => (tc !== null && data !== null ? [{ typecode: tc, data: hexToBytes(data) }] : []);

describe.skipIf(!vectorsPresent)("UFVK encoding (unified_full_viewing_keys.json)", () => {
  const rows = vectorsPresent ? loadVectors("unified_full_viewing_keys.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i: derive, encode, decode, re-encode", (_i, r) => {
    const k = keysFor(str(r, "root_seed"), num(r, "account"));
    const t = optStr(r, "t_key_bytes");
    const s = optStr(r, "sapling_fvk_bytes");
    const o = optStr(r, "orchard_fvk_bytes");
    if (t) expect(hex(encodeTransparentKey(k.transparent))).toBe(t);
    if (s) expect(hex(encodeSaplingDfvk(k.sapling))).toBe(s);
    if (o) expect(hex(encodeOrchardFvk(k.orchard))).toBe(o);
    const unknown = unknownOf(optNum(r, "unknown_fvk_typecode"), optStr(r, "unknown_fvk_bytes"));
    const enc = encodeUfvk("mainnet", {
      transparent: t ? k.transparent : undefined,
      sapling: s ? k.sapling : undefined,
      orchard: o ? k.orchard : undefined,
      unknown,
    });
    expect(enc).toBe(str(r, "unified_fvk"));
    const dec = decodeUfvk(str(r, "unified_fvk"), "mainnet");
    expect(dec.network).toBe("mainnet");
    expect(dec.transparent ? hex(encodeTransparentKey(dec.transparent)) : null).toBe(t);
    expect(dec.sapling ? hex(encodeSaplingDfvk(dec.sapling)) : null).toBe(s);
    expect(dec.orchard ? hex(encodeOrchardFvk(dec.orchard.fvk)) : null).toBe(o);
    expect(dec.unknown.map((u) => [u.typecode, hex(u.data)])).toEqual(unknown.map((u) => [u.typecode, hex(u.data)]));
    expect(encodeUfvk("mainnet", { transparent: dec.transparent, sapling: dec.sapling, orchard: dec.orchard?.fvk, unknown: dec.unknown })).toBe(enc);
  });
});

describe.skipIf(!vectorsPresent)("UIVK encoding (unified_incoming_viewing_keys.json)", () => {
  const rows = vectorsPresent ? loadVectors("unified_incoming_viewing_keys.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i: derive, encode, decode", (_i, r) => {
    const k = keysFor(str(r, "root_seed"), num(r, "account"));
    const t = optStr(r, "t_key_bytes");
    const s = optStr(r, "sapling_ivk_bytes");
    const o = optStr(r, "orchard_ivk_bytes");
    const external = publicChild(k.transparent, 0)!;
    const sap = { dk: k.sapling.dk, ivk: saplingIvk(k.sapling.ak, k.sapling.nk) };
    const orc = orchardIvkParts(k.orchard, "external")!;
    const ivkHex = (x: { dk: Uint8Array; ivk: bigint }) => hex(x.dk) + hex(Buffer.from(x.ivk.toString(16).padStart(64, "0"), "hex").reverse());
    if (t) expect(hex(encodeTransparentKey(external))).toBe(t);
    if (s) expect(ivkHex(sap)).toBe(s);
    if (o) expect(ivkHex(orc)).toBe(o);
    const unknown = unknownOf(optNum(r, "unknown_ivk_typecode"), optStr(r, "unknown_ivk_bytes"));
    const enc = encodeUivk("mainnet", { transparent: t ? external : undefined, sapling: s ? sap : undefined, orchard: o ? orc : undefined, unknown });
    expect(enc).toBe(str(r, "unified_ivk"));
    const dec = decodeUivk(enc, "mainnet");
    expect(dec.sapling ? ivkHex(dec.sapling) : null).toBe(s);
    expect(dec.orchard ? ivkHex(dec.orchard) : null).toBe(o);
    expect(dec.transparent ? hex(encodeTransparentKey(dec.transparent)) : null).toBe(t);
    expect(dec.unknown.map((u) => [u.typecode, hex(u.data)])).toEqual(unknown.map((u) => [u.typecode, hex(u.data)]));
  });
});

describe.skipIf(!vectorsPresent)("Unified addresses (unified_address.json)", () => {
  const rows = vectorsPresent ? loadVectors("unified_address.json") : [];
  it.each(rows.map((r, i) => [i, r] as const))("row %i: receivers at the diversifier index, encode, decode", (_i, r) => {
    const k = keysFor(str(r, "root_seed"), num(r, "account"));
    const j = BigInt(num(r, "diversifier_index"));
    const p2pkh = optStr(r, "p2pkh_bytes");
    const sapling = optStr(r, "sapling_raw_addr");
    const orchard = optStr(r, "orchard_raw_addr");
    expect(optStr(r, "p2sh_bytes")).toBeNull();
    if (p2pkh) expect(hex(p2pkhHashAt(k.transparent, 0, Number(j))!)).toBe(p2pkh);
    if (sapling) expect(hex(saplingAddressAt(k.sapling, j)!)).toBe(sapling);
    if (orchard) expect(hex(orchardAddressAt(orchardIvkParts(k.orchard)!, j))).toBe(orchard);
    const unknown = unknownOf(optNum(r, "unknown_typecode"), optStr(r, "unknown_bytes"));
    const enc = encodeUnifiedAddress("mainnet", {
      p2pkh: p2pkh ? hexToBytes(p2pkh) : undefined,
      sapling: sapling ? hexToBytes(sapling) : undefined,
      orchard: orchard ? hexToBytes(orchard) : undefined,
      unknown,
    });
    expect(enc).toBe(str(r, "unified_addr"));
    const dec = decodeUnifiedAddress(enc, "mainnet");
    expect(dec.p2pkh ? hex(dec.p2pkh) : null).toBe(p2pkh);
    expect(dec.sapling ? hex(dec.sapling) : null).toBe(sapling);
    expect(dec.orchard ? hex(dec.orchard) : null).toBe(orchard);
    expect(dec.unknown.map((u) => [u.typecode, hex(u.data)])).toEqual(unknown.map((u) => [u.typecode, hex(u.data)]));
  });
});

describe("ZIP 316 round trips on every network", () => {
  for (const network of ["mainnet", "testnet", "regtest"] as const) {
    it(`${network}: UFVK, UIVK and UA decode to what was encoded, with the network's HRPs`, () => {
      const k = keysFor(hex(SEED), 7, network);
      const ufvk = encodeUfvk(network, { transparent: k.transparent, sapling: k.sapling, orchard: k.orchard });
      const prefix = { mainnet: ["uview1", "uivk1", "u1"], testnet: ["uviewtest1", "uivktest1", "utest1"], regtest: ["uviewregtest1", "uivkregtest1", "uregtest1"] }[network];
      expect(ufvk.startsWith(prefix[0])).toBe(true);
      const d = decodeUfvk(ufvk, network);
      expect(d.network).toBe(network);
      expect(hex(encodeSaplingDfvk(d.sapling!))).toBe(hex(encodeSaplingDfvk(k.sapling)));
      const orc = orchardIvkParts(k.orchard)!;
      const uivk = encodeUivk(network, { sapling: { dk: k.sapling.dk, ivk: saplingIvk(k.sapling.ak, k.sapling.nk) }, orchard: orc });
      expect(uivk.startsWith(prefix[1])).toBe(true);
      expect(decodeUivk(uivk).orchard!.ivk).toBe(orc.ivk);
      const ua = encodeUnifiedAddress(network, { orchard: orchardAddressAt(orc, 5n) });
      expect(ua.startsWith(prefix[2])).toBe(true);
      expect(hex(decodeUnifiedAddress(ua, network).orchard!)).toBe(hex(orchardAddressAt(orc, 5n)));
    });
  }
  it("preserves several unknown items and sorts items by typecode when encoding", () => {
    const k = keysFor(hex(SEED), 0);
    const unknown = [
      { typecode: 0xfffa, data: new Uint8Array([1, 2, 3]) },
      { typecode: 0x05, data: new Uint8Array(300).fill(4) },
    ];
    const s = encodeUfvk("mainnet", { orchard: k.orchard, unknown });
    const d = decodeUnified(s, "ufvk");
    expect(d.items.map((i) => i.typecode)).toEqual([0x03, 0x05, 0xfffa]);
    expect(decodeUfvk(s).unknown.map((u) => u.data.length)).toEqual([300, 3]);
  });
});

describe("ZIP 316 decoding errors name the problem", () => {
  const k = keysFor(hex(SEED), 0);
  const ufvk = encodeUfvk("mainnet", { transparent: k.transparent, sapling: k.sapling, orchard: k.orchard });
  const orc = orchardIvkParts(k.orchard)!;
  const orchardItem = { typecode: 3, data: encodeOrchardFvk(k.orchard) };
  const saplingItem = { typecode: 2, data: encodeSaplingDfvk(k.sapling) };

  it("wrong network", () => {
    const e = serviceError(() => decodeUfvk(ufvk, "testnet"));
    expect([e.status, e.code]).toEqual([400, "wrong_network"]);
    expect(e.details).toEqual({ found: "mainnet", expected: "testnet" });
  });
  it("bad checksum", () => {
    expect(serviceError(() => decodeUfvk(corruptBech32(ufvk))).code).toBe("invalid_checksum");
  });
  it("Bech32 instead of Bech32m", () => {
    const e = serviceError(() => decodeUfvk(rawUnified("uview", [orchardItem], { variant: "bech32" })));
    expect(e.code).toBe("invalid_checksum");
    expect(e.message).toMatch(/Bech32m/);
  });
  it("a UIVK where a UFVK is expected", () => {
    const uivk = encodeUivk("mainnet", { orchard: orc });
    expect(serviceError(() => decodeUfvk(uivk)).code).toBe("uivk_not_ufvk");
  });
  it("an address where a UFVK is expected", () => {
    expect(serviceError(() => decodeUfvk(encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orc, 0n) }))).code).toBe("address_not_ufvk");
  });
  it("spending keys and seed phrases", () => {
    const xsk = bech32Encode("secret-extended-key-main", encodeSaplingXsk(saplingMasterKey(SEED)));
    expect(serviceError(() => decodeUfvk(xsk)).code).toBe("spending_key_not_viewing_key");
    const phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    const e = serviceError(() => decodeUfvk(phrase));
    expect(e.code).toBe("spending_key_not_viewing_key");
    expect(e.message).not.toContain("abandon");
    expect(serviceError(() => decodeUfvk("xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi")).code).toBe(
      "spending_key_not_viewing_key",
    );
  });
  it("a legacy Sapling extended FVK", () => {
    const s = bech32Encode("zxviews", new Uint8Array(169).fill(1));
    expect(serviceError(() => decodeUfvk(s)).code).toBe("sapling_fvk_not_ufvk");
  });
  it("Revision 1 and unknown prefixes", () => {
    expect(serviceError(() => decodeUfvk(rawUnified("urview", [orchardItem]))).code).toBe("unknown_prefix");
  });
  it("wrong padding", () => {
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [orchardItem], { paddingHrp: "u" }))).code).toBe("invalid_encoding");
  });
  it("items out of order, duplicated, truncated or of the wrong length", () => {
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [orchardItem, saplingItem]))).message).toMatch(/out of order/);
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [orchardItem, orchardItem]))).message).toMatch(/out of order or duplicated/);
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [{ typecode: 3, data: new Uint8Array(95) }]))).message).toMatch(/length 95/);
    // an item header promising more bytes than there are
    const truncated = rawUnified("uview", [], { trailing: Uint8Array.from([3, 96, ...new Uint8Array(40)]) });
    expect(serviceError(() => decodeUfvk(truncated)).message).toMatch(/malformed or truncated/);
    // a non-canonical CompactSize (0xfd followed by a value below 0xfd)
    const nonCanonical = rawUnified("uview", [], { trailing: Uint8Array.from([0xfd, 3, 0, 40, ...new Uint8Array(40)]) });
    expect(serviceError(() => decodeUfvk(nonCanonical)).message).toMatch(/malformed or truncated/);
  });
  it("P2SH in a UFVK, both transparent kinds in a UA, transparent-only containers", () => {
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [{ typecode: 1, data: new Uint8Array(20) }, orchardItem]))).code).toBe("invalid_encoding");
    const o = { typecode: 3, data: orchardAddressAt(orc, 0n) };
    const p2pkh = { typecode: 0, data: new Uint8Array(20) };
    const p2sh = { typecode: 1, data: new Uint8Array(20) };
    expect(serviceError(() => decodeUnifiedAddress(rawUnified("u", [p2pkh, p2sh, o]))).message).toMatch(/both P2PKH and P2SH/);
    expect(serviceError(() => decodeUnifiedAddress(rawUnified("u", [p2pkh, { typecode: 0xc0, data: new Uint8Array(40) }]))).message).toMatch(/no shielded item/);
  });
  it("must-understand metadata of a newer revision", () => {
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [orchardItem, { typecode: 0xe0, data: new Uint8Array(4) }]))).code).toBe("unsupported_metadata");
  });
  it("invalid key material inside well-formed items", () => {
    const badSapling = encodeSaplingDfvk(k.sapling);
    badSapling.fill(0, 0, 32); // ak = (u, 0): a point of order 4, not in the prime-order subgroup
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [{ typecode: 2, data: badSapling }]))).code).toBe("invalid_key_item");
    const badOrchard = encodeOrchardFvk(k.orchard);
    badOrchard.fill(0xff, 64, 96); // rivk ≥ q
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [{ typecode: 3, data: badOrchard }]))).message).toMatch(/rivk_invalid/);
    const badT = encodeTransparentKey(k.transparent);
    badT[32] = 0x05; // not a compressed-point prefix
    expect(serviceError(() => decodeUfvk(rawUnified("uview", [{ typecode: 0, data: badT }, orchardItem]))).code).toBe("invalid_key_item");
  });
  it("UIVK ivk items out of range", () => {
    const item = new Uint8Array(64);
    item.set(orc.dk);
    const withIvk = (ivkLe: Uint8Array, typecode: number) => {
      const d = item.slice();
      d.set(ivkLe, 32);
      return rawUnified("uivk", [{ typecode, data: d }]);
    };
    expect(serviceError(() => decodeUivk(withIvk(new Uint8Array(32), 3))).code).toBe("invalid_key_item");
    const p = Buffer.from("40000000000000000000000000000000224698fc094cf91b992d30ed00000001", "hex").reverse();
    expect(serviceError(() => decodeUivk(withIvk(p, 3))).code).toBe("invalid_key_item");
    const twoTo251 = new Uint8Array(32);
    twoTo251[31] = 0x08;
    expect(serviceError(() => decodeUivk(withIvk(twoTo251, 2))).code).toBe("invalid_key_item");
    twoTo251[31] = 0x07;
    expect(decodeUivk(withIvk(twoTo251, 2)).sapling!.ivk).toBe(0x07n << 248n);
  });
  it("the encoder refuses duplicate typecodes", () => {
    expect(() => encodeUnified("ufvk", "mainnet", [orchardItem, orchardItem])).toThrow();
  });
});
