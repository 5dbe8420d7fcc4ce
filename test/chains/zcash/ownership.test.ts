import { describe, expect, it } from "vitest";
import { bech32Encode } from "../../../src/chains/zcash/bech32.js";
import { bytesToHex, hexToBytes } from "../../../src/chains/zcash/bytes.js";
import { decodeZcashAddress } from "../../../src/chains/zcash/addresses.js";
import { NETWORKS } from "../../../src/chains/zcash/network.js";
import { orchardAddressAt, orchardIvkParts } from "../../../src/chains/zcash/orchard-keys.js";
import { checkAddressInUfvk, receiversAt, TRANSPARENT_SEARCH, validateZcashWatchKey } from "../../../src/chains/zcash/ownership.js";
import { saplingAddressAt, saplingFirstValidIndex, saplingInternalDfvk } from "../../../src/chains/zcash/sapling-keys.js";
import { encodeP2pkh, encodeP2sh, p2pkhHashAt } from "../../../src/chains/zcash/transparent.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import { decodeUfvk, encodeUfvk, encodeUivk, encodeUnifiedAddress } from "../../../src/chains/zcash/zip316.js";
import { corruptBech32, serviceError } from "./helpers.js";
import { loadVectors, num, str, vectorsPresent, warnIfAbsent } from "./vectors.js";

warnIfAbsent();
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const k0 = deriveAccountViewingKeys(SEED, "mainnet", 0);
const k1 = deriveAccountViewingKeys(SEED, "mainnet", 1);
const ufvk0 = encodeUfvk("mainnet", k0);
const orc0 = orchardIvkParts(k0.orchard)!;
const zs = (raw: Uint8Array, network: keyof typeof NETWORKS = "mainnet") => bech32Encode(NETWORKS[network].saplingAddressHrp, raw);

describe("validateZcashWatchKey: addresses that belong", () => {
  it("the default unified address (all three receivers)", () => {
    const { index } = saplingFirstValidIndex(k0.sapling.dk);
    const r = receiversAt(decodeUfvk(ufvk0), index);
    const ua = encodeUnifiedAddress("mainnet", r);
    expect(validateZcashWatchKey(ua, ufvk0)).toEqual({ chain: "zcash", address: ua, network: "mainnet" });
  });
  it("a unified address at a huge diversifier index (no search: FF1 inverse)", () => {
    const j = (1n << 80n) + 12345n;
    const ua = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orc0, j) });
    const res = checkAddressInUfvk(decodeUfvk(ufvk0), decodeZcashAddress(ua));
    expect(res).toEqual({ ok: true, matches: [{ receiver: "orchard", scope: "external", diversifierIndex: j }] });
  });
  it("a legacy Sapling address, external and internal scope", () => {
    const { index } = saplingFirstValidIndex(k0.sapling.dk, 1000n);
    const ext = zs(saplingAddressAt(k0.sapling, index)!);
    expect(validateZcashWatchKey(ext, ufvk0).address).toBe(ext);
    const internal = saplingInternalDfvk(k0.sapling);
    const { index: ji } = saplingFirstValidIndex(internal.dk);
    const res = checkAddressInUfvk(decodeUfvk(ufvk0), decodeZcashAddress(zs(saplingAddressAt(internal, ji)!)));
    expect(res).toEqual({ ok: true, matches: [{ receiver: "sapling", scope: "internal", diversifierIndex: ji }] });
  });
  it("an Orchard internal (change) receiver", () => {
    const int = orchardIvkParts(k0.orchard, "internal")!;
    const ua = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(int, 3n) });
    expect(checkAddressInUfvk(decodeUfvk(ufvk0), decodeZcashAddress(ua))).toEqual({
      ok: true,
      matches: [{ receiver: "orchard", scope: "internal", diversifierIndex: 3n }],
    });
  });
  it("transparent addresses within the search bound, external and internal", () => {
    const last = TRANSPARENT_SEARCH.external - 1;
    const t = encodeP2pkh(p2pkhHashAt(k0.transparent, 0, last)!, "mainnet");
    expect(validateZcashWatchKey(t, ufvk0)).toEqual({ chain: "zcash", address: t, network: "mainnet" });
    const change = encodeP2pkh(p2pkhHashAt(k0.transparent, 1, 4)!, "mainnet");
    expect(checkAddressInUfvk(decodeUfvk(ufvk0), decodeZcashAddress(change))).toEqual({ ok: true, matches: [{ receiver: "p2pkh", scope: "internal", addressIndex: 4 }] });
  });
  it("accepts surrounding whitespace and upper-case Bech32, returning the canonical form", () => {
    const ua = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orc0, 0n) });
    expect(validateZcashWatchKey(`  ${ua.toUpperCase()}\n`, ` ${ufvk0} `).address).toBe(ua);
  });
  it("testnet and regtest keys with their own addresses", () => {
    for (const network of ["testnet", "regtest"] as const) {
      const k = deriveAccountViewingKeys(SEED, network, 0);
      const u = encodeUfvk(network, k);
      const { index } = saplingFirstValidIndex(k.sapling.dk);
      const ua = encodeUnifiedAddress(network, receiversAt(decodeUfvk(u), index));
      expect(validateZcashWatchKey(ua, u)).toEqual({ chain: "zcash", address: ua, network });
      const t = encodeP2pkh(p2pkhHashAt(k.transparent, 0, 0)!, network);
      expect(validateZcashWatchKey(t, u).network).toBe(network);
    }
  });
});

describe.skipIf(!vectorsPresent)("every unified_address.json row belongs to the UFVK of its seed and account", () => {
  const rows = vectorsPresent ? loadVectors("unified_address.json") : [];
  const cache = new Map<number, string>();
  it.each(rows.map((r, i) => [i, r] as const))("row %i", (_i, r) => {
    const account = num(r, "account");
    let u = cache.get(account);
    if (!u) cache.set(account, (u = encodeUfvk("mainnet", deriveAccountViewingKeys(hexToBytes(str(r, "root_seed")), "mainnet", account))));
    expect(validateZcashWatchKey(str(r, "unified_addr"), u).address).toBe(str(r, "unified_addr"));
  });
});

describe("validateZcashWatchKey: 400s that say what is wrong", () => {
  const uaOf1 = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orchardIvkParts(k1.orchard)!, 0n) });
  it("an address of another account", () => {
    const e = serviceError(() => validateZcashWatchKey(uaOf1, ufvk0));
    expect([e.status, e.code, e.details]).toEqual([400, "address_not_in_ufvk", { receiver: "orchard" }]);
  });
  it("a UA mixing one of our receivers with a foreign one", () => {
    const mixed = encodeUnifiedAddress("mainnet", {
      orchard: orchardAddressAt(orc0, 0n),
      sapling: saplingAddressAt(k1.sapling, saplingFirstValidIndex(k1.sapling.dk).index)!,
    });
    expect(serviceError(() => validateZcashWatchKey(mixed, ufvk0)).details).toEqual({ receiver: "sapling" });
  });
  it("a receiver type the UFVK lacks", () => {
    const orchardOnly = encodeUfvk("mainnet", { orchard: k0.orchard });
    const t = encodeP2pkh(p2pkhHashAt(k0.transparent, 0, 0)!, "mainnet");
    const e = serviceError(() => validateZcashWatchKey(t, orchardOnly));
    expect(e.code).toBe("address_not_in_ufvk");
    expect(e.message).toMatch(/no transparent key/);
  });
  it("transparent addresses beyond the search bound, and P2SH", () => {
    const far = encodeP2pkh(p2pkhHashAt(k0.transparent, 0, TRANSPARENT_SEARCH.external)!, "mainnet");
    expect(serviceError(() => validateZcashWatchKey(far, ufvk0)).message).toMatch(new RegExp(`first ${TRANSPARENT_SEARCH.external} external`));
    const p2sh = encodeP2sh(new Uint8Array(20).fill(1), "mainnet");
    expect(p2sh.startsWith("t3")).toBe(true);
    expect(serviceError(() => validateZcashWatchKey(p2sh, ufvk0)).details).toEqual({ receiver: "p2sh" });
  });
  it("an address for another network", () => {
    const k = deriveAccountViewingKeys(SEED, "testnet", 0);
    const ua = encodeUnifiedAddress("testnet", { orchard: orchardAddressAt(orchardIvkParts(k.orchard)!, 0n) });
    expect(serviceError(() => validateZcashWatchKey(ua, ufvk0)).code).toBe("wrong_network");
    const tm = encodeP2pkh(p2pkhHashAt(k.transparent, 0, 0)!, "testnet");
    expect(serviceError(() => validateZcashWatchKey(tm, ufvk0)).code).toBe("wrong_network");
    expect(serviceError(() => validateZcashWatchKey(zs(saplingAddressAt(k.sapling, saplingFirstValidIndex(k.sapling.dk).index)!, "testnet"), ufvk0)).code).toBe(
      "wrong_network",
    );
  });
  it("bad checksums on the key or the address", () => {
    const ua = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orc0, 0n) });
    expect(serviceError(() => validateZcashWatchKey(ua, corruptBech32(ufvk0))).code).toBe("invalid_checksum");
    expect(serviceError(() => validateZcashWatchKey(corruptBech32(ua), ufvk0)).code).toBe("invalid_checksum");
    const t = encodeP2pkh(p2pkhHashAt(k0.transparent, 0, 0)!, "mainnet");
    expect(serviceError(() => validateZcashWatchKey(t.slice(0, -1) + (t.endsWith("z") ? "y" : "z"), ufvk0)).code).toBe("invalid_checksum");
  });
  it("a UIVK, a spending key, a seed phrase or an address instead of the UFVK", () => {
    const ua = encodeUnifiedAddress("mainnet", { orchard: orchardAddressAt(orc0, 0n) });
    expect(serviceError(() => validateZcashWatchKey(ua, encodeUivk("mainnet", { orchard: orc0 }))).code).toBe("uivk_not_ufvk");
    const phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    const e = serviceError(() => validateZcashWatchKey(ua, phrase));
    expect(e.code).toBe("spending_key_not_viewing_key");
    expect(JSON.stringify({ m: e.message, d: e.details })).not.toContain("abandon");
    expect(serviceError(() => validateZcashWatchKey(ua, phrase.replace(/ /g, "\n"))).code).toBe("spending_key_not_viewing_key");
    expect(serviceError(() => validateZcashWatchKey(ua, bech32Encode("secret-extended-key-main", new Uint8Array(169)))).code).toBe("spending_key_not_viewing_key");
    expect(serviceError(() => validateZcashWatchKey(ua, ua)).code).toBe("address_not_ufvk");
    expect(serviceError(() => validateZcashWatchKey(ua, "")).code).toBe("invalid_view_key");
  });
  it("something that is not an address, or a key in the address field", () => {
    expect(serviceError(() => validateZcashWatchKey("hello", ufvk0)).code).toBe("invalid_address");
    expect(serviceError(() => validateZcashWatchKey(ufvk0, ufvk0)).code).toBe("key_not_address");
    expect(serviceError(() => validateZcashWatchKey("4" + "A".repeat(94), ufvk0)).code).toBe("invalid_address");
    expect(serviceError(() => validateZcashWatchKey(bech32Encode("zs", new Uint8Array(42)), ufvk0)).code).toBe("invalid_address");
  });
});

describe("receiversAt", () => {
  it("matches the default address derivation and skips invalid Sapling indices", () => {
    const d = decodeUfvk(ufvk0);
    for (let j = 0n; j < 6n; j++) {
      const r = receiversAt(d, j);
      const s = saplingAddressAt(k0.sapling, j);
      expect(r.sapling ? bytesToHex(r.sapling) : null).toBe(s ? bytesToHex(s) : null);
      expect(bytesToHex(r.orchard!)).toBe(bytesToHex(orchardAddressAt(orc0, j)));
    }
  });
});
