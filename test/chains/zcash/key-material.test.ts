/**
 * The stored key material of a watch: what it loads is exactly what the UFVK
 * gives (scan keys, Sapling nk, the transparent window, and a window extended
 * past the stored one), a key without a transparent item stays without one,
 * and anything that is not material of this version is refused (the keys are
 * then derived from the view key).
 */
import { describe, expect, it } from "vitest";
import { describeAccountKeys } from "../../../src/chains/zcash/derive.js";
import { jubjubToBytes } from "../../../src/chains/zcash/jubjub.js";
import { decodeKeyMaterial, encodeKeyMaterial } from "../../../src/chains/zcash/key-material.js";
import { scanKeysFromUfvk } from "../../../src/chains/zcash/note-decrypt.js";
import { bytesToHex } from "../../../src/chains/zcash/bytes.js";
import { p2pkhHashAt } from "../../../src/chains/zcash/transparent.js";
import { WatchKeys } from "../../../src/chains/zcash/watch-keys.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import { decodeUfvk, encodeUfvk } from "../../../src/chains/zcash/zip316.js";

const acct = deriveAccountViewingKeys(Uint8Array.from({ length: 32 }, (_, i) => 7 * i + 1), "regtest", 0);
const keys = describeAccountKeys(acct);
const ufvk = decodeUfvk(keys.ufvk);

describe("Zcash key material", () => {
  it("loads exactly what the UFVK gives, and extends the transparent window from the stored chain node without decoding", () => {
    const built = new WatchKeys(keys.defaultAddress, keys.ufvk);
    built.build({ shielded: true, p2pkh: true }, 20);
    const text = built.exportMaterial();

    const loaded = new WatchKeys(keys.defaultAddress, keys.ufvk);
    expect(loaded.useMaterial(text)).toBe(true);
    expect(loaded.ready({ shielded: true, p2pkh: true }, 20)).toBe(true);
    expect(loaded.decoded).toBe(false);
    expect(loaded.scan).toEqual(scanKeysFromUfvk(ufvk));
    expect(jubjubToBytes(loaded.sapling!.internal.nk)).toEqual(jubjubToBytes(built.sapling!.internal.nk));
    expect(loaded.sapling!.external.ivk).toBe(built.sapling!.external.ivk);
    expect([...loaded.transparent!.byHash]).toEqual([...built.transparent!.byHash]);
    // Past the stored window: derived from the chain node in the material, the UFVK still not decoded.
    loaded.build({ shielded: false, p2pkh: true }, 23);
    expect(loaded.decoded).toBe(false);
    expect(loaded.transparent!.byHash.get(bytesToHex(p2pkhHashAt(ufvk.transparent!, 0, 22)!))).toBe(22);
    // The grown window is new material to store, once.
    const grown = loaded.materialToStore();
    expect(decodeKeyMaterial(grown!)!.transparent!.hashes).toHaveLength(23);
    expect(loaded.materialToStore()).toBeUndefined();
  });

  it("a key without a transparent item has none in its material; no P2PKH output needs it", () => {
    const shieldedOnly = encodeUfvk("regtest", { sapling: ufvk.sapling, orchard: ufvk.orchard!.fvk });
    const built = new WatchKeys("x", shieldedOnly);
    const m = decodeKeyMaterial(built.exportMaterial())!;
    expect(m.transparent).toBeNull();
    const loaded = new WatchKeys("x", shieldedOnly);
    loaded.useMaterial(encodeKeyMaterial(m));
    expect(loaded.mayHaveTransparent).toBe(false);
    expect(loaded.ready({ shielded: true, p2pkh: true }, 20)).toBe(true);
  });

  it("refuses what is not material of this version, changing nothing", () => {
    const good = JSON.parse(new WatchKeys("x", keys.ufvk).exportMaterial());
    const bad = [
      "",
      "not json",
      JSON.stringify({ ...good, v: 2 }),
      JSON.stringify({ ...good, n: "stagenet" }),
      JSON.stringify({ ...good, s: { e: good.s.e, i: ["zz", good.s.i[1], good.s.i[2]] } }),
      JSON.stringify({ ...good, t: { c: good.t.c, h: "abc" } }),
      JSON.stringify({ ...good, t: { c: "00", h: "" } }),
    ];
    for (const text of bad) {
      expect(decodeKeyMaterial(text)).toBeNull();
      const k = new WatchKeys("x", keys.ufvk);
      expect(k.useMaterial(text)).toBe(false);
      expect(k.hasMaterial).toBe(false);
    }
    expect(decodeKeyMaterial(JSON.stringify(good))).not.toBeNull();
  });
});
