/**
 * Reading the lending indexer's data back (lending-store.ts), shared by the
 * Penny Oracle's lending questions and the opportunities feed: which markets
 * an answer covers, the parameters that filter positions, the price drop to
 * liquidation, and the check that the indexed data may be answered from at
 * all (a 503 naming `lending` otherwise, never stale data passed off as
 * fresh).
 */
import type { Clock } from "../core/clock.js";
import { badRequest, unavailable } from "../core/errors.js";
import type { Queryable } from "../db/types.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import { decimalToWad, LENDING_PROTOCOLS, usdToBase, WAD, type LendingMarket } from "../chains/ethereum/lending.js";
import { cursors } from "./lending-store.js";

export const LENDING_SOURCE = "lending";
export const PROTOCOL_CHOICES = ["all", ...LENDING_PROTOCOLS] as const;
export const MAX_HF_LIMIT = 1_000n * WAD;

/** What a read of the lending data needs: the store, the node, the clock, the markets and the staleness limit. */
export interface LendingReadDeps {
  db: Queryable;
  rpc: EthRpc;
  clock: Clock;
  markets: readonly LendingMarket[];
  /** Oldest newest-indexed block (seconds) the answers accept before answering 503 source_stale. */
  maxAgeSeconds: number;
}

export const marketsFor = (markets: readonly LendingMarket[], protocol: string | undefined) =>
  markets.filter((m) => protocol === undefined || protocol === "all" || m.protocol === protocol);

/** 400 invalid_input naming the one parameter at fault. */
export const invalidParam = (path: string, message: string) =>
  badRequest("invalid_input", "The question's parameters are invalid.", { issues: [{ path, message }] });

export function parseMaxHf(text: string | undefined): bigint {
  const v = decimalToWad(text ?? "1.05");
  if (v === null || v > MAX_HF_LIMIT) throw invalidParam("max_hf", "max_hf must be a decimal health factor from 0 to 1000, e.g. 1.05");
  return v;
}

export function parseMinDebt(text: string | undefined): bigint {
  const v = usdToBase(text ?? "0");
  if (v === null) throw invalidParam("min_debt_usd", "min_debt_usd must be a non-negative amount of US dollars, e.g. 10000 or 2500.50");
  return v;
}

/**
 * The indexed data's state for an answer about `markets`; throws 503 when
 * no answer may be given (never stale data passed off as fresh).
 */
export async function lendingSourceCheck(deps: LendingReadDeps, markets: readonly LendingMarket[]) {
  if (!deps.rpc.configured) {
    throw unavailable("chain_not_configured", "No Ethereum node is configured (ETH_RPC_URL).", { chain: "ethereum", source: LENDING_SOURCE });
  }
  const all = new Map((await cursors(deps.db)).map((c) => [c.market, c]));
  const cs = markets.map((m) => all.get(m.id));
  const nowS = Math.floor(deps.clock.now() / 1000);
  const lastError = cs.find((c) => c?.lastError)?.lastError ?? null;
  if (cs.some((c) => !c || c.lastBlockTimeS === null || c.lastBlock === null || c.lastRefreshMs === null)) {
    throw unavailable("source_stale", "The lending markets have not been indexed yet.", { source: LENDING_SOURCE, age_s: null, ...(lastError ? { last_error: lastError } : {}) });
  }
  const oldest = Math.min(...cs.map((c) => c!.lastBlockTimeS!));
  const age = Math.max(0, nowS - oldest);
  if (age > deps.maxAgeSeconds) {
    throw unavailable("source_stale", `The newest indexed lending block is ${age} s old (limit ${deps.maxAgeSeconds} s).`, {
      source: LENDING_SOURCE,
      age_s: age,
      ...(lastError ? { last_error: lastError } : {}),
    });
  }
  const indexed = cs.reduce((min, c) => (c!.lastBlock! < min ? c!.lastBlock! : min), cs[0]!.lastBlock!);
  return { source_age_s: age, indexed_block: Number(indexed), nowS, cursors: cs.map((c) => c!) };
}

/** 100 × (1 − 1/HF), 2 decimals, from the 1e18-scaled HF. */
export function priceDropPct(hfWad: bigint): number {
  if (hfWad <= WAD) return 0;
  return Number((10_000n * (hfWad - WAD)) / hfWad) / 100;
}
