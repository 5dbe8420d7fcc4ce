/**
 * The lending indexer: a background job that keeps, per lending market
 * (chains/ethereum/lending.ts), the borrowers with debt and their health,
 * and the liquidations, in the database (lending-store.ts). What differs by
 * protocol (Aave V3/SparkLend, Compound V3, Morpho Blue) is behind
 * lending-venues.ts. One run, for each market in turn:
 *   1. reads the node's head; the indexer stays `confirmations` blocks
 *      behind it, so a shallow reorg never reaches the stored events;
 *   2. reads the market contract's logs of the venue's topics (eth_getLogs)
 *      from the block after the cursor, at most `batchBlocks` at a time; a
 *      new market starts `backfillBlocks` below the head;
 *   3. positions are the ones those events name; their health is read in
 *      Multicall3 aggregate3 batches — only the touched ones while catching
 *      up, every tracked position once the range reaches the head (the
 *      health-factor refresh);
 *   4. each liquidation (LiquidationCall, AbsorbDebt, Liquidate) is valued
 *      in USD with the oracle's price of the debt token and its decimals()
 *      (read in one batch), at indexing time;
 *   5. the market's liquidation terms (Aave V3 / SparkLend: the principal
 *      collateral reserve's getConfiguration; Compound V3: the storefront
 *      factor and the assets' liquidation factors) are read, with the block
 *      Multicall3 answered at;
 *   6. in one transaction: positions with debt upserted, positions without
 *      debt dropped, liquidations inserted (idempotent by block and log
 *      index), the terms stored, the cursor moved, liquidations past the
 *      retention pruned.
 * Terms that cannot be read do not hold up the positions: the market keeps
 * its previous terms and records the error on its cursor after the write
 * (the run of that market counts as failed).
 * A market that fails records its error on its cursor and the others go on;
 * the run fails only when every market failed. Several workers may run it:
 * every write is an idempotent upsert of the same chain data.
 */
import { z } from "zod";
import type { Hex } from "viem";
import type { Clock } from "../core/clock.js";
import type { Job } from "../core/jobs.js";
import type { Queryable } from "../db/types.js";
import { withTransaction } from "../db/transaction.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import { ASSETS } from "../chains/ethereum/flashloans.js";
import {
  accountDataCall,
  assetPriceCall,
  decimalsCall,
  decodeAccountData,
  decodeAggregate3,
  decodeAssetPrice,
  decodeDecimals,
  encodeAggregate3,
  MULTICALL3,
  toBase,
  type LendingMarket,
  type RawLog,
  type SubCall,
} from "../chains/ethereum/lending.js";
import { venueFor, type FoundLiquidation, type LendingVenue, type PositionKey, type TokenFacts, type VenueContext } from "./lending-venues.js";
import {
  advanceCursor,
  cursors,
  pruneLiquidations,
  recordCursorError,
  storeAccounts,
  storeLiquidations,
  storeMarketTerms,
  trackedPositions,
  type StoredLiquidation,
} from "./lending-store.js";

export interface LendingIndexerDeps {
  db: Queryable;
  rpc: EthRpc;
  clock: Clock;
  markets: readonly LendingMarket[];
  /** The price oracle used to value liquidations and gas (USD, 8 decimals). */
  oracle: string;
  /** Where a market without a cursor starts: this many blocks below the head. */
  backfillBlocks: number;
  /** eth_getLogs range per call (public nodes cap it; 1,000–5,000 is safe). */
  batchBlocks: number;
  /** Blocks the indexer stays behind the head. */
  confirmations: number;
  /** Liquidations kept (seconds of block time). */
  retentionSeconds: number;
  /** Accounts per Multicall3 aggregate3 call. */
  multicallBatch: number;
}

export interface LendingRunResult {
  nodeHead: bigint;
  markets: { market: string; from: bigint | null; to: bigint | null; logs: number; refreshed: number; liquidations: number; error: string | null }[];
  more: boolean;
}

const hexQ = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/).transform((s) => BigInt(s));
const LogSchema = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/).transform((s) => s.toLowerCase()),
  topics: z.array(z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((s) => s.toLowerCase())),
  data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/),
  blockNumber: hexQ,
  blockHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((s) => s.toLowerCase()),
  transactionHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((s) => s.toLowerCase()),
  logIndex: hexQ.transform((v) => Number(v)),
  removed: z.boolean().optional(),
});

const hex = (v: bigint) => `0x${v.toString(16)}`;

/** eth_getLogs for one market's contract and topics over [from, to], shape-checked. */
async function marketLogs(rpc: EthRpc, pool: string, topics: readonly string[], from: bigint, to: bigint, signal?: AbortSignal): Promise<RawLog[]> {
  const raw = await rpc.call("eth_getLogs", [{ address: pool, fromBlock: hex(from), toBlock: hex(to), topics: [[...topics]] }], signal);
  const parsed = z.array(LogSchema).safeParse(raw);
  if (!parsed.success) throw new Error(`malformed eth_getLogs answer: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data.filter((l) => !l.removed && l.address === pool);
}

/** Runs sub-calls through Multicall3 in batches of `size`; null where a sub-call failed. */
export async function multicall(rpc: EthRpc, calls: readonly SubCall[], size: number, signal?: AbortSignal): Promise<(Hex | null)[]> {
  const out: (Hex | null)[] = [];
  for (let i = 0; i < calls.length; i += size) {
    const batch = calls.slice(i, i + size);
    const data = (await rpc.ethCall(MULTICALL3, encodeAggregate3(batch), signal)) as Hex;
    let results: (Hex | null)[];
    try {
      results = decodeAggregate3(data);
    } catch {
      throw new Error("malformed Multicall3 aggregate3 answer");
    }
    if (results.length !== batch.length) throw new Error("Multicall3 answered a different number of results");
    out.push(...results);
  }
  return out;
}

/** Each account's getUserAccountData (null where the call failed or answered garbage). */
export async function readAccounts(rpc: EthRpc, pool: string, users: readonly string[], batch: number, signal?: AbortSignal) {
  const results = await multicall(rpc, users.map((u) => accountDataCall(pool, u)), batch, signal);
  return users.map((borrower, i) => ({ borrower, data: decodeAccountData(results[i] ?? null) }));
}

/** USD price (8 dec) and decimals of each token, read in one batch; catalogued decimals when decimals() fails. */
async function tokenFacts(rpc: EthRpc, oracle: string, tokens: readonly string[], batch: number, signal?: AbortSignal) {
  const calls = tokens.flatMap((t) => [assetPriceCall(oracle, t), decimalsCall(t)]);
  const r = calls.length ? await multicall(rpc, calls, batch, signal) : [];
  const facts = new Map<string, { price: bigint | null; decimals: number | null }>();
  tokens.forEach((t, i) => {
    const price = decodeAssetPrice(r[2 * i] ?? null);
    const decimals = decodeDecimals(r[2 * i + 1] ?? null) ?? Object.values(ASSETS).find((a) => a.address === t)?.decimals ?? null;
    facts.set(t, { price: price && price > 0n ? price : null, decimals });
  });
  return facts;
}

type MarketLine = LendingRunResult["markets"][number];
type ReadTerms = Awaited<ReturnType<NonNullable<LendingVenue["terms"]>>>;
interface BlockRange {
  from: bigint;
  to: bigint;
}

/** What every market of one run shares: the chain, the block the indexer stops at, and the block times read so far. */
interface MarketRun {
  deps: LendingIndexerDeps;
  chainId: number;
  target: bigint;
  blockTime: (n: bigint) => Promise<number>;
  signal?: AbortSignal;
}

/** The node's chain id and head; when the node is down every market says so (data-freshness reports it) and the error goes on to the job runner. */
async function readHead(deps: LendingIndexerDeps, state: ReadonlyMap<string, { chainId: number }>, signal?: AbortSignal) {
  try {
    const chainId = await deps.rpc.chainId(signal);
    const nodeHead = await deps.rpc.blockNumber(signal);
    return { chainId, nodeHead };
  } catch (e) {
    if (!signal?.aborted) {
      const message = e instanceof Error ? e.message : String(e);
      for (const m of deps.markets) await recordCursorError(deps.db, m.id, state.get(m.id)?.chainId ?? 0, message, deps.clock.now());
    }
    throw e;
  }
}

/** A block's timestamp, each block asked of the node once per run. */
function blockTimes(rpc: EthRpc, signal?: AbortSignal): (n: bigint) => Promise<number> {
  const headers = new Map<bigint, number>();
  return async (n) => {
    if (!headers.has(n)) {
      const h = await rpc.header(n, signal);
      if (!h) throw new Error(`the node has no block ${n}`);
      headers.set(n, h.timestamp);
    }
    return headers.get(n)!;
  };
}

/** The blocks a market reads this run: from after its cursor (a new market: `backfillBlocks` below the target), at most `batchBlocks`; null when it is at the target. */
function marketRange(deps: LendingIndexerDeps, lastBlock: bigint | null | undefined, target: bigint): BlockRange | null {
  const from = lastBlock != null ? lastBlock + 1n : target - BigInt(deps.backfillBlocks) + 1n > 0n ? target - BigInt(deps.backfillBlocks) + 1n : 0n;
  if (from > target) return null;
  const to = from + BigInt(deps.batchBlocks) - 1n < target ? from + BigInt(deps.batchBlocks) - 1n : target;
  return { from, to };
}

/** The venue's view of the node for one market: Multicall3 in the configured batches, token facts read once per run of the market. */
function venueContext(deps: LendingIndexerDeps, market: LendingMarket, signal?: AbortSignal): VenueContext {
  const { rpc } = deps;
  const factsMemo = new Map<string, TokenFacts>();
  return {
    rpc,
    market,
    multicall: (calls) => multicall(rpc, calls, deps.multicallBatch, signal),
    signal,
    tokenFacts: async (tokens) => {
      const missing = [...new Set(tokens)].filter((t) => !factsMemo.has(t));
      if (missing.length) for (const [t, f] of await tokenFacts(rpc, deps.oracle, missing, deps.multicallBatch, signal)) factsMemo.set(t, f);
      return new Map(tokens.map((t) => [t, factsMemo.get(t)!]));
    },
  };
}

/** At the head every tracked position is refreshed; while catching up only those the range touched. */
async function positionsToRead(db: Queryable, market: string, caughtUp: boolean, touched: readonly PositionKey[]): Promise<PositionKey[]> {
  const keys = new Map<string, PositionKey>();
  for (const k of [...(caughtUp ? await trackedPositions(db, market) : []), ...touched]) keys.set(`${k.borrower}:${k.subMarket}`, k);
  return [...keys.values()];
}

/** The range's liquidations as stored: block time, and the debt in USD at the oracle's price (null without a price or decimals). */
async function valueLiquidations(run: MarketRun, market: string, found: readonly FoundLiquidation[], facts: ReadonlyMap<string, TokenFacts>): Promise<StoredLiquidation[]> {
  const liquidations: StoredLiquidation[] = [];
  for (const l of found) {
    const f = facts.get(l.debtAsset);
    liquidations.push({
      market,
      blockNumber: l.log.blockNumber,
      logIndex: l.log.logIndex,
      blockHash: l.log.blockHash,
      txHash: l.log.transactionHash,
      blockTimeS: await run.blockTime(l.log.blockNumber),
      borrower: l.borrower,
      liquidator: l.liquidator,
      collateralAsset: l.collateralAsset,
      debtAsset: l.debtAsset,
      debtToCover: l.debtToCover,
      collateralAmount: l.collateralAmount,
      debtBase: f?.price != null && f.decimals != null ? toBase(l.debtToCover, f.decimals, f.price) : null,
      subMarket: l.subMarket,
    });
  }
  return liquidations;
}

/** The market's liquidation terms, or why they could not be read (which does not hold up the positions). */
async function readTerms(venue: LendingVenue, ctx: VenueContext, signal?: AbortSignal): Promise<{ terms: ReadTerms | null; termsError: string | null }> {
  if (!venue.terms) return { terms: null, termsError: null };
  try {
    return { terms: await venue.terms(ctx), termsError: null };
  } catch (e) {
    if (signal?.aborted) throw e;
    return { terms: null, termsError: `liquidation terms: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Indexes one market over its range and fills its line; true when the range reached the target. */
async function indexMarket(run: MarketRun, market: LendingMarket, { from, to }: BlockRange, line: MarketLine): Promise<boolean> {
  const { deps, signal } = run;
  const weth = ASSETS.WETH!.address;
  const venue = venueFor(market);
  const ctx = venueContext(deps, market, signal);
  const logs = await marketLogs(deps.rpc, market.pool, venue.topics, from, to, signal);
  line.logs = logs.length;
  const found = await venue.scan(ctx, logs);
  const caughtUp = to === run.target;
  const accounts = await venue.read(ctx, await positionsToRead(deps.db, market.id, caughtUp, found.touched));
  const facts = await ctx.tokenFacts([weth, ...found.liquidations.map((l) => l.debtAsset)]);
  const liquidations = await valueLiquidations(run, market.id, found.liquidations, facts);
  const { terms, termsError } = await readTerms(venue, ctx, signal);
  const toTime = await run.blockTime(to);
  const nowMs = deps.clock.now();
  await withTransaction(deps.db, async (trx) => {
    await storeAccounts(trx, market.id, to, nowMs, accounts);
    await storeLiquidations(trx, liquidations);
    if (terms) await storeMarketTerms(trx, { market: market.id, ...terms.terms, readBlock: terms.block, readMs: nowMs });
    await advanceCursor(trx, { market: market.id, chainId: run.chainId, lastBlock: to, lastBlockTimeS: toTime, nowMs, refreshed: caughtUp, ethPriceBase: facts.get(weth)?.price ?? null });
    await pruneLiquidations(trx, Math.floor(nowMs / 1000) - deps.retentionSeconds);
  });
  line.refreshed = accounts.length;
  line.liquidations = liquidations.length;
  if (termsError) {
    // After the cursor moved (which clears the error): the positions are current, the terms are not.
    line.error = termsError;
    await recordCursorError(deps.db, market.id, run.chainId, termsError, nowMs);
  }
  return caughtUp;
}

export async function indexLendingOnce(deps: LendingIndexerDeps, signal?: AbortSignal): Promise<LendingRunResult> {
  const state = new Map((await cursors(deps.db)).map((c) => [c.market, c]));
  const { chainId, nodeHead } = await readHead(deps, state, signal);
  const target = nodeHead - BigInt(deps.confirmations);
  const result: LendingRunResult = { nodeHead, markets: [], more: false };
  if (target < 0n) return result;
  const run: MarketRun = { deps, chainId, target, blockTime: blockTimes(deps.rpc, signal), signal };
  for (const market of deps.markets) {
    const line: MarketLine = { market: market.id, from: null, to: null, logs: 0, refreshed: 0, liquidations: 0, error: null };
    result.markets.push(line);
    const range = marketRange(deps, state.get(market.id)?.lastBlock, target);
    if (!range) continue;
    line.from = range.from;
    line.to = range.to;
    try {
      if (!(await indexMarket(run, market, range, line))) result.more = true;
    } catch (e) {
      if (signal?.aborted) throw e;
      line.error = e instanceof Error ? e.message : String(e);
      await recordCursorError(deps.db, market.id, chainId, line.error, deps.clock.now());
    }
  }
  const attempted = result.markets.filter((m) => m.from !== null);
  if (attempted.length > 0 && attempted.every((m) => m.error !== null)) {
    throw new Error(`lending indexer: every market failed (${attempted.map((m) => `${m.market}: ${m.error}`).join("; ")})`);
  }
  return result;
}

/** The indexer as a background job (one entry of `backgroundJobs`). */
export function lendingIndexerJob(deps: LendingIndexerDeps, intervalMs: number): Job {
  return {
    name: "lending indexer",
    intervalMs,
    leaseSeconds: 120,
    run: async (signal) => ({ more: (await indexLendingOnce(deps, signal)).more }),
  };
}
