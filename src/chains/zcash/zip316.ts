/**
 * ZIP 316 (Revision 0) unified addresses, full viewing keys and incoming
 * viewing keys: items sorted by typecode, HRP padding, F4Jumble, Bech32m.
 * Decoders throw a 400 ServiceError whose code says what is wrong.
 */
import { badRequest, type CodeWithStatus } from "../../core/errors.js";
import { bech32Decode, bech32mEncode } from "./bech32.js";
import { asciiBytes, concatBytes, equalBytes, leBytesToBigint, readCompactSize, writeCompactSize } from "./bytes.js";
import { f4jumble, f4jumbleInv, F4JUMBLE_MAX, F4JUMBLE_MIN } from "./f4jumble.js";
import { NETWORKS, unifiedHrp, unifiedHrpInfo, ZCASH_NETWORKS, type UnifiedKind, type ZcashNetwork } from "./network.js";
import { decodeOrchardFvk, encodeOrchardFvk, type OrchardFvk, type OrchardIvkParts } from "./orchard-keys.js";
import { PALLAS_P } from "./prf.js";
import { decodeSaplingDfvk, encodeSaplingDfvk, type SaplingDfvk } from "./sapling-keys.js";
import { decodeTransparentKey, encodeTransparentKey, type TransparentPubNode } from "./transparent.js";

export const TYPECODE_P2PKH = 0x00;
export const TYPECODE_P2SH = 0x01;
export const TYPECODE_SAPLING = 0x02;
export const TYPECODE_ORCHARD = 0x03;

export interface UnifiedItem {
  typecode: number;
  data: Uint8Array;
}

const KIND_NAMES: Record<UnifiedKind, string> = {
  address: "unified address",
  ufvk: "unified full viewing key",
  uivk: "unified incoming viewing key",
};

/** Expected item lengths per container kind; undefined = not allowed in that kind. */
const ITEM_LENGTHS: Record<UnifiedKind, Record<number, number | undefined>> = {
  address: { [TYPECODE_P2PKH]: 20, [TYPECODE_P2SH]: 20, [TYPECODE_SAPLING]: 43, [TYPECODE_ORCHARD]: 43 },
  ufvk: { [TYPECODE_P2PKH]: 65, [TYPECODE_SAPLING]: 128, [TYPECODE_ORCHARD]: 96 },
  uivk: { [TYPECODE_P2PKH]: 65, [TYPECODE_SAPLING]: 64, [TYPECODE_ORCHARD]: 64 },
};

const isMustUnderstandMetadata = (t: number): boolean => t >= 0xe0 && t <= 0xfc;
const isKnown = (t: number): boolean => t <= TYPECODE_ORCHARD;

function padding(hrp: string): Uint8Array {
  const p = new Uint8Array(16);
  p.set(asciiBytes(hrp));
  return p;
}

/** Encodes items (any order; sorted here) as a Revision 0 unified string. */
export function encodeUnified(kind: UnifiedKind, network: ZcashNetwork, items: UnifiedItem[]): string {
  const sorted = [...items].sort((a, b) => a.typecode - b.typecode);
  for (let i = 1; i < sorted.length; i++) if (sorted[i].typecode === sorted[i - 1].typecode) throw new Error("duplicate typecode");
  const hrp = unifiedHrp(network, kind);
  const parts: Uint8Array[] = [];
  for (const it of sorted) parts.push(writeCompactSize(it.typecode), writeCompactSize(it.data.length), it.data);
  parts.push(padding(hrp));
  return bech32mEncode(hrp, f4jumble(concatBytes(...parts)));
}

export interface DecodedUnified {
  kind: UnifiedKind;
  network: ZcashNetwork;
  /** All items in encoded (ascending) order, unknown ones included. */
  items: UnifiedItem[];
}

/**
 * Names the kind of a string that is not the expected unified container, so
 * callers can say "that is a UIVK" or "that is a spending key" precisely.
 */
export function classifyKeyString(s: string): "ufvk" | "uivk" | "address" | "sapling_extended_fvk" | "spending_key" | "mnemonic" | "unknown" {
  const t = s.trim();
  if (/^[a-z]+(\s+[a-z]+){11,23}$/i.test(t)) return "mnemonic";
  const lower = t.toLowerCase();
  const sep = lower.lastIndexOf("1");
  const hrp = sep > 0 ? lower.slice(0, sep) : "";
  const info = unifiedHrpInfo(hrp);
  if (info) return info.kind;
  if (hrp.startsWith("secret-") || hrp.startsWith("usk") || hrp.startsWith("uskt")) return "spending_key";
  if (ZCASH_NETWORKS.some((n) => NETWORKS[n].saplingExtendedFvkHrp === hrp)) return "sapling_extended_fvk";
  if (/^(xprv|tprv)[1-9A-HJ-NP-Za-km-z]{100,}$/.test(t)) return "spending_key";
  // WIF transparent private keys (mainnet 5/K/L, testnet 9/c).
  if (/^[5KLc9][1-9A-HJ-NP-Za-km-z]{50,51}$/.test(t)) return "spending_key";
  return "unknown";
}

/** Decodes a Revision 0 unified string of the expected kind and (optionally) network. */
export function decodeUnified(str: string, expectKind: UnifiedKind, expectNetwork?: ZcashNetwork): DecodedUnified {
  const what = KIND_NAMES[expectKind];
  if (typeof str !== "string" || str.length === 0) throw badRequest("invalid_encoding", `Expected a ${what}.`);
  const trimmed = str.trim();
  const dec = bech32Decode(trimmed);
  if (!dec.ok) {
    if (dec.reason === "invalid_checksum") throw badRequest("invalid_checksum", `The ${what} has a bad Bech32m checksum (a typo or a truncated copy).`);
    const cls = classifyKeyString(trimmed);
    if (cls === "spending_key" || cls === "mnemonic") throw spendingKeyError(expectKind);
    throw badRequest("invalid_encoding", `Not a ${what}: ${dec.reason === "mixed_case" ? "mixed upper and lower case" : "not Bech32m-encoded"}.`);
  }
  const info = unifiedHrpInfo(dec.hrp);
  if (!info) {
    const cls = classifyKeyString(trimmed);
    if (cls === "spending_key") throw spendingKeyError(expectKind);
    if (cls === "sapling_extended_fvk" && expectKind === "ufvk")
      throw badRequest("sapling_fvk_not_ufvk", "This is a legacy Sapling extended viewing key (zxview…); supply the account's unified full viewing key (uview…).");
    throw badRequest("unknown_prefix", `Not a ${what}: unknown prefix "${dec.hrp}".`, { prefix: dec.hrp });
  }
  if (info.kind !== expectKind) {
    if (expectKind === "ufvk" && info.kind === "uivk")
      throw badRequest("uivk_not_ufvk", "This is a unified incoming viewing key (uivk…); a unified full viewing key (uview…) is required.");
    // info.kind ≠ expectKind here, so the code is one of the registered `<found>_not_<expected>` codes.
    throw badRequest(`${info.kind}_not_${expectKind}` as CodeWithStatus<400>, `This is a ${KIND_NAMES[info.kind]}, not a ${what}.`);
  }
  if (dec.variant !== "bech32m") throw badRequest("invalid_checksum", `The ${what} uses a Bech32 checksum; ZIP 316 requires Bech32m.`);
  if (expectNetwork && info.network !== expectNetwork)
    throw badRequest("wrong_network", `This ${what} is for ${info.network}, not ${expectNetwork}.`, { found: info.network, expected: expectNetwork });
  const raw = dec.data;
  if (raw.length < F4JUMBLE_MIN || raw.length > F4JUMBLE_MAX) throw badRequest("invalid_encoding", `The ${what} has an impossible length.`);
  const plain = f4jumbleInv(raw);
  const body = plain.subarray(0, plain.length - 16);
  if (!equalBytes(plain.subarray(plain.length - 16), padding(dec.hrp)))
    throw badRequest("invalid_encoding", `The ${what} has wrong padding (corrupted or for another prefix).`);
  const items: UnifiedItem[] = [];
  let off = 0;
  while (off < body.length) {
    const tc = readCompactSize(body, off);
    const len = tc && readCompactSize(body, tc.next);
    if (!tc || !len || len.next + len.value > body.length) throw badRequest("invalid_encoding", `The ${what} has a malformed or truncated item.`);
    const prev = items[items.length - 1];
    if (prev && tc.value <= prev.typecode)
      throw badRequest("invalid_encoding", `The ${what} has items out of order or duplicated (typecode ${tc.value}).`);
    items.push({ typecode: tc.value, data: body.slice(len.next, len.next + len.value) });
    off = len.next + len.value;
  }
  const lengths = ITEM_LENGTHS[expectKind];
  for (const it of items) {
    if (isMustUnderstandMetadata(it.typecode))
      throw badRequest("unsupported_metadata", `The ${what} carries must-understand metadata (typecode 0x${it.typecode.toString(16)}) of a newer revision.`);
    if (isKnown(it.typecode)) {
      const want = lengths[it.typecode];
      if (want === undefined) throw badRequest("invalid_encoding", `A ${what} cannot contain typecode ${it.typecode}.`);
      if (it.data.length !== want) throw badRequest("invalid_encoding", `Item ${it.typecode} of the ${what} has length ${it.data.length}, expected ${want}.`);
    }
  }
  const has = (t: number) => items.some((i) => i.typecode === t);
  if (has(TYPECODE_P2PKH) && has(TYPECODE_P2SH)) throw badRequest("invalid_encoding", "A unified address cannot hold both P2PKH and P2SH receivers.");
  if (!items.some((i) => i.typecode !== TYPECODE_P2PKH && i.typecode !== TYPECODE_P2SH && !(i.typecode >= 0xc0 && i.typecode <= 0xfc)))
    throw badRequest("invalid_encoding", `The ${what} has no shielded item.`);
  return { kind: expectKind, network: info.network, items };
}

function spendingKeyError(expectKind: UnifiedKind) {
  return badRequest(
    "spending_key_not_viewing_key",
    `This looks like a spending key or seed phrase, which can move funds. Never share it; supply a ${KIND_NAMES[expectKind]} instead.`,
  );
}

// ---- typed views ----

export interface UnifiedFullViewingKey {
  network: ZcashNetwork;
  transparent?: TransparentPubNode;
  sapling?: SaplingDfvk;
  orchard?: { fvk: OrchardFvk; external: OrchardIvkParts };
  /** Items with typecodes this code does not know, preserved as found. */
  unknown: UnifiedItem[];
}

export function encodeUfvk(network: ZcashNetwork, k: { transparent?: TransparentPubNode; sapling?: SaplingDfvk; orchard?: OrchardFvk; unknown?: UnifiedItem[] }): string {
  const items: UnifiedItem[] = [...(k.unknown ?? [])];
  if (k.transparent) items.push({ typecode: TYPECODE_P2PKH, data: encodeTransparentKey(k.transparent) });
  if (k.sapling) items.push({ typecode: TYPECODE_SAPLING, data: encodeSaplingDfvk(k.sapling) });
  if (k.orchard) items.push({ typecode: TYPECODE_ORCHARD, data: encodeOrchardFvk(k.orchard) });
  return encodeUnified("ufvk", network, items);
}

export function decodeUfvk(str: string, expectNetwork?: ZcashNetwork): UnifiedFullViewingKey {
  const u = decodeUnified(str, "ufvk", expectNetwork);
  const out: UnifiedFullViewingKey = { network: u.network, unknown: [] };
  for (const it of u.items) {
    if (it.typecode === TYPECODE_P2PKH) {
      const t = decodeTransparentKey(it.data);
      if (!t) throw badRequest("invalid_key_item", "The transparent item of the UFVK is not a valid secp256k1 public key.");
      out.transparent = t;
    } else if (it.typecode === TYPECODE_SAPLING) {
      const s = decodeSaplingDfvk(it.data);
      if (!s.ok) throw badRequest("invalid_key_item", `The Sapling item of the UFVK is invalid (${s.problem}).`);
      out.sapling = s.key;
    } else if (it.typecode === TYPECODE_ORCHARD) {
      const o = decodeOrchardFvk(it.data);
      if (!o.ok) throw badRequest("invalid_key_item", `The Orchard item of the UFVK is invalid (${o.problem}).`);
      out.orchard = { fvk: o.key, external: o.external };
    } else out.unknown.push(it);
  }
  return out;
}

export interface UnifiedIncomingViewingKey {
  network: ZcashNetwork;
  transparent?: TransparentPubNode;
  sapling?: { dk: Uint8Array; ivk: bigint };
  orchard?: { dk: Uint8Array; ivk: bigint };
  unknown: UnifiedItem[];
}

const ivkItem = (k: { dk: Uint8Array; ivk: bigint }): Uint8Array => {
  const out = new Uint8Array(64);
  out.set(k.dk);
  let v = k.ivk;
  for (let i = 32; i < 64; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
};

export function encodeUivk(network: ZcashNetwork, k: { transparent?: TransparentPubNode; sapling?: { dk: Uint8Array; ivk: bigint }; orchard?: { dk: Uint8Array; ivk: bigint }; unknown?: UnifiedItem[] }): string {
  const items: UnifiedItem[] = [...(k.unknown ?? [])];
  if (k.transparent) items.push({ typecode: TYPECODE_P2PKH, data: encodeTransparentKey(k.transparent) });
  if (k.sapling) items.push({ typecode: TYPECODE_SAPLING, data: ivkItem(k.sapling) });
  if (k.orchard) items.push({ typecode: TYPECODE_ORCHARD, data: ivkItem(k.orchard) });
  return encodeUnified("uivk", network, items);
}

const SAPLING_IVK_LIMIT = 1n << 251n;

export function decodeUivk(str: string, expectNetwork?: ZcashNetwork): UnifiedIncomingViewingKey {
  const u = decodeUnified(str, "uivk", expectNetwork);
  const out: UnifiedIncomingViewingKey = { network: u.network, unknown: [] };
  for (const it of u.items) {
    if (it.typecode === TYPECODE_P2PKH) {
      const t = decodeTransparentKey(it.data, 4);
      if (!t) throw badRequest("invalid_key_item", "The transparent item of the UIVK is not a valid secp256k1 public key.");
      out.transparent = t;
    } else if (it.typecode === TYPECODE_SAPLING || it.typecode === TYPECODE_ORCHARD) {
      const ivk = leBytesToBigint(it.data.subarray(32));
      // Sapling ivk is a 251-bit CRH output; Orchard ivk is an x-coordinate, so a base-field element.
      const limit = it.typecode === TYPECODE_SAPLING ? SAPLING_IVK_LIMIT : PALLAS_P;
      if (ivk === 0n || ivk >= limit) throw badRequest("invalid_key_item", "An ivk item of the UIVK is out of range.");
      const v = { dk: it.data.slice(0, 32), ivk };
      if (it.typecode === TYPECODE_SAPLING) out.sapling = v;
      else out.orchard = v;
    } else out.unknown.push(it);
  }
  return out;
}

export interface UnifiedAddress {
  network: ZcashNetwork;
  p2pkh?: Uint8Array;
  p2sh?: Uint8Array;
  sapling?: Uint8Array;
  orchard?: Uint8Array;
  unknown: UnifiedItem[];
}

export function encodeUnifiedAddress(network: ZcashNetwork, a: Omit<UnifiedAddress, "network" | "unknown"> & { unknown?: UnifiedItem[] }): string {
  const items: UnifiedItem[] = [...(a.unknown ?? [])];
  if (a.p2pkh) items.push({ typecode: TYPECODE_P2PKH, data: a.p2pkh });
  if (a.p2sh) items.push({ typecode: TYPECODE_P2SH, data: a.p2sh });
  if (a.sapling) items.push({ typecode: TYPECODE_SAPLING, data: a.sapling });
  if (a.orchard) items.push({ typecode: TYPECODE_ORCHARD, data: a.orchard });
  return encodeUnified("address", network, items);
}

export function decodeUnifiedAddress(str: string, expectNetwork?: ZcashNetwork): UnifiedAddress {
  const u = decodeUnified(str, "address", expectNetwork);
  const out: UnifiedAddress = { network: u.network, unknown: [] };
  for (const it of u.items) {
    if (it.typecode === TYPECODE_P2PKH) out.p2pkh = it.data;
    else if (it.typecode === TYPECODE_P2SH) out.p2sh = it.data;
    else if (it.typecode === TYPECODE_SAPLING) out.sapling = it.data;
    else if (it.typecode === TYPECODE_ORCHARD) out.orchard = it.data;
    else out.unknown.push(it);
  }
  return out;
}
