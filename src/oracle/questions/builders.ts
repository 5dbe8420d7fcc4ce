/**
 * The builder questions of the Penny Oracle, from the relay poller's data
 * (ingest/relay-store.ts): /v1/q/top-builder, /v1/q/builder-share,
 * /v1/q/builder-bid, /v1/q/block-value, /v1/q/proposer-payment, and each
 * relay's line in /v1/q/data-freshness (source "relay:<name>").
 *
 * Definitions (docs/ethereum.md, Builders): a window is the slots whose
 * start time (genesis + 12 s × slot) lies within the last 1h/24h/7d/30d; a
 * slot delivered by several relays counts once; shares are slots won / MEV-
 * Boost slots in the window; percentiles are nearest-rank (the value at rank
 * ceil(p/100 · n) of the n values sorted ascending). Wei amounts are decimal
 * strings, ETH amounts exact decimal strings; no float anywhere but the
 * percentage share (2 decimals, rounded half up).
 *
 * A builder is named by the reviewed key table (builder-keys.ts, then
 * BUILDER_PUBKEYS), else by the name learned from its blocks' extra-data
 * (ingest/builder-names.ts), else shown as its key prefix.
 *
 * Every answer carries `source_age_s` (age of the newest delivered slot) and
 * which relays answered their last poll. No relay configured → 503
 * relays_not_configured; every relay down, no data, or the newest data older
 * than the limit → 503 source_stale naming the relays.
 *
 * proposer-payment checks the relays' claim on chain (chains/ethereum/
 * proposer-payment.ts) through the Ethereum node: `last_tx` or
 * `balance_diff`, or `unavailable` with the reason when the node lacks the
 * block or its parent's state (no guess). No node configured: the claim
 * alone, `unavailable`. A node that cannot be reached: 503 source_stale
 * naming `eth_rpc` (the answer would otherwise be the unchecked claim).
 */
import { z } from "zod";
import { formatAtomic, type MoneyUnit } from "../../core/money.js";
import { badRequest, notFound, unavailable } from "../../core/errors.js";
import { UpstreamError } from "../../core/upstream.js";
import { BUILDER_NAME_MAX, BUILDER_QUERY_RE, builderName, matchBuilder } from "../../chains/ethereum/builders.js";
import { checkProposerPayment, type PaymentReader } from "../../chains/ethereum/proposer-payment.js";
import { slotTime } from "../../chains/ethereum/relays.js";
import { bidPercentile, countPayloads, deliveredValuePercentile, deliveryAt, latestDelivery, newestSlot, relayUp, seenBuilderKeys, slotsByBuilder, sourceStates, namesWithLearned, relaySourceCheck, type RelayReadDeps } from "../../ingest/index.js";
import type { QuestionDef } from "../question.js";
import type { SourceFreshness } from "./ethereum.js";

const ETH: MoneyUnit = { symbol: "ETH", decimals: 18, scale: 10n ** 18n };

export const WINDOWS = { "1h": 3_600, "24h": 86_400, "7d": 604_800, "30d": 2_592_000 } as const;
export type WindowName = keyof typeof WINDOWS;
export const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];
export const PERCENTILES = ["25", "50", "75", "90", "99"] as const;

const wei = z.string().regex(/^\d+$/).describe("wei, decimal integer string");
const eth = z.string().regex(/^\d+(\.\d{1,18})?$/).describe("ETH, exact decimal string");
const signedWei = z.string().regex(/^-?\d+$/).describe("wei, decimal integer string (negative when the recipient lost ether in the block)");
const signedEth = z.string().regex(/^-?\d+(\.\d{1,18})?$/).describe("ETH, exact decimal string");
const sourceFields = {
  source_age_s: z.number().int().describe("seconds since the start of the newest delivered slot stored"),
  relays_ok: z.array(z.string()).describe("relay sources whose last poll succeeded"),
  relays_down: z.array(z.string()).describe("relay sources whose last poll failed (their data may lag)"),
};

export const shareAnswer = z.object({
  window: z.enum(WINDOW_NAMES),
  total_slots: z.number().int().describe("MEV-Boost slots in the window, each counted once"),
  builder: z.string().nullable().describe("builder name (or key prefix when the key has no name); null when the window is empty"),
  matched: z.boolean().describe("whether the builder is known (by name or key)"),
  slots_won: z.number().int(),
  share_pct: z.number().describe("slots_won / total_slots in percent, 2 decimals"),
  ...sourceFields,
});

export const builderBidAnswer = z.object({
  window: z.enum(WINDOW_NAMES),
  total_slots: z.number().int(),
  builder: z.string(),
  matched: z.boolean(),
  pct: z.number().int().describe("percentile (nearest rank)"),
  samples: z.number().int().describe("slots in the window with a bid of the builder (its highest bid per slot, over every relay)"),
  value_wei: wei.nullable().describe("null when samples is 0"),
  value_eth: eth.nullable(),
  ...sourceFields,
});

export const blockValueAnswer = z.object({
  window: z.enum(WINDOW_NAMES),
  pct: z.number().int(),
  samples: z.number().int().describe("delivered MEV-Boost blocks in the window (one per slot)"),
  value_wei: wei.nullable().describe("the relay-claimed payment to the proposer at the percentile; null when samples is 0"),
  value_eth: eth.nullable(),
  ...sourceFields,
});

export const PAYMENT_METHODS = ["last_tx", "balance_diff", "unavailable"] as const;

export const proposerPaymentAnswer = z.object({
  slot: z.number().int(),
  slot_time: z.number().int().describe("slot start, Unix seconds"),
  block: z.number().int(),
  block_hash: z.string(),
  builder: z.string(),
  builder_pubkey: z.string(),
  proposer_fee_recipient: z.string(),
  payment_wei: signedWei.nullable().describe("what the block paid the fee recipient, read on chain; null when method is unavailable"),
  payment_eth: signedEth.nullable(),
  relay_claimed_wei: wei.describe("the relays' bid trace value"),
  relay_claimed_eth: eth,
  method: z
    .enum(PAYMENT_METHODS)
    .describe("last_tx: the block's last transaction to the fee recipient; balance_diff: its balance at N minus N−1, less withdrawals to it; unavailable: the node could not tell (see unavailable_reason)"),
  matches_claim: z.boolean().nullable().describe("payment_wei equals relay_claimed_wei; null when method is unavailable"),
  coinbase: z.string().nullable().describe("the block's fee recipient (miner) on chain; null when the node does not have the block"),
  coinbase_is_proposer: z.boolean().nullable().describe("the block's coinbase is the proposer's fee recipient (it earned the bid as fees)"),
  withdrawals_wei: wei.nullable().describe("balance_diff: beacon withdrawals to the fee recipient in the block, subtracted (they are not a payment)"),
  unavailable_reason: z.string().nullable(),
  relays: z.array(z.string()).describe("relays that delivered this block"),
  conflicting_blocks: z.boolean().describe("whether relays delivered different blocks for this slot"),
  ...sourceFields,
});

export interface BuilderQuestionDeps extends RelayReadDeps {
  /** The reviewed builder key → name table (builder-keys.ts plus BUILDER_PUBKEYS); each answer adds the learned names under it. */
  names: ReadonlyMap<string, string>;
  /** The Ethereum node the proposer payment is checked on (absent or unconfigured: the claim alone). */
  rpc?: PaymentReader & { readonly configured: boolean };
}

/** What the example answers (mainnet, 2026-01-01) share: four relays answering, the newest slot 8 s old. */
const EXAMPLE_SOURCE = { source_age_s: 8, relays_ok: ["relay:flashbots", "relay:ultrasound", "relay:bloxroute", "relay:aestus"], relays_down: [] };

const pctShare = (won: number, total: number) => (total === 0 ? 0 : Math.round((won * 10_000) / total) / 100);

const windowParam = { name: "window", required: false, description: "how far back the slots go (slot start time)", allowed: WINDOW_NAMES, default: "24h", format: "duration" } as const;
const pctParam = { name: "pct", required: false, description: "percentile, nearest rank", allowed: PERCENTILES, default: "50", format: "percent" } as const;
const builderParam = {
  name: "builder",
  required: true,
  description: `builder name (exact, else substring; case-insensitive) or a 0x prefix of its BLS key (4 to 96 hex digits). A name has letters, digits, spaces and . , - _ ( ) [ ] + / : @ & ' ! # * ~ …, at most ${BUILDER_NAME_MAX} characters`,
  format: "name or 0x-key prefix",
  pattern: { regex: BUILDER_QUERY_RE, message: `builder must be a builder name (letters, digits, spaces and . , - _ ( ) [ ] + / : @ & ' ! # * ~ …; at most ${BUILDER_NAME_MAX} characters) or a 0x key prefix (4 to 96 hex digits)` },
  maxLength: 98,
} as const;
const win = (w: string | undefined) => (w ?? "24h") as WindowName;

/** Reviewed names, then the names learned from blocks (read per answer: the learner may be another process). */
const keyNames = (deps: BuilderQuestionDeps) => namesWithLearned(deps.db, deps.names);

export function builderQuestions(deps: BuilderQuestionDeps): QuestionDef[] {
  return [topBuilderQuestion(deps), builderShareQuestion(deps), builderBidQuestion(deps), blockValueQuestion(deps), proposerPaymentQuestion(deps)];
}

/** top-builder (no builder given) and builder-share. */
async function answerShare(deps: BuilderQuestionDeps, p: { window?: string; builder?: string }) {
  const src = await relaySourceCheck(deps);
  const w = win(p.window);
  const since = src.nowS - WINDOWS[w];
  const [counts, names] = await Promise.all([slotsByBuilder(deps.db, since), keyNames(deps)]);
  const total = counts.reduce((a, c) => a + c.slots, 0);
  const { nowS: _n, ...fields } = src;
  if (p.builder === undefined) {
    // Sum per name: one builder runs several keys.
    const byName = new Map<string, number>();
    for (const c of counts) byName.set(builderName(names, c.builder), (byName.get(builderName(names, c.builder)) ?? 0) + c.slots);
    const top = [...byName.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    return shareAnswer.parse({ window: w, total_slots: total, builder: top?.[0] ?? null, matched: top !== undefined, slots_won: top?.[1] ?? 0, share_pct: pctShare(top?.[1] ?? 0, total), ...fields });
  }
  const m = matchBuilder(names, p.builder, counts.map((c) => c.builder));
  const won = m ? counts.filter((c) => m.keys.includes(c.builder)).reduce((a, c) => a + c.slots, 0) : 0;
  return shareAnswer.parse({ window: w, total_slots: total, builder: m?.name ?? p.builder, matched: m !== null, slots_won: won, share_pct: pctShare(won, total), ...fields });
}

/** /v1/q/top-builder: the builder with the most slots in the window. */
function topBuilderQuestion(deps: BuilderQuestionDeps): QuestionDef {
  return {
    path: "top-builder",
    summary: "The block builder that won the most MEV-Boost slots in the window, with its share",
    source: "relays",
    params: [windowParam],
    answer: shareAnswer,
    example: {
      params: { window: "24h" },
      answer: { window: "24h", total_slots: 7_153, builder: "Titan", matched: true, slots_won: 3_312, share_pct: 46.3, ...EXAMPLE_SOURCE } satisfies z.input<typeof shareAnswer>,
    },
    available: () => deps.relays.length > 0,
    answerQuestion: (p) => answerShare(deps, { window: p.window }),
  };
}

/** /v1/q/builder-share: one builder's share of the window's slots. */
function builderShareQuestion(deps: BuilderQuestionDeps): QuestionDef {
  return {
    path: "builder-share",
    summary: "A block builder's share of the MEV-Boost slots in the window",
    source: "relays",
    params: [builderParam, windowParam],
    answer: shareAnswer,
    example: {
      params: { builder: "beaverbuild", window: "24h" },
      answer: { window: "24h", total_slots: 7_153, builder: "beaverbuild", matched: true, slots_won: 1_517, share_pct: 21.21, ...EXAMPLE_SOURCE } satisfies z.input<typeof shareAnswer>,
    },
    available: () => deps.relays.length > 0,
    answerQuestion: (p) => answerShare(deps, { window: p.window, builder: p.builder ?? "" }),
  };
}

/** /v1/q/builder-bid: one builder's bid at a percentile. */
function builderBidQuestion(deps: BuilderQuestionDeps): QuestionDef {
  const { db } = deps;
  return {
    path: "builder-bid",
    summary: "A block builder's bid at a percentile over the window (its highest bid per slot, every relay)",
    source: "relays",
    params: [builderParam, pctParam, windowParam],
    answer: builderBidAnswer,
    example: {
      params: { builder: "Titan", pct: "90", window: "24h" },
      answer: {
        window: "24h",
        total_slots: 7_153,
        builder: "Titan",
        matched: true,
        pct: 90,
        samples: 6_890,
        value_wei: "61234567890123456",
        value_eth: "0.061234567890123456",
        ...EXAMPLE_SOURCE,
      } satisfies z.input<typeof builderBidAnswer>,
    },
    available: () => deps.relays.length > 0,
    answerQuestion: async (p) => {
      const { nowS, ...fields } = await relaySourceCheck(deps);
      const w = win(p.window);
      const pct = Number(p.pct ?? "50");
      const since = nowS - WINDOWS[w];
      const [counts, seen, names] = await Promise.all([slotsByBuilder(db, since), seenBuilderKeys(db, since), keyNames(deps)]);
      const m = matchBuilder(names, p.builder ?? "", seen);
      const r = await bidPercentile(db, m?.keys ?? [], since, pct);
      return builderBidAnswer.parse({
        window: w,
        total_slots: counts.reduce((a, c) => a + c.slots, 0),
        builder: m?.name ?? p.builder,
        matched: m !== null,
        pct,
        samples: r.samples,
        value_wei: r.value?.toString() ?? null,
        value_eth: r.value === null ? null : formatAtomic(r.value, ETH),
        ...fields,
      });
    },
  };
}

/** /v1/q/block-value: the delivered blocks' value at a percentile. */
function blockValueQuestion(deps: BuilderQuestionDeps): QuestionDef {
  const { db } = deps;
  return {
    path: "block-value",
    summary: "MEV-Boost block value (the relay-claimed payment to the proposer) at a percentile over the window",
    source: "relays",
    params: [pctParam, windowParam],
    answer: blockValueAnswer,
    example: {
      params: { pct: "50", window: "24h" },
      answer: { window: "24h", pct: 50, samples: 7_153, value_wei: "23456789012345678", value_eth: "0.023456789012345678", ...EXAMPLE_SOURCE } satisfies z.input<typeof blockValueAnswer>,
    },
    available: () => deps.relays.length > 0,
    answerQuestion: async (p) => {
      const { nowS, ...fields } = await relaySourceCheck(deps);
      const w = win(p.window);
      const pct = Number(p.pct ?? "50");
      const r = await deliveredValuePercentile(db, nowS - WINDOWS[w], pct);
      return blockValueAnswer.parse({
        window: w,
        pct,
        samples: r.samples,
        value_wei: r.value?.toString() ?? null,
        value_eth: r.value === null ? null : formatAtomic(r.value, ETH),
        ...fields,
      });
    },
  };
}

/** /v1/q/proposer-payment: a delivered block's payment, checked on chain against the relays' claim. */
function proposerPaymentQuestion(deps: BuilderQuestionDeps): QuestionDef {
  const { db } = deps;
  return {
    path: "proposer-payment",
    summary: "A MEV-Boost block's payment to its proposer, checked on chain against the relays' claim (the newest delivered slot, or a given one)",
    source: "relays",
    params: [{ name: "slot", required: false, description: "beacon slot of a delivered block (default: the newest delivered slot)", format: "integer slot number" }],
    answer: proposerPaymentAnswer,
    example: {
      answer: {
        slot: 13_366_798,
        slot_time: 1_767_225_599,
        block: 24_150_000,
        block_hash: "0x12ea18e3b2b87c62d6239b7a396d60663ddb9f299b046b095a24493b61d26e25",
        builder: "Titan",
        builder_pubkey: "0x8216e00e1dc8e15c362ce8083ad01feeb04688dd3a18998a37db1c3c8b641372398c504e1aca2cbddd87c4075482b42f",
        proposer_fee_recipient: "0xb76e14e5fc79d58558ae18cf470d552555514cf9",
        payment_wei: "23456789012345678",
        payment_eth: "0.023456789012345678",
        relay_claimed_wei: "23456789012345678",
        relay_claimed_eth: "0.023456789012345678",
        method: "last_tx",
        matches_claim: true,
        coinbase: "0x4838b106fce9647bdf1e7877bf73ce8b0bad5f97",
        coinbase_is_proposer: false,
        withdrawals_wei: null,
        unavailable_reason: null,
        relays: ["relay:ultrasound", "relay:flashbots"],
        conflicting_blocks: false,
        ...EXAMPLE_SOURCE,
      } satisfies z.input<typeof proposerPaymentAnswer>,
    },
    available: () => deps.relays.length > 0,
    check: (p) => {
      if (p.slot !== undefined && !/^\d{1,12}$/.test(p.slot)) {
        throw badRequest("invalid_input", "The question's parameters are invalid.", { issues: [{ path: "slot", message: "slot must be a beacon slot number (a non-negative integer)" }] });
      }
    },
    answerQuestion: async (p, signal) => {
      const { nowS: _n, ...fields } = await relaySourceCheck(deps);
      const d = p.slot === undefined ? await latestDelivery(db) : await deliveryAt(db, Number(p.slot));
      if (!d && p.slot !== undefined) throw notFound("slot_not_delivered", `No relay delivered a block for slot ${p.slot} (or it is older than the stored relay history).`);
      if (!d) throw unavailable("source_stale", "No relay data has been ingested yet.", { source: deps.relays.map((r) => r.id).join(","), age_s: null });
      const [check, names] = await Promise.all([onChain(deps, d, signal), keyNames(deps)]);
      const paid = check.method === "unavailable" ? null : check.payment;
      return proposerPaymentAnswer.parse({
        slot: d.slot,
        slot_time: slotTime(d.slot),
        block: d.blockNumber,
        block_hash: d.blockHash,
        builder: builderName(names, d.builder),
        builder_pubkey: d.builder,
        proposer_fee_recipient: d.feeRecipient,
        payment_wei: paid?.toString() ?? null,
        payment_eth: paid === null ? null : formatAtomic(paid, ETH),
        relay_claimed_wei: d.value.toString(),
        relay_claimed_eth: formatAtomic(d.value, ETH),
        method: check.method,
        matches_claim: paid === null ? null : paid === d.value,
        coinbase: check.coinbase,
        coinbase_is_proposer: check.coinbaseIsProposer,
        withdrawals_wei: check.method === "balance_diff" ? check.withdrawals.toString() : null,
        unavailable_reason: check.method === "unavailable" ? check.reason : null,
        relays: d.relays,
        conflicting_blocks: d.hashes > 1,
        ...fields,
      });
    },
  };
}

/** The on-chain check of a delivery; a node that cannot be reached is a 503 naming it. */
async function onChain(deps: BuilderQuestionDeps, d: { blockHash: string; feeRecipient: string }, signal?: AbortSignal) {
  const rpc = deps.rpc;
  if (!rpc || !rpc.configured) {
    return { method: "unavailable" as const, reason: "No Ethereum node is configured (ETH_RPC_URL): the relays' claim is not checked.", coinbase: null, coinbaseIsProposer: null };
  }
  try {
    return await checkProposerPayment(rpc, d, signal);
  } catch (e) {
    if (signal?.aborted || !(e instanceof UpstreamError)) throw e;
    throw unavailable("source_stale", `The Ethereum node could not be asked for the delivered block: ${e.message}`, { source: "eth_rpc", age_s: null });
  }
}

/** One relay's line of /v1/q/data-freshness. */
export type RelayFreshness = SourceFreshness;

/** The relays as data-freshness sources: their ids and each one's freshness. */
export function relayFreshnessSources(deps: BuilderQuestionDeps): { ids: string[]; freshness: (id: string) => Promise<RelayFreshness> } {
  return {
    ids: deps.relays.map((r) => r.id),
    freshness: async (id) => {
      const s = (await sourceStates(deps.db)).get(id);
      const newest = await newestSlot(deps.db, [id]);
      // A relay's age is the time since its last successful poll: a small relay may deliver no block for minutes while it is fine.
      const age = s?.lastOkMs == null ? null : Math.max(0, Math.floor((deps.clock.now() - s.lastOkMs) / 1000));
      const up = relayUp(s);
      return {
        source: id,
        configured: true,
        age_s: age,
        fresh: up && age !== null && age <= deps.maxAgeSeconds,
        max_age_s: deps.maxAgeSeconds,
        stored_blocks: await countPayloads(deps.db, id),
        node_reachable: up,
        newest_slot: newest,
        last_ok_ms: s?.lastOkMs ?? null,
        last_error: up ? null : (s?.lastError ?? null),
      };
    },
  };
}
