/**
 * Public risk lists behind the counter-MEV scores (docs/feeds.md): address
 * entries with revoke.cash-style risk factors, loaded from JSON files named
 * in COUNTER_MEV_RISK_LISTS (comma-separated paths), plus the built-in list
 * below. A file is
 *   {"name": "…", "source": "https://…", "entries": [
 *     {"address": "0x…", "kind": "spender" | "token", "factors": ["exploit", …], "label": "…"}]}
 * Factors and weights follow revoke.cash's risk model
 * (RevokeCash/revoke.cash lib/utils/risk.tsx).
 */
import fs from "node:fs";
import { z } from "zod";

export const FACTOR_WEIGHTS = {
  blocklist: 100,
  exploit: 100,
  eoa: 100,
  deprecated: 100,
  closed_source: 50,
  phishing_risk: 50,
  unsafe: 50,
  uninitialized: 50,
} as const;
export type RiskFactor = keyof typeof FACTOR_WEIGHTS;
const FACTORS = Object.keys(FACTOR_WEIGHTS) as [RiskFactor, ...RiskFactor[]];

const EntrySchema = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/).transform((s) => s.toLowerCase()),
  kind: z.enum(["spender", "token"]).default("spender"),
  factors: z.array(z.enum(FACTORS)).min(1),
  label: z.string().max(200).optional(),
});
const ListSchema = z.object({ name: z.string().min(1).max(100), source: z.string().max(500).optional(), entries: z.array(EntrySchema) });
export type RiskList = z.infer<typeof ListSchema>;

export interface RiskEntry {
  factors: RiskFactor[];
  labels: string[];
  lists: string[];
}

export interface RiskLists {
  names: string[];
  spender(address: string): RiskEntry | undefined;
  token(address: string): RiskEntry | undefined;
  /** When each list was loaded (Unix ms). */
  loadedAtMs: number;
}

/** Built in: approval exploits from RevokeCash/approval-exploit-list. */
export const BUILT_IN_LIST: RiskList = {
  name: "approval-exploits",
  source: "https://github.com/RevokeCash/approval-exploit-list",
  entries: [{ address: "0x044b75f554b886a065b9567891e45c79542d7357", kind: "spender", factors: ["exploit"], label: "Sushi RouteProcessor2 (exploited 2023-04-09)" }],
};

export function parseRiskList(text: string, origin: string): RiskList {
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

export function buildRiskLists(lists: readonly RiskList[], loadedAtMs: number): RiskLists {
  const spenders = new Map<string, RiskEntry>();
  const tokens = new Map<string, RiskEntry>();
  for (const list of lists) {
    for (const e of list.entries) {
      const map = e.kind === "token" ? tokens : spenders;
      const cur = map.get(e.address) ?? { factors: [], labels: [], lists: [] };
      for (const f of e.factors) if (!cur.factors.includes(f)) cur.factors.push(f);
      if (e.label && !cur.labels.includes(e.label)) cur.labels.push(e.label);
      if (!cur.lists.includes(list.name)) cur.lists.push(list.name);
      map.set(e.address, cur);
    }
  }
  return { names: lists.map((l) => l.name), spender: (a) => spenders.get(a.toLowerCase()), token: (a) => tokens.get(a.toLowerCase()), loadedAtMs };
}

/** The built-in list plus the files of COUNTER_MEV_RISK_LISTS; a bad file is a start-up error. */
export function loadRiskLists(setting: string | undefined, nowMs: number): RiskLists {
  const files = (setting ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return buildRiskLists([BUILT_IN_LIST, ...files.map((f) => parseRiskList(fs.readFileSync(f, "utf8"), f))], nowMs);
}
