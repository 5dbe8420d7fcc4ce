/**
 * Public address lists the address-risk question checks (OFAC's sanctioned
 * addresses, ScamSniffer's blacklist, exploited contracts, …), loaded from
 * files the operator downloads and names in ADDRESS_RISK_LISTS as
 * `name=path[:factor]`, comma-separated. A file may be any text: every
 * 0x-address in it (40 hex digits, not part of a longer hex string) is an
 * entry, so a CSV (ultrasoundmoney/ofac-ethereum-addresses data.csv), a JSON
 * array (scamsniffer scam-database blacklist/address.json) or one address per
 * line all load as they are. `factor` names why an entry is risky:
 * `sanctioned`, `blocklist` (default), `exploit` or `phishing`.
 */
import fs from "node:fs";

export const LIST_FACTORS = ["sanctioned", "blocklist", "exploit", "phishing"] as const;
export type ListFactor = (typeof LIST_FACTORS)[number];

export interface AddressList {
  name: string;
  factor: ListFactor;
  addresses: ReadonlySet<string>;
  /** When the file was last modified (Unix ms): the list's age. */
  modifiedMs: number;
}

export interface ListHit {
  list: string;
  factor: ListFactor;
}

export interface AddressLists {
  lists: readonly AddressList[];
  lookup(address: string): ListHit[];
}

/** Every 0x-address in a text, lower-cased. */
export function addressesIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![0-9a-fA-Fx])0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g)) out.add(m[0].toLowerCase());
  return out;
}

/** Parses ADDRESS_RISK_LISTS into (name, path, factor); throws on a malformed entry. */
export function parseListSpec(spec: string | undefined): { name: string; path: string; factor: ListFactor }[] {
  return (spec ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^([A-Za-z0-9._-]{1,64})=(.+?)(?::(sanctioned|blocklist|exploit|phishing))?$/.exec(entry);
      if (!m) throw new Error(`ADDRESS_RISK_LISTS entry "${entry}" must be name=path[:${LIST_FACTORS.join("|")}]`);
      return { name: m[1]!, path: m[2]!, factor: (m[3] ?? "blocklist") as ListFactor };
    });
}

/** Reads the configured lists (at start: a missing file is a configuration error). */
export function loadAddressLists(spec: string | undefined): AddressLists {
  const lists = parseListSpec(spec).map((l) => {
    const text = fs.readFileSync(l.path, "utf8");
    return { name: l.name, factor: l.factor, addresses: addressesIn(text), modifiedMs: Math.floor(fs.statSync(l.path).mtimeMs) };
  });
  return addressListsOf(lists);
}

export function addressListsOf(lists: readonly AddressList[]): AddressLists {
  return {
    lists,
    lookup: (address) => lists.filter((l) => l.addresses.has(address.toLowerCase())).map((l) => ({ list: l.name, factor: l.factor })),
  };
}
