/**
 * Does a watched address belong to a UFVK? Shielded receivers are checked
 * exactly: FF1-decrypting the receiver's diversifier with the key's dk gives
 * the only index j that could have produced it, so there is no search and no
 * bound on j (any j < 2^88). Transparent receivers must be searched; see
 * TRANSPARENT_SEARCH for the bounds.
 */
import { badRequest } from "../../core/errors.js";
import type { ValidatedWatchKey } from "../scanner.js";
import { bytesToHex, concatBytes, equalBytes } from "./bytes.js";
import { decodeZcashAddress, type ZcashAddress } from "./addresses.js";
import { DiversifierKey } from "./ff1.js";
import { jubjubToBytes } from "./jubjub.js";
import { orchardIvkParts, orchardPkD, type OrchardIvkParts } from "./orchard-keys.js";
import { saplingInternalDfvk, saplingIvk, saplingPkD, type SaplingDfvk } from "./sapling-keys.js";
import { p2pkhHashAt, p2pkhHashesOfChain, publicChild, type TransparentPubNode } from "./transparent.js";
import type { TransparentChain, WatchKeys } from "./watch-keys.js";
import { classifyKeyString, decodeUfvk, type UnifiedFullViewingKey } from "./zip316.js";

/** How far transparent chains are searched for a standalone t-address (indices 0..n-1). */
export const TRANSPARENT_SEARCH = { external: 200, internal: 20 } as const;

export type Scope = "external" | "internal";

export type ReceiverMatch =
  | { receiver: "orchard" | "sapling"; scope: Scope; diversifierIndex: bigint }
  | { receiver: "p2pkh"; scope: Scope; addressIndex: number };

export type OwnershipResult = { ok: true; matches: ReceiverMatch[] } | { ok: false; receiver: string; reason: string };

function saplingMatch(dfvk: SaplingDfvk, raw: Uint8Array): ReceiverMatch | null {
  const d = raw.subarray(0, 11);
  const pkd = raw.subarray(11, 43);
  const ext = saplingPkD(saplingIvk(dfvk.ak, dfvk.nk), d);
  if (!ext) return null; // d is not a valid diversifier at all
  if (equalBytes(jubjubToBytes(ext), pkd)) return { receiver: "sapling", scope: "external", diversifierIndex: new DiversifierKey(dfvk.dk).index(d) };
  const internal = saplingInternalDfvk(dfvk);
  const int = saplingPkD(saplingIvk(internal.ak, internal.nk), d);
  if (int && equalBytes(jubjubToBytes(int), pkd))
    return { receiver: "sapling", scope: "internal", diversifierIndex: new DiversifierKey(internal.dk).index(d) };
  return null;
}

function orchardMatch(orchard: NonNullable<UnifiedFullViewingKey["orchard"]>, raw: Uint8Array): ReceiverMatch | null {
  const d = raw.subarray(0, 11);
  const pkd = raw.subarray(11, 43);
  const scopes: [Scope, () => OrchardIvkParts | null][] = [
    ["external", () => orchard.external],
    ["internal", () => orchardIvkParts(orchard.fvk, "internal")],
  ];
  for (const [scope, parts] of scopes) {
    const p = parts();
    if (p && equalBytes(orchardPkD(p.ivk, d), pkd)) return { receiver: "orchard", scope, diversifierIndex: new DiversifierKey(p.dk).index(d) };
  }
  return null;
}

/**
 * Searches the transparent chains for a P2PKH hash. With `external` (the watch's external
 * chain, whose first `window` hashes the scanner needs anyway and keeps), those are looked at
 * first and the search goes on from there, so an address in the gap window costs no extra
 * derivation and every hash derived is kept.
 */
function p2pkhMatch(account: TransparentPubNode, hash: Uint8Array, hint?: bigint, external?: { chain: TransparentChain; window: number }): ReceiverMatch | null {
  const hex = bytesToHex(hash);
  if (external) {
    external.chain.ensure(Math.min(external.window, TRANSPARENT_SEARCH.external));
    const at = external.chain.byHash.get(hex);
    if (at !== undefined) return { receiver: "p2pkh", scope: "external", addressIndex: at };
  }
  if (hint !== undefined && hint < 0x80000000n && !(external && hint < BigInt(external.chain.count))) {
    const h = p2pkhHashAt(account, 0, Number(hint));
    if (h && equalBytes(h, hash)) return { receiver: "p2pkh", scope: "external", addressIndex: Number(hint) };
  }
  if (external) {
    external.chain.ensure(TRANSPARENT_SEARCH.external);
    const at = external.chain.byHash.get(hex);
    if (at !== undefined) return { receiver: "p2pkh", scope: "external", addressIndex: at };
  }
  for (const [scope, n] of [
    ["external", external ? 0 : TRANSPARENT_SEARCH.external],
    ["internal", TRANSPARENT_SEARCH.internal],
  ] as const) {
    const chain = publicChild(account, scope === "external" ? 0 : 1);
    if (!chain) continue;
    for (const c of p2pkhHashesOfChain(chain, 0, n)) if (equalBytes(c.hash, hash)) return { receiver: "p2pkh", scope, addressIndex: c.index };
  }
  return null;
}

/** Checks every known receiver of the address against the UFVK. Unknown UA receivers are ignored. */
export function checkAddressInUfvk(ufvk: UnifiedFullViewingKey, addr: ZcashAddress, external?: { chain: TransparentChain; window: number }): OwnershipResult {
  const matches: ReceiverMatch[] = [];
  const fail = (receiver: string, reason: string): OwnershipResult => ({ ok: false, receiver, reason });
  const checkSapling = (raw: Uint8Array): OwnershipResult | null => {
    if (!ufvk.sapling) return fail("sapling", "the UFVK has no Sapling key");
    const m = saplingMatch(ufvk.sapling, raw);
    if (!m) return fail("sapling", "the Sapling receiver was not derived from this UFVK");
    matches.push(m);
    return null;
  };
  const checkOrchard = (raw: Uint8Array): OwnershipResult | null => {
    if (!ufvk.orchard) return fail("orchard", "the UFVK has no Orchard key");
    const m = orchardMatch(ufvk.orchard, raw);
    if (!m) return fail("orchard", "the Orchard receiver was not derived from this UFVK");
    matches.push(m);
    return null;
  };
  const checkP2pkh = (hash: Uint8Array, hint?: bigint): OwnershipResult | null => {
    if (!ufvk.transparent) return fail("p2pkh", "the UFVK has no transparent key");
    const m = p2pkhMatch(ufvk.transparent, hash, hint, external);
    if (!m)
      return fail(
        "p2pkh",
        `the transparent receiver is not among the first ${TRANSPARENT_SEARCH.external} external or ${TRANSPARENT_SEARCH.internal} internal addresses of this UFVK`,
      );
    matches.push(m);
    return null;
  };
  switch (addr.kind) {
    case "sapling":
      return checkSapling(addr.raw) ?? { ok: true, matches };
    case "p2sh":
      return fail("p2sh", "P2SH addresses cannot be derived from a UFVK");
    case "p2pkh":
      return checkP2pkh(addr.hash) ?? { ok: true, matches };
    case "unified": {
      const { ua } = addr;
      if (ua.p2sh) return fail("p2sh", "P2SH receivers cannot be derived from a UFVK");
      if (ua.orchard) {
        const r = checkOrchard(ua.orchard);
        if (r) return r;
      }
      if (ua.sapling) {
        const r = checkSapling(ua.sapling);
        if (r) return r;
      }
      if (ua.p2pkh) {
        const shielded = matches.find((m) => m.receiver !== "p2pkh" && m.scope === "external");
        const r = checkP2pkh(ua.p2pkh, shielded && "diversifierIndex" in shielded ? shielded.diversifierIndex : undefined);
        if (r) return r;
      }
      if (matches.length === 0) return fail("unknown", "the unified address has no receiver type this service understands");
      return { ok: true, matches };
    }
  }
}

/**
 * Called by the Zcash scanner when a watch is created: decodes the UFVK and
 * the address and checks that the address belongs to the key. Throws a 400
 * ServiceError whose code says what is wrong. Given the watch's keys, the
 * UFVK is decoded through them and a transparent receiver is looked for in
 * their external chain first (its first `window` hashes are derived for the
 * scanner anyway), so the keys come out ready to scan with.
 */
export function validateZcashWatchKey(address: string, viewKey: string, keys?: { keys: WatchKeys; window: number }): ValidatedWatchKey {
  if (typeof viewKey !== "string" || viewKey.trim().length === 0) throw badRequest("invalid_view_key", "A unified full viewing key (uview…) is required.");
  const key = viewKey.trim();
  const cls = classifyKeyString(key);
  if (cls === "mnemonic" || cls === "spending_key")
    throw badRequest("spending_key_not_viewing_key", "This is a spending key or seed phrase, which can move funds. Never share it; supply the unified full viewing key (uview…) instead.");
  if (cls === "address") throw badRequest("address_not_ufvk", "The view key field holds an address; supply the unified full viewing key (uview…).");
  const ufvk = keys ? keys.keys.decode() : decodeUfvk(key);
  const addr = decodeZcashAddress(address, ufvk.network);
  const chain = keys?.keys.transparent;
  const res = checkAddressInUfvk(ufvk, addr, chain && keys ? { chain, window: keys.window } : undefined);
  if (!res.ok) throw badRequest("address_not_in_ufvk", `The address does not belong to this viewing key: ${res.reason}.`, { receiver: res.receiver });
  return { chain: "zcash", address: addr.canonical, network: ufvk.network };
}

/** The UFVK's default-scope receivers at index j, for tests and tooling. */
export function receiversAt(ufvk: UnifiedFullViewingKey, j: bigint): { sapling?: Uint8Array; orchard?: Uint8Array; p2pkh?: Uint8Array } {
  const out: { sapling?: Uint8Array; orchard?: Uint8Array; p2pkh?: Uint8Array } = {};
  if (ufvk.sapling) {
    const d = new DiversifierKey(ufvk.sapling.dk).diversifier(j);
    const pkd = saplingPkD(saplingIvk(ufvk.sapling.ak, ufvk.sapling.nk), d);
    if (pkd) out.sapling = concatBytes(d, jubjubToBytes(pkd));
  }
  if (ufvk.orchard) {
    const d = new DiversifierKey(ufvk.orchard.external.dk).diversifier(j);
    out.orchard = concatBytes(d, orchardPkD(ufvk.orchard.external.ivk, d));
  }
  if (ufvk.transparent && j < 0x80000000n) out.p2pkh = p2pkhHashAt(ufvk.transparent, 0, Number(j)) ?? undefined;
  return out;
}
