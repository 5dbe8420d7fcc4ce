/**
 * The counter-MEV approval-risk feed (docs/feeds.md, Counter-MEV): from the
 * approvals and reverted transactions the scan stored (approval-scan.ts),
 * the public risk lists (risk-lists.ts) and the ETH/USD price, one
 * computation, `computeCounterMev`, scores
 *   - spenders: revoke.cash factor sum (list factors, `eoa` for a spender
 *     without code) capped at 100, +10 when it holds an unlimited live
 *     allowance, +10 when ≥ VICTIMS_BONUS_AT distinct owners have a live
 *     allowance to it; capped at 100;
 *   - tokens: their list factors plus 60 × the share of their live
 *     approvals that go to high or critical spenders;
 *   - dangling approvals: live allowances > 0 to an EOA or to a high or
 *     critical spender, scored as the spender (+10 when unlimited);
 *   - bleeding bots: senders with ≥ BOT_MIN_FAILS reverted transactions in
 *     the window, their gas burn and dominant failure reason.
 * Bands: critical ≥ 90, or an exploit/blocklist factor with a live unlimited
 * allowance; high 60–89; medium 25–59; low 1–24 (0 is no risk signal and is
 * not counted). The paid feed is the whole computation; the free summary is
 * `summarizeCounterMev` of it (totals, bands, the top 5 of each list).
 * `approvalRiskOf` scores one address for /v1/q/address-risk with the same
 * functions over the same window, reading only the pairs that touch it (and
 * all pairs of the spenders among them, which their scores need).
 */
import { sql } from "kysely";
import { z } from "zod";
import { sampleFreshness } from "./sample-fields.js";
import type { Clock } from "../core/clock.js";
import { unavailable } from "../core/errors.js";
import type { Queryable } from "../db/types.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import { ethUsdPrice, UNLIMITED_FROM } from "../chains/ethereum/approvals.js";
import { scanState } from "./approval-scan.js";
import { FACTOR_WEIGHTS, type RiskFactor, type RiskLists } from "../chains/ethereum/risk-lists.js";
import { BANDS, bandOf, isFlaggedBand, RISKY_TOKEN_SCORE, type ApprovalRisk, type Band } from "../chains/ethereum/approval-risk.js";

export const VICTIMS_BONUS_AT = 5;
export const BOT_MIN_FAILS = 3;
export const SUMMARY_TOP = 5;
export const COUNTER_MEV_PATH = "/v1/premium/counter-mev";

export interface CounterMevDeps {
  db: Queryable;
  rpc: EthRpc;
  clock: Clock;
  lists: RiskLists;
  /** Blocks of the default window. */
  windowBlocks: number;
  /** Most blocks a paid call may ask for (the scan's retention). */
  maxWindowBlocks: number;
  /** Age (s) of the newest scanned block beyond which the data is stale. */
  maxAgeSeconds: number;
  /** The last ETH/USD read (kept 60 s); start with {}. */
  priceMemo: { at?: number; value?: number | null };
}

/** The factor with the highest weight (first listed wins a tie), or null. */
function topFactor(factors: readonly RiskFactor[]): RiskFactor | null {
  let best: RiskFactor | null = null;
  for (const f of factors) if (best === null || FACTOR_WEIGHTS[f] > FACTOR_WEIGHTS[best]) best = f;
  return best;
}

export interface SpenderInput {
  factors: RiskFactor[];
  unlimitedLive: boolean;
  distinctVictims: number;
}

export function scoreSpender(s: SpenderInput): { score: number; band: Band | null; topFlag: string | null } {
  const base = Math.min(100, s.factors.reduce((a, f) => a + FACTOR_WEIGHTS[f], 0));
  const score = Math.min(100, base + (s.unlimitedLive ? 10 : 0) + (s.distinctVictims >= VICTIMS_BONUS_AT ? 10 : 0));
  const severe = s.unlimitedLive && (s.factors.includes("exploit") || s.factors.includes("blocklist"));
  const topFlag = topFactor(s.factors) ?? (s.unlimitedLive ? "unlimited_allowance" : s.distinctVictims >= VICTIMS_BONUS_AT ? "many_victims" : null);
  return { score, band: bandOf(score, severe), topFlag };
}

export function scoreToken(factors: RiskFactor[], flaggedShare: number): { score: number; band: Band | null; topFlag: string | null } {
  const score = Math.min(100, factors.reduce((a, f) => a + FACTOR_WEIGHTS[f], 0) + Math.round(60 * flaggedShare));
  return { score, band: bandOf(score), topFlag: topFactor(factors) ?? (flaggedShare > 0 ? "approvals_to_flagged_spenders" : null) };
}

const num = z.number();
const int = z.number().int();
const bandCounts = z.object({ critical: int, high: int, medium: int, low: int });
const bandEnum = z.enum(BANDS);

const SpenderRow = z.object({ address: z.string(), risk_score: int, risk_band: bandEnum, distinct_victims: int, top_flag: z.string().nullable() });
const TokenRow = z.object({ address: z.string(), risk_score: int, risk_band: bandEnum, approvals: int, flagged_share: num, top_flag: z.string().nullable() });
const BotRow = z.object({ addr: z.string(), gas_burned_usd: num.nullable(), dominant_reason: z.enum(["out_of_gas", "reverted", "priority_gas_auction"]) });

const common = {
  as_of_ms: int.nullable().describe("time of the newest scanned block (Unix ms); null before the first scan"),
  generated_at_ms: int,
  freshness: sampleFreshness,
  chain: z.string(),
  block_window: z.object({ from_block: int, to_block: int, blocks: int }),
  totals: z.object({
    risky_tokens: int,
    malicious_spenders: int,
    dangling_approvals: int,
    bleeding_bots: int,
    gas_bleed_eth: num,
    gas_bleed_usd: num.nullable().describe("null when no ETH/USD price is available"),
  }),
  risk_distribution: z.object({ malicious_spenders: bandCounts, risky_tokens: bandCounts, dangling_approvals: bandCounts }),
  note: z.string(),
  premium_endpoint: z.string(),
  present: z.boolean(),
  source_freshness_s: int.nullable(),
};

export const CounterMevSummaryOutput = z.object({
  ...common,
  top: z.object({ malicious_spenders: z.array(SpenderRow), risky_tokens: z.array(TokenRow), bleeding_bots: z.array(BotRow) }),
});
export type CounterMevSummary = z.infer<typeof CounterMevSummaryOutput>;

export const CounterMevOutput = z.object({
  ...common,
  filters: z.object({ min_band: bandEnum, window_blocks: int }),
  eth_usd: num.nullable(),
  risk_lists: z.array(z.string()),
  spenders: z.array(
    SpenderRow.extend({ kind: z.string(), approvals: int, unlimited_live: z.boolean(), factors: z.array(z.string()), labels: z.array(z.string()) }),
  ),
  tokens: z.array(TokenRow.extend({ factors: z.array(z.string()), labels: z.array(z.string()) })),
  dangling_approvals: z.array(
    z.object({
      token: z.string(),
      owner: z.string(),
      spender: z.string(),
      allowance: z.string().describe("live allowance, token base units"),
      unlimited: z.boolean(),
      approved_block: int,
      allowance_checked_block: int.nullable().describe("block at which allowance() was read; null: the last Approval log's value"),
      risk_score: int,
      risk_band: bandEnum,
      reason: z.string(),
    }),
  ),
  bleeding_bots: z.array(
    BotRow.extend({
      failed_txs: int,
      gas_burned_wei: z.string(),
      gas_burned_eth: num,
      reasons: z.object({ out_of_gas: int, reverted: int, priority_gas_auction: int }),
    }),
  ),
});
export type CounterMev = z.infer<typeof CounterMevOutput>;

export const CounterMevInput = z
  .object({
    min_band: bandEnum.default("low").describe("lowest band listed (totals and distribution always count every band)"),
    window_blocks: z.coerce.number().int().min(1).max(1_000_000).optional().describe("blocks back from the newest scanned block; default the configured window, at most the retention"),
  })
  .strict();

const chainName = (id: number) => (id === 1 ? "ethereum" : `eip155:${id}`);
const weiToEth = (w: bigint) => Number(w / 10n ** 9n) / 1e9;
const emptyBands = () => ({ critical: 0, high: 0, medium: 0, low: 0 });

async function ethUsd(ctx: CounterMevDeps): Promise<number | null> {
  const now = ctx.clock.now();
  const memo = ctx.priceMemo;
  if (memo.at !== undefined && memo.value !== undefined && now - memo.at < 60_000) return memo.value;
  const p = await ethUsdPrice(ctx.rpc).catch(() => null);
  // A price older than a day is no price.
  const value = p && now / 1000 - p.updatedAt < 86_400 ? p.usd : null;
  memo.at = now;
  memo.value = value;
  return value;
}

/** The latest approval of one (token, owner, spender) in the window, with its live allowance. */
interface ApprovalPair {
  token: string;
  owner: string;
  spender: string;
  live: bigint;
  block: number;
  checked: number | null;
  kind: string;
}

/** Which pairs to read: all of the window, or those touching some addresses in the roles named. */
interface PairFilter {
  spenders?: readonly string[];
  tokens?: readonly string[];
  owners?: readonly string[];
}

async function approvalPairs(db: Queryable, chainId: number, fromBlock: bigint, toBlock: bigint, filter?: PairFilter): Promise<ApprovalPair[]> {
  const c = String(chainId);
  const inList = (col: string, xs: readonly string[] | undefined) => (xs && xs.length ? [sql`${sql.ref(col)} IN (${sql.join(xs)})`] : []);
  const conds = filter ? [...inList("spender", filter.spenders), ...inList("token", filter.tokens), ...inList("owner", filter.owners)] : [];
  if (filter && conds.length === 0) return [];
  const where = filter ? sql`AND (${sql.join(conds, sql` OR `)})` : sql``;
  return (
    await sql<{ token: string; owner: string; spender: string; value: string; block_number: string; allowance: string | null; checked_block: string | null; kind: string | null }>`
      SELECT l.token, l.owner, l.spender, l.value::text, l.block_number::text, a.allowance::text, a.checked_block::text, acc.kind
      FROM (SELECT DISTINCT ON (token, owner, spender) token, owner, spender, value, block_number
            FROM cmev_approvals WHERE chain_id = ${c} AND block_number BETWEEN ${fromBlock.toString()} AND ${toBlock.toString()} ${where}
            ORDER BY token, owner, spender, block_number DESC, log_index DESC) l
      LEFT JOIN cmev_allowances a ON a.chain_id = ${c} AND a.token = l.token AND a.owner = l.owner AND a.spender = l.spender AND a.checked_block >= l.block_number
      LEFT JOIN cmev_accounts acc ON acc.chain_id = ${c} AND acc.address = l.spender`.execute(db)
  ).rows.map((r) => ({
    token: r.token,
    owner: r.owner,
    spender: r.spender,
    live: r.allowance !== null ? BigInt(r.allowance) : BigInt(r.value),
    block: Number(r.block_number),
    checked: r.allowance !== null && r.checked_block !== null ? Number(r.checked_block) : null,
    kind: r.kind ?? "contract",
  }));
}

type ScoredSpender = ReturnType<typeof scoreSpenders>[number];

/** Each spender of the pairs (all of its pairs in the window must be given), scored. */
function scoreSpenders(pairs: readonly ApprovalPair[], lists: RiskLists) {
  const bySpender = new Map<string, ApprovalPair[]>();
  for (const p of pairs) bySpender.set(p.spender, [...(bySpender.get(p.spender) ?? []), p]);
  return [...bySpender].map(([address, ps]) => {
    const entry = lists.spender(address);
    const kind = ps[0]!.kind;
    const factors: RiskFactor[] = [...(entry?.factors ?? [])];
    if (kind === "eoa" && !factors.includes("eoa")) factors.push("eoa");
    const livePairs = ps.filter((p) => p.live > 0n);
    const unlimitedLive = livePairs.some((p) => p.live >= UNLIMITED_FROM);
    const distinctVictims = new Set(livePairs.map((p) => p.owner)).size;
    const s = scoreSpender({ factors, unlimitedLive, distinctVictims });
    return { address, kind, approvals: ps.length, unlimitedLive, distinctVictims, factors, labels: entry?.labels ?? [], ...s };
  });
}

const isFlagged = (s: ScoredSpender | undefined) => isFlaggedBand(s?.band);

/** Each token with live approvals among the pairs (all of its pairs must be given), scored from its spenders' bands. */
function scoreTokens(pairs: readonly ApprovalPair[], spenderBand: ReadonlyMap<string, ScoredSpender>, lists: RiskLists) {
  const byToken = new Map<string, ApprovalPair[]>();
  for (const p of pairs) if (p.live > 0n) byToken.set(p.token, [...(byToken.get(p.token) ?? []), p]);
  return [...byToken].map(([address, ps]) => {
    const entry = lists.token(address);
    const share = ps.filter((p) => isFlagged(spenderBand.get(p.spender))).length / ps.length;
    const s = scoreToken([...(entry?.factors ?? [])], share);
    return { address, approvals: ps.length, flaggedShare: Math.round(share * 10_000) / 10_000, factors: entry?.factors ?? [], labels: entry?.labels ?? [], ...s };
  });
}

/** The dangling approvals among the pairs: live, to an EOA or to a high or critical spender. */
function danglingOf(pairs: readonly ApprovalPair[], spenderBand: ReadonlyMap<string, ScoredSpender>) {
  return pairs
    .filter((p) => p.live > 0n && (p.kind === "eoa" || isFlagged(spenderBand.get(p.spender))))
    .map((p) => {
      const sp = spenderBand.get(p.spender)!;
      const unlimited = p.live >= UNLIMITED_FROM;
      const score = Math.min(100, sp.score + (unlimited && !sp.unlimitedLive ? 10 : 0));
      const severe = unlimited && (sp.factors.includes("exploit") || sp.factors.includes("blocklist"));
      return {
        token: p.token,
        owner: p.owner,
        spender: p.spender,
        allowance: p.live.toString(),
        unlimited,
        approved_block: p.block,
        allowance_checked_block: p.checked,
        risk_score: score,
        risk_band: bandOf(score, severe) ?? ("low" as Band),
        reason: p.kind === "eoa" ? "spender is an externally owned account" : `spender flagged: ${sp.topFlag ?? "score"}`,
      };
    });
}

/** The scan's window: the configured blocks back from the newest scanned one, never before the first kept. */
async function scanWindow(ctx: CounterMevDeps, chainId: number, windowBlocksAsked: number | undefined) {
  const state = await scanState(ctx.db, chainId);
  const windowBlocks = Math.min(windowBlocksAsked ?? ctx.windowBlocks, ctx.maxWindowBlocks);
  const toBlock = state ? state.scannedTo : 0n;
  const fromCandidate = toBlock - BigInt(windowBlocks) + 1n;
  const fromBlock = state ? (fromCandidate > state.firstBlock ? fromCandidate : state.firstBlock) : 0n;
  const asOf = state ? state.scannedToTime * 1000 : null;
  const age = asOf === null ? null : Math.max(0, Math.floor((ctx.clock.now() - asOf) / 1000));
  return { state, windowBlocks, fromBlock, toBlock, asOf, age };
}

/** What the approval scan knows of one address (the type is shared with the address-risk question). */
export async function approvalRiskOf({ ctx, address }: { ctx: CounterMevDeps; address: string }): Promise<ApprovalRisk> {
  const addr = address.toLowerCase();
  const chainId = await ctx.rpc.chainId();
  const w = await scanWindow(ctx, chainId, undefined);
  const own = w.state ? await approvalPairs(ctx.db, chainId, w.fromBlock, w.toBlock, { spenders: [addr], tokens: [addr], owners: [addr] }) : [];
  // A spender's score needs all of its pairs: the spenders met here, read whole.
  const spenderSet = [...new Set(own.map((p) => p.spender))];
  const spenderPairs = spenderSet.length ? await approvalPairs(ctx.db, chainId, w.fromBlock, w.toBlock, { spenders: spenderSet }) : [];
  const scored = scoreSpenders(spenderPairs, ctx.lists);
  const spenderBand = new Map(scored.map((s) => [s.address, s]));
  const asSpender = spenderBand.get(addr);
  const asToken = scoreTokens(own.filter((p) => p.token === addr), spenderBand, ctx.lists)[0];
  const dangling = danglingOf(own.filter((p) => p.owner === addr), spenderBand).sort((a, b) => b.risk_score - a.risk_score || b.approved_block - a.approved_block);
  const failed = w.state
    ? await sql<{ n: string }>`SELECT count(*)::text AS n FROM cmev_failed_txs WHERE chain_id = ${String(chainId)} AND from_address = ${addr}
        AND block_number BETWEEN ${w.fromBlock.toString()} AND ${w.toBlock.toString()}`.execute(ctx.db)
    : { rows: [{ n: "0" }] };
  return {
    present: w.state !== null,
    window: { from_block: Number(w.fromBlock), to_block: Number(w.toBlock), blocks: w.state ? Number(w.toBlock - w.fromBlock + 1n) : 0 },
    age_s: w.age,
    stale: w.age === null || w.age > ctx.maxAgeSeconds,
    spender: asSpender
      ? { risk_score: asSpender.score, risk_band: asSpender.band, distinct_victims: asSpender.distinctVictims, unlimited_live: asSpender.unlimitedLive, factors: asSpender.factors, top_flag: asSpender.topFlag }
      : null,
    token: asToken ? { risk_score: asToken.score, risk_band: asToken.band, approvals: asToken.approvals, flagged_share: asToken.flaggedShare, factors: asToken.factors, top_flag: asToken.topFlag } : null,
    dangling: dangling.map((d) => ({ token: d.token, spender: d.spender, unlimited: d.unlimited, risk_score: d.risk_score, risk_band: d.risk_band, reason: d.reason })),
    failed_txs: Number(failed.rows[0]?.n ?? 0),
  };
}

export async function computeCounterMev({ ctx, input }: { ctx: CounterMevDeps; input: z.infer<typeof CounterMevInput> }): Promise<CounterMev> {
  const now = ctx.clock.now();
  const chainId = await ctx.rpc.chainId();
  const { state, windowBlocks, fromBlock, toBlock, asOf, age } = await scanWindow(ctx, chainId, input.window_blocks);
  const c = String(chainId);
  const pairs = await approvalPairs(ctx.db, chainId, fromBlock, toBlock);
  const spenders = scoreSpenders(pairs, ctx.lists);
  const spenderBand = new Map(spenders.map((s) => [s.address, s]));
  const tokens = scoreTokens(pairs, spenderBand, ctx.lists);
  const dangling = danglingOf(pairs, spenderBand);

  // Bleeding bots.
  const price = await ethUsd(ctx);
  const bots = (
    await sql<{ addr: string; n: string; burn: string; oog: string; rev: string; pga: string }>`
      SELECT from_address AS addr, count(*)::text AS n, sum(burn_wei)::text AS burn,
             count(*) FILTER (WHERE reason = 'out_of_gas')::text AS oog,
             count(*) FILTER (WHERE reason = 'reverted')::text AS rev,
             count(*) FILTER (WHERE reason = 'priority_gas_auction')::text AS pga
      FROM cmev_failed_txs WHERE chain_id = ${c} AND block_number BETWEEN ${fromBlock.toString()} AND ${toBlock.toString()}
      GROUP BY from_address HAVING count(*) >= ${BOT_MIN_FAILS}
      ORDER BY sum(burn_wei) DESC, from_address`.execute(ctx.db)
  ).rows.map((r) => {
    const reasons = { out_of_gas: Number(r.oog), reverted: Number(r.rev), priority_gas_auction: Number(r.pga) };
    const dominant = (Object.entries(reasons) as [keyof typeof reasons, number][]).reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    const eth = weiToEth(BigInt(r.burn));
    return {
      addr: r.addr,
      gas_burned_usd: price === null ? null : Math.round(eth * price * 100) / 100,
      dominant_reason: dominant,
      failed_txs: Number(r.n),
      gas_burned_wei: r.burn,
      gas_burned_eth: eth,
      reasons,
    };
  });
  const bleedWei = bots.reduce((a, b) => a + BigInt(b.gas_burned_wei), 0n);

  const dist = { malicious_spenders: emptyBands(), risky_tokens: emptyBands(), dangling_approvals: emptyBands() };
  for (const s of spenders) if (s.band) dist.malicious_spenders[s.band]++;
  for (const t of tokens) if (t.band) dist.risky_tokens[t.band]++;
  for (const d of dangling) dist.dangling_approvals[d.risk_band]++;

  const rank = BANDS.indexOf(input.min_band);
  const keep = (b: Band | null) => b !== null && BANDS.indexOf(b) <= rank;
  const bySeverity = <T extends { score: number }>(a: T, b: T) => b.score - a.score;
  const gasEth = weiToEth(bleedWei);
  return {
    as_of_ms: asOf,
    generated_at_ms: now,
    freshness: { age_s: age, stale_after_s: ctx.maxAgeSeconds, stale: age === null || age > ctx.maxAgeSeconds },
    chain: chainName(chainId),
    block_window: { from_block: Number(fromBlock), to_block: Number(toBlock), blocks: state ? Number(toBlock - fromBlock + 1n) : 0 },
    totals: {
      risky_tokens: tokens.filter((t) => t.score >= RISKY_TOKEN_SCORE).length,
      malicious_spenders: spenders.filter((s) => isFlaggedBand(s.band)).length,
      dangling_approvals: dangling.length,
      bleeding_bots: bots.length,
      gas_bleed_eth: gasEth,
      gas_bleed_usd: price === null ? null : Math.round(gasEth * price * 100) / 100,
    },
    risk_distribution: dist,
    note: "Scores follow the documented model (docs/feeds.md, Counter-MEV): public risk-list factors, EOA spenders, unlimited live allowances, victim counts; bleeding bots are senders with repeated reverted transactions.",
    premium_endpoint: COUNTER_MEV_PATH,
    present: state !== null,
    source_freshness_s: age,
    filters: { min_band: input.min_band, window_blocks: windowBlocks },
    eth_usd: price,
    risk_lists: ctx.lists.names,
    spenders: spenders
      .filter((s) => keep(s.band))
      .sort((a, b) => bySeverity(a, b) || b.distinctVictims - a.distinctVictims || a.address.localeCompare(b.address))
      .map((s) => ({
        address: s.address,
        risk_score: s.score,
        risk_band: s.band!,
        distinct_victims: s.distinctVictims,
        top_flag: s.topFlag,
        kind: s.kind,
        approvals: s.approvals,
        unlimited_live: s.unlimitedLive,
        factors: s.factors,
        labels: s.labels,
      })),
    tokens: tokens
      .filter((t) => keep(t.band))
      .sort((a, b) => bySeverity(a, b) || b.approvals - a.approvals || a.address.localeCompare(b.address))
      .map((t) => ({ address: t.address, risk_score: t.score, risk_band: t.band!, approvals: t.approvals, flagged_share: t.flaggedShare, top_flag: t.topFlag, factors: t.factors, labels: t.labels })),
    dangling_approvals: dangling
      .filter((d) => keep(d.risk_band))
      .sort((a, b) => b.risk_score - a.risk_score || b.approved_block - a.approved_block || a.owner.localeCompare(b.owner)),
    bleeding_bots: bots,
  };
}

/** The free summary: the paid answer's totals and bands, and its top 5 of each list (fields as the spec names them). */
export function summarizeCounterMev(full: CounterMev): CounterMevSummary {
  return {
    as_of_ms: full.as_of_ms,
    generated_at_ms: full.generated_at_ms,
    freshness: full.freshness,
    chain: full.chain,
    block_window: full.block_window,
    totals: full.totals,
    risk_distribution: full.risk_distribution,
    top: {
      malicious_spenders: full.spenders
        .filter((s) => isFlaggedBand(s.risk_band))
        .slice(0, SUMMARY_TOP)
        .map((s) => ({ address: s.address, risk_score: s.risk_score, risk_band: s.risk_band, distinct_victims: s.distinct_victims, top_flag: s.top_flag })),
      risky_tokens: full.tokens
        .filter((t) => t.risk_score >= RISKY_TOKEN_SCORE)
        .slice(0, SUMMARY_TOP)
        .map((t) => ({ address: t.address, risk_score: t.risk_score, risk_band: t.risk_band, approvals: t.approvals, flagged_share: t.flagged_share, top_flag: t.top_flag })),
      bleeding_bots: full.bleeding_bots.slice(0, SUMMARY_TOP).map((b) => ({ addr: b.addr, gas_burned_usd: b.gas_burned_usd, dominant_reason: b.dominant_reason })),
    },
    note: full.note,
    premium_endpoint: full.premium_endpoint,
    present: full.present,
    source_freshness_s: full.source_freshness_s,
  };
}

/** The paid feed refuses missing or stale data (503 source_stale) before settlement. */
export function assertFresh(full: CounterMev): void {
  if (!full.present || full.freshness.stale) {
    throw unavailable("source_stale", "The approval scan has no fresh data.", { source: "approval_scan", age_s: full.freshness.age_s });
  }
}
