/**
 * The puzzle-risk feed (docs/feeds.md, Puzzle risk): a watchlist of puzzle,
 * CTF and bounty contracts (PUZZLE_WATCHLIST, a JSON file), each read from
 * the node (eth_getCode, eth_getBalance, and eth_getStorageAt of its answer
 * hash slot when the entry names one) and classified by `classifyPuzzle`.
 * One computation, `computePuzzleRisk`, answers the paid feed (the whole
 * annotated watchlist); the free summary is `summarizePuzzleRisk` of it, and
 * the lookup classifies one address (watched or not) the same way. Reads are
 * kept CACHE_MS per process (the page this serves refreshes every minute).
 */
import fs from "node:fs";
import { z } from "zod";
import type { Clock } from "../core/clock.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import { CLASSES, classifyPuzzle, type PuzzleClass } from "./puzzle-classify.js";

export const PUZZLE_RISK_PATH = "/v1/premium/puzzle-risk";
const CACHE_MS = 60_000;
const SUMMARY_TOP = 5;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "a 0x address (40 hex digits)").transform((s) => s.toLowerCase());
const WatchEntry = z.object({
  address,
  label: z.string().max(120),
  /** The plaintext answer published for it (e.g. in a Start() call's calldata). */
  answer: z.string().max(1000).optional(),
  /** The storage slot holding the answer hash. */
  hash_slot: z.number().int().min(0).optional(),
});
export type WatchEntry = z.infer<typeof WatchEntry>;

export function loadWatchlist(file: string | undefined): WatchEntry[] {
  if (!file) return [];
  const r = z.array(WatchEntry).max(5000).safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
  if (!r.success) throw new Error(`PUZZLE_WATCHLIST ${file}: ${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`);
  return r.data;
}

export interface PuzzleDeps {
  rpc: EthRpc;
  clock: Clock;
  watchlist: readonly WatchEntry[];
  /** Age (s) of the analysed head beyond which the answer is stale. */
  maxAgeSeconds: number;
  /** Per-process cache of the last analysis; start with {}. */
  memo: { at?: number; value?: Analysis };
}

const wei = z.string().regex(/^\d+$/);
const int = z.number().int();
const classEnum = z.enum(CLASSES);
const freshness = z.object({ age_s: int.nullable(), stale_after_s: int, stale: z.boolean() });

const Row = z.object({
  address: z.string(),
  label: z.string().nullable(),
  chain: z.string(),
  classification: classEnum,
  reason: z.string(),
  balance_wei: wei,
  balance_eth: z.number(),
  frontrun_exposed: z.boolean(),
  code_bytes: int,
  signals: z.array(z.string()),
});
type Row = z.infer<typeof Row>;

interface Analysis {
  chainId: number;
  chain: string;
  head: number;
  headTime: number;
  rows: Row[];
}

const chainName = (id: number) => (id === 1 ? "ethereum" : `eip155:${id}`);
const toEth = (w: bigint) => Number(w / 10n ** 9n) / 1e9;
const quantity = (v: unknown) => BigInt(z.string().regex(/^0x[0-9a-fA-F]+$/).parse(v));

async function analyse(rpc: EthRpc, chain: string, entry: { address: string; label: string | null; answer?: string; hash_slot?: number }): Promise<Row> {
  const [code, balance, stored] = await Promise.all([
    rpc.call("eth_getCode", [entry.address, "latest"]),
    rpc.call("eth_getBalance", [entry.address, "latest"]),
    entry.hash_slot === undefined ? Promise.resolve(undefined) : rpc.call("eth_getStorageAt", [entry.address, `0x${entry.hash_slot.toString(16)}`, "latest"]),
  ]);
  const codeHex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/).parse(code);
  const balanceWei = quantity(balance);
  const v = classifyPuzzle({
    code: codeHex,
    balanceWei,
    knownAnswer: entry.answer,
    storedHash: typeof stored === "string" ? `0x${stored.slice(2).padStart(64, "0")}` : undefined,
  });
  return {
    address: entry.address,
    label: entry.label,
    chain,
    classification: v.classification,
    reason: v.reason,
    balance_wei: balanceWei.toString(),
    balance_eth: toEth(balanceWei),
    frontrun_exposed: v.frontrunExposed,
    code_bytes: (codeHex.length - 2) / 2,
    signals: v.signals,
  };
}

async function analysis(ctx: PuzzleDeps): Promise<Analysis> {
  const now = ctx.clock.now();
  if (ctx.memo.value && ctx.memo.at !== undefined && now - ctx.memo.at < CACHE_MS) return ctx.memo.value;
  const chainId = await ctx.rpc.chainId();
  const head = await ctx.rpc.header("latest");
  const chain = chainName(chainId);
  const rows: Row[] = [];
  // A few at a time: a long watchlist must not flood the node.
  for (let i = 0; i < ctx.watchlist.length; i += 8) {
    rows.push(...(await Promise.all(ctx.watchlist.slice(i, i + 8).map((e) => analyse(ctx.rpc, chain, e)))));
  }
  const value = { chainId, chain, head: Number(head?.number ?? 0n), headTime: head?.timestamp ?? 0, rows };
  ctx.memo.at = now;
  ctx.memo.value = value;
  return value;
}

const byClass = () => Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<PuzzleClass, number>;

export const PuzzleRiskOutput = z.object({
  as_of_ms: int,
  generated_at_ms: int,
  freshness,
  chain: z.literal("multi"),
  chains: z.record(z.string(), z.object({ head_block: int, chain_id: int })),
  head_block: int,
  totals: z.object({
    watched: int,
    funded: int,
    by_class: z.object({ unfunded: int, locked_no_payout: int, frontrun_bait: int, owner_only_payout: int, claimable: int, indeterminate: int }),
    eth_locked_no_payout: z.number(),
    eth_at_frontrun_risk: z.number(),
    eth_claimable: z.number(),
  }),
  contracts: z.array(Row).describe("the whole watchlist, highest balance first"),
  note: z.string(),
  premium_endpoint: z.string(),
  present: z.boolean(),
  source_freshness_s: int,
});
export type PuzzleRisk = z.infer<typeof PuzzleRiskOutput>;

export const PuzzleSummaryOutput = PuzzleRiskOutput.omit({ contracts: true }).extend({
  top: z.array(z.object({ address: z.string(), label: z.string().nullable(), chain: z.string(), classification: classEnum, balance_eth: z.number(), frontrun_exposed: z.boolean() })),
});
export type PuzzleSummary = z.infer<typeof PuzzleSummaryOutput>;

export async function computePuzzleRisk(ctx: PuzzleDeps): Promise<PuzzleRisk> {
  const a = await analysis(ctx);
  const now = ctx.clock.now();
  const age = Math.max(0, Math.floor(now / 1000 - a.headTime));
  const counts = byClass();
  let locked = 0n;
  let atRisk = 0n;
  let claimable = 0n;
  for (const r of a.rows) {
    counts[r.classification]++;
    const w = BigInt(r.balance_wei);
    if (r.classification === "locked_no_payout") locked += w;
    if (r.frontrun_exposed) atRisk += w;
    if (r.classification === "claimable") claimable += w;
  }
  const rows = [...a.rows].sort((x, y) => (BigInt(y.balance_wei) > BigInt(x.balance_wei) ? 1 : BigInt(y.balance_wei) < BigInt(x.balance_wei) ? -1 : x.address.localeCompare(y.address)));
  return {
    as_of_ms: a.headTime * 1000,
    generated_at_ms: now,
    freshness: { age_s: age, stale_after_s: ctx.maxAgeSeconds, stale: age > ctx.maxAgeSeconds },
    chain: "multi",
    chains: { [a.chain]: { head_block: a.head, chain_id: a.chainId } },
    head_block: a.head,
    totals: {
      watched: a.rows.length,
      funded: a.rows.filter((r) => r.balance_wei !== "0").length,
      by_class: counts,
      eth_locked_no_payout: toEth(locked),
      eth_at_frontrun_risk: toEth(atRisk),
      eth_claimable: toEth(claimable),
    },
    contracts: rows,
    note: "Static classification from bytecode, balance and the stored answer hash (docs/feeds.md, Puzzle risk). A front-run-exposed claim should go through the private relay (/v1/private-relay/info).",
    premium_endpoint: PUZZLE_RISK_PATH,
    present: a.rows.length > 0,
    source_freshness_s: age,
  };
}

/** The free summary: the paid answer without the list, and its 5 highest-stake rows. */
export function summarizePuzzleRisk(full: PuzzleRisk): PuzzleSummary {
  const { contracts, ...rest } = full;
  return {
    ...rest,
    top: contracts.slice(0, SUMMARY_TOP).map((r) => ({ address: r.address, label: r.label, chain: r.chain, classification: r.classification, balance_eth: r.balance_eth, frontrun_exposed: r.frontrun_exposed })),
  };
}

export const LookupInput = z.object({ address }).strict();
export const LookupOutput = Row.extend({ watched: z.boolean(), as_of_ms: int });

export async function lookupPuzzle(ctx: PuzzleDeps, addr: string): Promise<z.infer<typeof LookupOutput>> {
  const watched = ctx.watchlist.find((e) => e.address === addr);
  const chainId = await ctx.rpc.chainId();
  const head = await ctx.rpc.header("latest");
  const row = await analyse(ctx.rpc, chainName(chainId), watched ?? { address: addr, label: null });
  return { ...row, watched: watched !== undefined, as_of_ms: (head?.timestamp ?? 0) * 1000 };
}
