/**
 * Builder names. The relay data API names a builder only by its BLS
 * `builder_pubkey`, and one builder runs many keys, so a name comes from a
 * table of keys → name: the reviewed default table of builder-keys.ts
 * (each key with its source), extended and overridden by the
 * BUILDER_PUBKEYS setting (a JSON object `{"0x<96 hex>": "Titan", …}`),
 * which the operator reviews against each builder's own key page. A key
 * the table does not name may be named from the extra-data tag of a block it
 * built (`builderFromExtraData`, used by ingest/builder-names.ts; the table
 * wins over such a name). A key without a name is shown as its first 10 hex
 * digits ("0xa1b2c3d4e5…"), so no answer ever invents a name. The builders below are listed by the names
 * and block extra-data tags they publish (sources below).
 *
 * Sources: builder names, websites and extra-data tags from
 * cakevm/mev-builders `crates/mev-builders/data/builders.json`; alias rules
 * (a tag containing "BuilderNet", "rsync", "penguinbuild.org" or
 * "builder0x69" is that builder) from flashbots/relayscan
 * `vars/builder_aliases.go`; published keys e.g.
 * https://docs.titanbuilder.xyz/builder-public-keys.
 */

import { DEFAULT_BUILDER_KEYS } from "./builder-keys.js";

export interface KnownBuilder {
  name: string;
  website: string;
  /** The block extra-data tag the builder publishes (null when none is published). */
  extraData: string | null;
}

/** Builders with their published names and tags (cakevm/mev-builders builders.json). */
export const KNOWN_BUILDERS: readonly KnownBuilder[] = [
  { name: "Titan", website: "https://titanbuilder.xyz", extraData: "Titan (titanbuilder.xyz)" },
  { name: "beaverbuild", website: "https://beaverbuild.org", extraData: "beaverbuild.org" },
  { name: "BuilderNet", website: "https://buildernet.org", extraData: "BuilderNet" },
  { name: "Quasar", website: "https://quasar.win", extraData: "Quasar (quasar.win)" },
  { name: "rsync-builder", website: "https://rsync-builder.xyz", extraData: "rsync-builder.xyz" },
  { name: "BTCS", website: "https://btcs.com", extraData: "Builder+ www.btcs.com/builder" },
  { name: "Bob the Builder", website: "https://bobthebuilder.xyz", extraData: "bobTheBuilder.xyz" },
  { name: "Eureka", website: "https://eurekabuilder.xyz", extraData: "Eureka (eurekabuilder.xyz)" },
  { name: "bloXroute", website: "https://bloxroute.com", extraData: "Powered by bloXroute" },
  { name: "penguinbuild.org", website: "https://penguinbuild.org", extraData: null },
  { name: "builder0x69", website: "https://builder0x69.io", extraData: null },
  { name: "Flowbuild", website: "https://flowbuild.xyz", extraData: "Flowbuild (flowbuild.xyz)" },
];

/** relayscan's alias rules: a tag containing one of these is that builder. */
const ALIASES: readonly [string, string][] = [
  ["buildernet", "BuilderNet"],
  ["rsync", "rsync-builder"],
  ["penguinbuild.org", "penguinbuild.org"],
  ["builder0x69", "builder0x69"],
];

/** A builder's name from a block's extra-data text (tag match, then alias rule), or null. */
export function builderFromExtraData(text: string): string | null {
  const lower = text.toLowerCase();
  const exact = KNOWN_BUILDERS.find((b) => b.extraData !== null && b.extraData.toLowerCase() === lower);
  if (exact) return exact.name;
  return ALIASES.find(([needle]) => lower.includes(needle))?.[1] ?? null;
}

export const PUBKEY_RE = /^0x[0-9a-f]{96}$/;

/** Longest builder name: what BUILDER_PUBKEYS accepts, and the longest extra-data tag stored (ingest/builder-names.ts). */
export const BUILDER_NAME_MAX = 64;

/**
 * What a query for a builder may be: a 0x prefix of a BLS key (4 to 96 hex
 * digits), or a name as builders write their names and extra-data tags
 * ("beaverbuild.org", "Titan (titanbuilder.xyz)", "rsync-builder.xyz",
 * "Builder+ www.btcs.com/builder", a shown key prefix "0xa1b2c3d4e5…"):
 * letters, marks and digits of any script, the space, and . , - _ ( ) [ ] +
 * / : @ & ' ! # * ~ …, with at least one letter or digit, at most
 * BUILDER_NAME_MAX characters. No control or invisible characters.
 */
export const BUILDER_QUERY_RE = /^(?:0x[0-9a-fA-F]{4,96}|(?=.*[\p{L}\p{N}])[\p{L}\p{M}\p{N} .,\-_()[\]+/:@&'!#*~\u2026]{1,64})$/u;

/** Parses BUILDER_PUBKEYS (JSON object key → name); throws with a readable message. */
export function parseBuilderPubkeys(setting: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!setting) return out;
  const parsed: unknown = JSON.parse(setting);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("BUILDER_PUBKEYS must be a JSON object");
  for (const [k, v] of Object.entries(parsed)) {
    const key = k.toLowerCase();
    if (!PUBKEY_RE.test(key)) throw new Error(`BUILDER_PUBKEYS key ${k.slice(0, 20)}… is not a 0x BLS public key (96 hex digits)`);
    if (typeof v !== "string" || v.trim() === "" || v.length > 64) throw new Error(`BUILDER_PUBKEYS name of ${k.slice(0, 20)}… must be a string of 1-64 characters`);
    out.set(key, v.trim());
  }
  return out;
}

/** The key → name table the answers use: the reviewed defaults, then BUILDER_PUBKEYS over them. */
export function builderKeyNames(setting: string | undefined): Map<string, string> {
  const names = new Map(DEFAULT_BUILDER_KEYS.map((e) => [e.pubkey, e.name] as const));
  for (const [k, v] of parseBuilderPubkeys(setting)) names.set(k, v);
  return names;
}

/** The name shown for a builder key: the table's name, else the key's first 10 hex digits. */
export function builderName(names: ReadonlyMap<string, string>, pubkey: string): string {
  return names.get(pubkey.toLowerCase()) ?? `${pubkey.slice(0, 12).toLowerCase()}…`;
}

/**
 * The keys a `builder` parameter names: an exact name match (case-insensitive)
 * first, else every name containing it; a 0x key prefix matches keys directly.
 */
export function matchBuilder(names: ReadonlyMap<string, string>, query: string, seenKeys: readonly string[]): { name: string; keys: string[] } | null {
  const q = query.trim().toLowerCase();
  if (/^0x[0-9a-f]{4,96}$/.test(q)) {
    const keys = seenKeys.filter((k) => k.startsWith(q));
    return keys.length ? { name: keys.length === 1 ? builderName(names, keys[0]!) : q, keys } : null;
  }
  const all = new Map<string, string[]>();
  for (const k of seenKeys) {
    const n = builderName(names, k);
    all.set(n, [...(all.get(n) ?? []), k]);
  }
  for (const [k, n] of names) {
    const keys = all.get(n) ?? [];
    if (!keys.includes(k)) keys.push(k);
    all.set(n, keys);
  }
  const exact = [...all.keys()].find((n) => n.toLowerCase() === q);
  if (exact) return { name: exact, keys: all.get(exact)! };
  const partial = [...all.keys()].filter((n) => n.toLowerCase().includes(q));
  if (partial.length === 0) return null;
  partial.sort();
  return { name: partial.length === 1 ? partial[0]! : partial.join(", "), keys: partial.flatMap((n) => all.get(n)!) };
}
