/**
 * The public risk lists, one setting (RISK_LISTS) and one in-memory set
 * shared by the counter-MEV scores (docs/feeds.md, Counter-MEV) and
 * /v1/q/address-risk (docs/ethereum.md, Address risk).
 *
 * RISK_LISTS is comma-separated entries `[name=]path[:factor]`; what a file
 * holds decides how it is read:
 *   - a JSON object with `entries` is a structured list (revoke.cash-style):
 *       {"name": "…", "source": "https://…", "entries": [
 *         {"address": "0x…", "kind": "spender" | "token", "factors": ["exploit", …], "label": "…"}]}
 *     each entry carries its own factors and role; `name=` renames it, a
 *     `:factor` suffix is refused (the entries say why);
 *   - anything else is an address list: every 0x-address in the text (40 hex
 *     digits, not part of a longer hex string) is an entry, so a CSV
 *     (ultrasoundmoney/ofac-ethereum-addresses data.csv), a JSON array
 *     (scamsniffer scam-database blacklist/address.json) or one address per
 *     line load as they are; `factor` (default `blocklist`) says why all of
 *     them are risky, and the name (default the file's base name) is required
 *     to be given when two lists would share one. An address-list entry
 *     counts in every role (spender and token).
 * The built-in list (RevokeCash/approval-exploit-list) is always loaded.
 * Factors and weights follow revoke.cash's risk model
 * (RevokeCash/revoke.cash lib/utils/risk.tsx), plus `sanctioned` (100) and
 * `phishing` (50) for address lists. A bad entry or file stops start-up.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

export const FACTOR_WEIGHTS = {
  sanctioned: 100,
  blocklist: 100,
  exploit: 100,
  eoa: 100,
  deprecated: 100,
  closed_source: 50,
  phishing: 50,
  phishing_risk: 50,
  unsafe: 50,
  uninitialized: 50,
} as const;
export type RiskFactor = keyof typeof FACTOR_WEIGHTS;
const FACTORS = Object.keys(FACTOR_WEIGHTS) as [RiskFactor, ...RiskFactor[]];

/** The factors an address list (one factor for the whole file) may name. */
export const ADDRESS_LIST_FACTORS = ["sanctioned", "blocklist", "exploit", "phishing"] as const;
export type AddressListFactor = (typeof ADDRESS_LIST_FACTORS)[number];

const EntrySchema = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/).transform((s) => s.toLowerCase()),
  kind: z.enum(["spender", "token"]).default("spender"),
  factors: z.array(z.enum(FACTORS)).min(1),
  label: z.string().max(200).optional(),
});
const ListSchema = z.object({ name: z.string().min(1).max(100), source: z.string().max(500).optional(), entries: z.array(EntrySchema) });
export type StructuredList = z.infer<typeof ListSchema>;

/** One list as loaded: structured (per-entry factors and roles) or an address list (one factor). */
export type LoadedList =
  | { format: "entries"; name: string; source?: string; entries: StructuredList["entries"]; modifiedMs: number }
  | { format: "addresses"; name: string; factor: AddressListFactor; addresses: ReadonlySet<string>; modifiedMs: number };

export interface RiskEntry {
  factors: RiskFactor[];
  labels: string[];
  lists: string[];
}

/** One list an address is on, with the factors that list gives it. */
export interface ListHit {
  list: string;
  factors: RiskFactor[];
  /** The role the list names it in (address lists: any). */
  kind: "spender" | "token" | "any";
  label?: string;
}

export interface RiskLists {
  lists: readonly LoadedList[];
  names: string[];
  /** The address as an approval spender: its factors over every list. */
  spender(address: string): RiskEntry | undefined;
  /** The address as a token. */
  token(address: string): RiskEntry | undefined;
  /** Every list the address is on, in any role. */
  lookup(address: string): ListHit[];
  /** When the set was loaded (Unix ms). */
  loadedAtMs: number;
}

/** Built in: approval exploits from RevokeCash/approval-exploit-list. */
export const BUILT_IN_LIST: StructuredList = {
  name: "approval-exploits",
  source: "https://github.com/RevokeCash/approval-exploit-list",
  entries: [{ address: "0x044b75f554b886a065b9567891e45c79542d7357", kind: "spender", factors: ["exploit"], label: "Sushi RouteProcessor2 (exploited 2023-04-09)" }],
};

/** Every 0x-address in a text, lower-cased. */
export function addressesIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![0-9a-fA-Fx])0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g)) out.add(m[0].toLowerCase());
  return out;
}

export interface ListSpec {
  /** The name given in the setting (absent: the file's own name, or its base name). */
  name?: string;
  path: string;
  /** The factor given in the setting (address lists only). */
  factor?: AddressListFactor;
}

/** Parses RISK_LISTS (or an old alias's value); throws naming the setting on a malformed entry. */
export function parseRiskListsSetting(setting: string | undefined, key = "RISK_LISTS"): ListSpec[] {
  return (setting ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(?:([A-Za-z0-9._-]{1,64})=)?(.+?)(?::(sanctioned|blocklist|exploit|phishing))?$/.exec(entry);
      if (!m || m[2]!.includes("=")) throw new Error(`${key} entry "${entry}" must be [name=]path[:${ADDRESS_LIST_FACTORS.join("|")}]`);
      return { ...(m[1] ? { name: m[1] } : {}), path: m[2]!, ...(m[3] ? { factor: m[3] as AddressListFactor } : {}) };
    });
}

/** Reads a structured list from its JSON text (the built-in format); throws naming the file. */
export function parseStructuredList(text: string, origin: string): StructuredList {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`risk list ${origin}: not JSON`);
  }
  const r = ListSchema.safeParse(json);
  if (!r.success) throw new Error(`risk list ${origin}: ${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`);
  return r.data;
}

/** Whether a file's text is a structured list (a JSON object with `entries`), not an address list. */
function isStructured(text: string): boolean {
  if (!/^\s*\{/.test(text)) return false;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) && "entries" in v;
  } catch {
    return false;
  }
}

/** One configured list read from its file. */
export function readList(spec: ListSpec, key = "RISK_LISTS"): LoadedList {
  let text: string;
  let modifiedMs: number;
  try {
    text = fs.readFileSync(spec.path, "utf8");
    modifiedMs = Math.floor(fs.statSync(spec.path).mtimeMs);
  } catch (e) {
    throw new Error(`${key}: cannot read ${spec.path}: ${(e as Error).message}`);
  }
  if (isStructured(text)) {
    if (spec.factor) throw new Error(`${key}: ${spec.path} is a structured list (its entries name their factors); drop ":${spec.factor}"`);
    const l = parseStructuredList(text, spec.path);
    return { format: "entries", name: spec.name ?? l.name, ...(l.source ? { source: l.source } : {}), entries: l.entries, modifiedMs };
  }
  return { format: "addresses", name: spec.name ?? path.basename(spec.path).replace(/\.[^.]*$/, ""), factor: spec.factor ?? "blocklist", addresses: addressesIn(text), modifiedMs };
}

export function buildRiskLists(lists: readonly LoadedList[], loadedAtMs: number): RiskLists {
  const names = lists.map((l) => l.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`RISK_LISTS: two lists are named "${dup}"; give one another name (name=path)`);
  const spenders = new Map<string, RiskEntry>();
  const tokens = new Map<string, RiskEntry>();
  const hits = new Map<string, ListHit[]>();
  const add = (map: Map<string, RiskEntry>, address: string, list: string, factors: readonly RiskFactor[], label?: string) => {
    const cur = map.get(address) ?? { factors: [], labels: [], lists: [] };
    for (const f of factors) if (!cur.factors.includes(f)) cur.factors.push(f);
    if (label && !cur.labels.includes(label)) cur.labels.push(label);
    if (!cur.lists.includes(list)) cur.lists.push(list);
    map.set(address, cur);
  };
  const hit = (address: string, h: ListHit) => hits.set(address, [...(hits.get(address) ?? []), h]);
  for (const l of lists) {
    if (l.format === "entries") {
      for (const e of l.entries) {
        add(e.kind === "token" ? tokens : spenders, e.address, l.name, e.factors, e.label);
        hit(e.address, { list: l.name, factors: [...e.factors], kind: e.kind, ...(e.label ? { label: e.label } : {}) });
      }
    } else {
      for (const a of l.addresses) {
        add(spenders, a, l.name, [l.factor]);
        add(tokens, a, l.name, [l.factor]);
        hit(a, { list: l.name, factors: [l.factor], kind: "any" });
      }
    }
  }
  return {
    lists,
    names,
    spender: (a) => spenders.get(a.toLowerCase()),
    token: (a) => tokens.get(a.toLowerCase()),
    lookup: (a) => hits.get(a.toLowerCase()) ?? [],
    loadedAtMs,
  };
}

/** The built-in list plus the lists of the setting; a bad entry or file is a start-up error. */
export function loadRiskLists(setting: string | undefined, nowMs: number): RiskLists {
  const builtIn: LoadedList = { format: "entries", name: BUILT_IN_LIST.name, source: BUILT_IN_LIST.source!, entries: BUILT_IN_LIST.entries, modifiedMs: nowMs };
  return buildRiskLists([builtIn, ...parseRiskListsSetting(setting).map((s) => readList(s))], nowMs);
}
