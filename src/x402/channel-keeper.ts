/**
 * The channel keeper: the one writer of the batch-settlement channels' money
 * on chain, run by the workers (docs/batch-settlement.md). One process at a
 * time holds its lease (job_leases); each run:
 *
 *   1. reads the escrow's events since the last run: a payer's withdrawal,
 *      a deposit or a claim the service did not make; the channels they name
 *      are synced from the chain, and a ledger row whose process died before
 *      it noted its transaction gets that transaction from its event;
 *   2. reconciles ledger rows left `sending` (a process died, or an outcome
 *      was not known) from their transactions' receipts;
 *   3. claims: at once for every channel whose payer started a withdrawal
 *      (everything charged is claimed long before the withdraw delay ends:
 *      the delay is hours, a run is seconds), and every BATCH_CLAIM_SECONDS
 *      for channels with at least BATCH_CLAIM_MIN_ATOMIC unclaimed or idle
 *      that long; all in batches across channels (one transaction, ~24k gas
 *      a channel). Rows the chain already shows claimed are dropped before
 *      the batch is signed, and no batch is sent that would change nothing;
 *   4. settles what is claimed to PAY_TO every BATCH_SETTLE_SECONDS;
 *   5. refunds the unspent deposit of channels idle BATCH_REFUND_IDLE_SECONDS
 *      (claiming their last charges in the same transaction).
 *
 * Every transaction is written to the ledger `sending` before it is handed to
 * the facilitator and finished with its hash and outcome after, so a keeper
 * killed between the two leaves a row that the next run (of any process)
 * settles from the chain, and a claim sent twice changes nothing the second
 * time. Claims and refunds are signed with the receiver-authorizer key; the
 * facilitator only pays the gas.
 */
import type { Logger } from "pino";
import type { LocalAccount } from "viem";
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { BATCH_SETTLEMENT_ADDRESS, claimBatchTypes, refundTypes, type BatchSettlementVoucherClaim } from "@x402/evm";
import type { Clock } from "../core/clock.js";
import type { Job } from "../core/jobs.js";
import type { Database } from "../db/types.js";
import { takeJobLease } from "../db/job-lease.js";
import type { UsdcAsset } from "./networks.js";
import { BATCH_SETTLEMENT_SCHEME, type ChannelTerms } from "./channel-terms.js";
import { NOTHING_TO_CLAIM } from "./batch-claims.js";
import type { EscrowChannelState, EscrowEvent, EscrowReader } from "./escrow-reader.js";
import * as store from "./channel-store.js";
import type { ChannelRow, DbChannelStorage, StoredChannel } from "./channel-store.js";

export const KEEPER_LEASE = "x402-channel-keeper";
/** How long the keeper's lease lasts; renewed by every run. */
const LEASE_SECONDS = 120;
/** Channels in one claim batch (one transaction): ~24k gas each, well inside a block. */
export const MAX_CLAIMS_PER_BATCH = 50;
/** Refunds per run: each is a transaction of its own. */
const MAX_REFUNDS_PER_RUN = 10;
/** Blocks of escrow events read per query (providers cap getLogs ranges). */
const EVENT_BLOCKS_PER_QUERY = 2_000n;
/** A `sending` row whose transaction the chain still does not show after this long is marked failed. */
const GIVE_UP_AFTER_SECONDS = 3_600;

export interface KeeperSettings {
  claimSeconds: number;
  claimMinAtomic: bigint;
  settleSeconds: number;
  refundIdleSeconds: number;
}

export interface KeeperDeps {
  db: Database;
  storage: DbChannelStorage;
  facilitator: FacilitatorClient;
  reader: EscrowReader;
  usdc: UsdcAsset;
  payTo: `0x${string}`;
  channel: ChannelTerms;
  /** The receiver-authorizer (its key signs claim batches and refunds). */
  authorizer: LocalAccount;
  clock: Clock;
  log: Logger;
  settings: KeeperSettings;
  /** This process's name on the lease. */
  owner: string;
  /** Told of each transaction's outcome (the metrics). */
  onOp?: (kind: "deposit" | "claim" | "settle" | "refund" | "withdrawal", outcome: "confirmed" | "failed" | "skipped") => void;
}

/** When each periodic part last ran (kept by the job instance). */
export interface KeeperClock {
  lastClaimMs: number;
  lastSettleMs: number;
}

export interface KeeperReport {
  leased: boolean;
  reconciled: number;
  withdrawals: number;
  claimed: number;
  settled: bigint;
  refunded: number;
}

const nowDate = (deps: KeeperDeps) => new Date(deps.clock.now());

/** The requirements the keeper's facilitator calls name: the scheme, the network, the token and the receiver. */
function requirements(deps: KeeperDeps): PaymentRequirements {
  return {
    scheme: BATCH_SETTLEMENT_SCHEME,
    network: deps.usdc.network,
    asset: deps.usdc.asset,
    amount: "0",
    payTo: deps.payTo,
    maxTimeoutSeconds: 0,
    extra: { name: deps.usdc.name, version: deps.usdc.version, receiverAuthorizer: deps.channel.receiverAuthorizer, withdrawDelay: deps.channel.withdrawDelaySeconds },
  };
}

/** Sends one keeper payload through the facilitator; a thrown error becomes an unknown outcome. */
async function send(deps: KeeperDeps, payload: Record<string, unknown>): Promise<SettleResponse> {
  const req = requirements(deps);
  const envelope: PaymentPayload = { x402Version: 2, accepted: req, payload };
  try {
    return await deps.facilitator.settle(envelope, req);
  } catch (e) {
    return { success: false, errorReason: "settlement_error", errorMessage: (e as Error).message, transaction: "", network: req.network };
  }
}

/** An outcome is unknown when the transaction may still land. */
const unknownOutcome = (r: SettleResponse) => r.errorReason === "settlement_error" || r.errorReason === "settlement_pending";

const domainOf = (deps: KeeperDeps) => ({ name: "x402 Batch Settlement", version: "1", chainId: deps.usdc.chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS as `0x${string}` });

async function signClaims(deps: KeeperDeps, claims: BatchSettlementVoucherClaim[], ids: string[]): Promise<`0x${string}`> {
  return deps.authorizer.signTypedData({
    domain: domainOf(deps),
    types: claimBatchTypes,
    primaryType: "ClaimBatch",
    message: { claims: claims.map((c, i) => ({ channelId: ids[i] as `0x${string}`, maxClaimableAmount: BigInt(c.voucher.maxClaimableAmount), totalClaimed: BigInt(c.totalClaimed) })) },
  });
}

// ---------------------------------------------------------------------------
// Syncing channels from the chain.

/** Takes the chain's state into a channel's record; returns the record as written. */
async function takeChainState(deps: KeeperDeps, channelId: string, s: EscrowChannelState): Promise<StoredChannel | undefined> {
  const nowMs = deps.clock.now();
  const result = await deps.storage.updateChannel(channelId, (current) =>
    current
      ? {
          ...current,
          balance: s.balance.toString(),
          totalClaimed: (s.totalClaimed > BigInt(current.totalClaimed) ? s.totalClaimed : BigInt(current.totalClaimed)).toString(),
          withdrawRequestedAt: s.withdrawRequestedAt,
          refundNonce: Number(s.refundNonce),
          onchainSyncedAt: nowMs,
        }
      : current,
  );
  return result.channel;
}

/** Syncs channels from the chain; a balance lower than recorded without our refund is the payer's withdrawal. */
export async function syncChannels(deps: KeeperDeps, rows: readonly ChannelRow[]): Promise<Map<string, EscrowChannelState>> {
  const states = await deps.reader.channelStates(rows.map((r) => r.channel_id as `0x${string}`));
  const out = new Map<string, EscrowChannelState>();
  for (const [i, row] of rows.entries()) {
    const s = states[i]!;
    out.set(row.channel_id, s);
    const charged = BigInt(row.charged_atomic);
    await takeChainState(deps, row.channel_id, s);
    await store.setForfeited(deps.db, row.channel_id, s.balance < charged && s.totalClaimed < charged ? charged - (s.balance > s.totalClaimed ? s.balance : s.totalClaimed) : 0n);
  }
  return out;
}

// ---------------------------------------------------------------------------
// 1. The escrow's events.

/**
 * Reads the escrow's events since the cursor; syncs the channels of ours they name and records payers'
 * withdrawals. With no cursor, or a chain whose block at the cursor is not the one read (a reorg, or a
 * devnet started afresh), every open channel is synced from the chain's state instead and events are
 * followed from the head.
 */
export async function scanEscrowEvents(deps: KeeperDeps): Promise<number> {
  const network = deps.usdc.network;
  const head = await deps.reader.blockNumber();
  const cursor = await store.escrowCursor(deps.db, network);
  const sameChain = cursor !== undefined && cursor.block <= head && (await deps.reader.blockHash(cursor.block)) === cursor.hash;
  if (!sameChain) {
    if (cursor) deps.log.warn({ network, cursor: cursor.block.toString(), head: head.toString() }, "the payment chain is not the one the keeper read last (a reorg or a new chain): every channel is read again");
    await syncChannels(deps, await store.openChannelRows(deps.db, network));
    await store.setEscrowCursor(deps.db, network, head, (await deps.reader.blockHash(head)) ?? "");
    return 0;
  }
  let withdrawals = 0;
  for (let from = cursor.block + 1n; from <= head; from += EVENT_BLOCKS_PER_QUERY) {
    const to = from + EVENT_BLOCKS_PER_QUERY - 1n < head ? from + EVENT_BLOCKS_PER_QUERY - 1n : head;
    const events = await deps.reader.events(from, to);
    const ours = await store.channelsByIds(deps.db, [...new Set(events.map((e) => e.channelId))]);
    if (ours.length > 0) await syncChannels(deps, ours);
    const known = new Set(ours.map((r) => r.channel_id));
    const mine = events.filter((x) => known.has(x.channelId));
    await attachTransactions(deps, mine);
    for (const e of mine) withdrawals += await recordEscrowEvent(deps, e);
    await store.setEscrowCursor(deps.db, network, to, (await deps.reader.blockHash(to)) ?? "");
  }
  return withdrawals;
}

/** The ledger kind an escrow event of ours may be the transaction of (a row its process left without a hash). */
const EVENT_OPS = { Deposited: "deposit", Claimed: "claim", Refunded: "refund" } as const;
const EVENT_OF_KIND = { deposit: "Deposited", claim: "Claimed", refund: "Refunded" } as const;

/** What a transaction did to our channels, as one row's effect reads: "channel:amount" (a claim: the new total). */
const effectsOf = (events: readonly EscrowEvent[]) => events.map((e) => `${e.channelId}:${e.name === "Claimed" ? e.total : e.amount}`).sort();
/** A row's intended effect in the same terms (a refund's amount is capped on chain: only its channel counts). */
function intentOf(op: store.ChannelOpRow): string[] {
  if (op.kind === "claim") return ((op.entries as { channelId: string; totalClaimed: string }[] | null) ?? []).map((e) => `${e.channelId}:${e.totalClaimed}`).sort();
  return [`${op.channel_id}:${op.kind === "deposit" ? op.amount_atomic : "*"}`];
}
const matches = (intent: string[], effects: string[]) => intent.length === effects.length && intent.every((x, i) => (x.endsWith(":*") ? effects[i]!.startsWith(x.slice(0, -1)) : x === effects[i]));

/**
 * Gives the transactions of `events` (the escrow's, of our channels) to the ledger rows they are the transaction of:
 * the oldest `sending` row without a hash of the event's kind whose intended effect is exactly the transaction's (a
 * claim batch: the same channels brought to the same totals; a deposit: that amount into that channel; a refund: that
 * channel). Returns the rows given a transaction, by id.
 */
async function attachTransactions(deps: KeeperDeps, events: readonly EscrowEvent[]): Promise<Map<string, `0x${string}`>> {
  const attached = new Map<string, `0x${string}`>();
  const byTx = new Map<string, EscrowEvent[]>();
  for (const e of events.filter((x) => x.name in EVENT_OPS)) byTx.set(`${e.name}:${e.txHash}`, [...(byTx.get(`${e.name}:${e.txHash}`) ?? []), e]);
  for (const group of byTx.values()) {
    const { txHash, name } = group[0]!;
    if (await store.opOfTx(deps.db, txHash)) continue;
    const effects = effectsOf(group);
    const op = (await store.opsWithoutTx(deps.db, deps.usdc.network, EVENT_OPS[name as keyof typeof EVENT_OPS])).find((o) => !attached.has(o.id) && matches(intentOf(o), effects));
    if (!op) continue;
    await store.noteOpTx(deps.db, op.id, txHash);
    attached.set(op.id, txHash);
  }
  return attached;
}

async function recordEscrowEvent(deps: KeeperDeps, e: EscrowEvent): Promise<number> {
  if (e.name === "WithdrawInitiated") {
    deps.log.warn({ channel: e.channelId, amount: e.amount.toString(), tx: e.txHash }, "a payer started a withdrawal from a channel; its charges are claimed now");
    return 1;
  }
  if (e.name === "WithdrawFinalized") {
    await store.insertOp(deps.db, { kind: "withdrawal", status: "confirmed", network: deps.usdc.network, channelId: e.channelId, amount: e.amount, txHash: e.txHash });
    await store.addToTally(deps.db, e.channelId, "withdrawn_atomic", e.amount);
    deps.onOp?.("withdrawal", "confirmed");
  }
  return 0;
}

// ---------------------------------------------------------------------------
// 3. Claims.

/** The claim row of a channel's latest voucher, at what it charged (never more than the chain holds). */
function claimOf(row: ChannelRow, s: EscrowChannelState): BatchSettlementVoucherClaim | undefined {
  const charged = BigInt(row.charged_atomic);
  const total = charged < s.balance ? charged : s.balance;
  if (total <= s.totalClaimed || !row.signature) return undefined;
  return {
    voucher: {
      channel: {
        payer: row.payer as `0x${string}`,
        payerAuthorizer: row.payer_authorizer as `0x${string}`,
        receiver: row.receiver as `0x${string}`,
        receiverAuthorizer: row.receiver_authorizer as `0x${string}`,
        token: row.token as `0x${string}`,
        withdrawDelay: row.withdraw_delay,
        salt: row.salt as `0x${string}`,
      },
      maxClaimableAmount: String(row.signed_max_atomic),
    },
    signature: row.signature as `0x${string}`,
    totalClaimed: total.toString(),
  };
}

/** Which channels with unclaimed charges are claimed in this run. */
function dueForClaim(deps: KeeperDeps, row: ChannelRow, periodic: boolean): boolean {
  if (BigInt(row.withdraw_requested_at) > 0n) return true;
  if (!periodic) return false;
  const unclaimed = BigInt(row.charged_atomic) - BigInt(row.claimed_atomic);
  const idleMs = deps.clock.now() - (row.last_request_at?.getTime() ?? 0);
  return unclaimed >= deps.settings.claimMinAtomic || idleMs >= deps.settings.claimSeconds * 1000;
}

/** Claims the channels due, in batches; returns how many channels' claims landed. */
export async function claimDue(deps: KeeperDeps, periodic: boolean): Promise<number> {
  const rows = (await store.unclaimedChannels(deps.db, deps.usdc.network, 10_000)).filter((r) => dueForClaim(deps, r, periodic));
  let claimed = 0;
  for (let i = 0; i < rows.length; i += MAX_CLAIMS_PER_BATCH) claimed += await claimBatch(deps, rows.slice(i, i + MAX_CLAIMS_PER_BATCH));
  return claimed;
}

/** One claim transaction over `rows`, each at its latest voucher, less the rows the chain already shows claimed. */
async function claimBatch(deps: KeeperDeps, rows: ChannelRow[]): Promise<number> {
  const states = await syncChannels(deps, rows);
  const picked = rows.flatMap((row) => {
    const claim = claimOf(row, states.get(row.channel_id)!);
    return claim ? [{ row, claim, before: states.get(row.channel_id)!.totalClaimed }] : [];
  });
  if (picked.length === 0) return 0;
  const ids = picked.map((p) => p.row.channel_id);
  const entries = picked.map((p) => ({ channelId: p.row.channel_id, totalClaimed: p.claim.totalClaimed, claimed: (BigInt(p.claim.totalClaimed) - p.before).toString() }));
  const amount = picked.reduce((sum, p) => sum + BigInt(p.claim.totalClaimed) - p.before, 0n);
  const opId = await store.insertOp(deps.db, { kind: "claim", network: deps.usdc.network, amount, entries });
  const claims = picked.map((p) => p.claim);
  const result = await send(deps, { type: "claim", claims, claimAuthorizerSignature: await signClaims(deps, claims, ids) });
  if (!result.success) return claimFailed(deps, opId, result);
  await store.finishOp(deps.db, opId, { status: "confirmed", txHash: result.transaction });
  for (const p of picked) await raiseClaimed(deps, p.row.channel_id, BigInt(p.claim.totalClaimed));
  deps.onOp?.("claim", "confirmed");
  deps.log.info({ channels: picked.length, amount: amount.toString(), tx: result.transaction }, "claimed charged vouchers");
  return picked.length;
}

async function claimFailed(deps: KeeperDeps, opId: string, result: SettleResponse): Promise<number> {
  if (unknownOutcome(result)) {
    if (result.transaction) await store.noteOpTx(deps.db, opId, result.transaction);
    deps.log.warn({ reason: result.errorReason, tx: result.transaction }, "a claim's outcome is not known yet; the next run reconciles it");
    return 0;
  }
  const skipped = result.errorReason === NOTHING_TO_CLAIM;
  await store.finishOp(deps.db, opId, { status: "failed", error: result.errorReason ?? "claim_failed" });
  deps.onOp?.("claim", skipped ? "skipped" : "failed");
  if (!skipped) deps.log.error({ reason: result.errorReason, message: result.errorMessage }, "a claim batch failed");
  return 0;
}

/** The channel's record takes a claimed total the chain now shows. */
async function raiseClaimed(deps: KeeperDeps, channelId: string, total: bigint): Promise<void> {
  await deps.storage.updateChannel(channelId, (current) => (current && BigInt(current.totalClaimed) < total ? { ...current, totalClaimed: total.toString() } : current));
}

// ---------------------------------------------------------------------------
// 4. Settlement to the receiver.

/** Sweeps everything claimed to PAY_TO, when there is anything; returns the amount. */
export async function settleClaimed(deps: KeeperDeps): Promise<bigint> {
  const totals = await deps.reader.receiverTotals(deps.payTo, deps.usdc.asset);
  const due = totals.totalClaimed - totals.totalSettled;
  if (due <= 0n) return 0n;
  const opId = await store.insertOp(deps.db, { kind: "settle", network: deps.usdc.network, amount: due });
  const result = await send(deps, { type: "settle", receiver: deps.payTo, token: deps.usdc.asset });
  if (!result.success) {
    if (unknownOutcome(result)) {
      if (result.transaction) await store.noteOpTx(deps.db, opId, result.transaction);
    } else {
      await store.finishOp(deps.db, opId, { status: "failed", error: result.errorReason ?? "settle_failed" });
      deps.onOp?.("settle", "failed");
      deps.log.error({ reason: result.errorReason }, "settling claimed channel money failed");
    }
    return 0n;
  }
  const amount = result.amount && /^\d+$/.test(result.amount) ? BigInt(result.amount) : due;
  await store.finishOp(deps.db, opId, { status: "confirmed", txHash: result.transaction, amount });
  await store.markSettled(deps.db, deps.usdc.network, deps.payTo, deps.usdc.asset);
  deps.onOp?.("settle", "confirmed");
  deps.log.info({ amount: amount.toString(), tx: result.transaction }, "settled claimed channel money to the receiver");
  return amount;
}

// ---------------------------------------------------------------------------
// 5. Cooperative refunds of idle channels.

/** Refunds the unspent deposits of channels idle for BATCH_REFUND_IDLE_SECONDS; returns how many were refunded. */
export async function refundIdle(deps: KeeperDeps): Promise<number> {
  const idleSince = new Date(deps.clock.now() - deps.settings.refundIdleSeconds * 1000);
  const rows = await store.idleChannels(deps.db, deps.usdc.network, idleSince, MAX_REFUNDS_PER_RUN);
  let refunded = 0;
  for (const row of rows) refunded += (await refundChannel(deps, row)) ? 1 : 0;
  return refunded;
}

/** Refunds what is left of one channel after its charges (claiming those in the same transaction). */
export async function refundChannel(deps: KeeperDeps, row: ChannelRow): Promise<boolean> {
  const s = (await syncChannels(deps, [row])).get(row.channel_id)!;
  const current = await deps.storage.get(row.channel_id);
  if (!current || (current.pendingRequest && current.pendingRequest.expiresAt > deps.clock.now()) || s.withdrawRequestedAt > 0) return false;
  const charged = BigInt(current.chargedCumulativeAmount);
  const claim = claimOf(row, s);
  const remainder = s.balance - (charged > s.totalClaimed ? charged : s.totalClaimed);
  if (remainder <= 0n) return false;
  const payload = await refundPayload(deps, current, claim, remainder, s.refundNonce);
  const opId = await store.insertOp(deps.db, { kind: "refund", network: deps.usdc.network, channelId: row.channel_id, amount: remainder, entries: { refundNonce: s.refundNonce.toString() } });
  const result = await send(deps, payload);
  if (!result.success) {
    if (unknownOutcome(result)) {
      if (result.transaction) await store.noteOpTx(deps.db, opId, result.transaction);
    } else {
      await store.finishOp(deps.db, opId, { status: "failed", error: result.errorReason ?? "refund_failed" });
      deps.onOp?.("refund", "failed");
      deps.log.error({ channel: row.channel_id, reason: result.errorReason }, "a cooperative refund failed");
    }
    return false;
  }
  await refundLanded(deps, row, opId, result, claim);
  return true;
}

async function refundPayload(deps: KeeperDeps, ch: StoredChannel, claim: BatchSettlementVoucherClaim | undefined, amount: bigint, nonce: bigint) {
  const refundAuthorizerSignature = await deps.authorizer.signTypedData({
    domain: domainOf(deps),
    types: refundTypes,
    primaryType: "Refund",
    message: { channelId: ch.channelId as `0x${string}`, nonce, amount },
  });
  const claims = claim ? [claim] : [];
  return {
    type: "refund",
    channelConfig: ch.channelConfig,
    voucher: { channelId: ch.channelId, maxClaimableAmount: ch.signedMaxClaimable, signature: ch.signature || "0x" },
    amount: amount.toString(),
    refundNonce: nonce.toString(),
    claims,
    refundAuthorizerSignature,
    ...(claim ? { claimAuthorizerSignature: await signClaims(deps, claims, [ch.channelId]) } : {}),
  };
}

async function refundLanded(deps: KeeperDeps, row: ChannelRow, opId: string, result: SettleResponse, claim: BatchSettlementVoucherClaim | undefined): Promise<void> {
  const refunded = result.amount && /^\d+$/.test(result.amount) ? BigInt(result.amount) : 0n;
  await store.finishOp(deps.db, opId, { status: "confirmed", txHash: result.transaction, amount: refunded });
  await store.addToTally(deps.db, row.channel_id, "refunded_atomic", refunded);
  if (claim) {
    const claimedNow = BigInt(claim.totalClaimed) - BigInt(row.claimed_atomic);
    await store.insertOp(deps.db, {
      kind: "claim",
      status: "confirmed",
      network: deps.usdc.network,
      amount: claimedNow,
      entries: [{ channelId: row.channel_id, totalClaimed: claim.totalClaimed, claimed: claimedNow.toString() }],
      txHash: result.transaction,
    });
  }
  const [s] = await deps.reader.channelStates([row.channel_id as `0x${string}`]);
  if (s) await takeChainState(deps, row.channel_id, s);
  deps.onOp?.("refund", "confirmed");
  deps.log.info({ channel: row.channel_id, amount: refunded.toString(), tx: result.transaction }, "refunded an idle channel's unspent deposit");
}

// ---------------------------------------------------------------------------
// 2. Ledger rows left `sending`.

/**
 * Settles `sending` rows from the chain's word; returns how many were settled. A row without its transaction's
 * hash (its process died before the facilitator answered) gets it from the escrow's event of its kind on its
 * channels, looked for in the last EVENT_LOOKBACK_BLOCKS. A transaction that landed settles its row at once, however
 * young (finishing is once only, whoever does it); one not found settles it as failed only after GIVE_UP_AFTER_SECONDS.
 */
export async function reconcileOps(deps: KeeperDeps): Promise<number> {
  let done = 0;
  for (const op of await store.openOps(deps.db, deps.usdc.network)) {
    if (await reconcileOp(deps, op)) done++;
  }
  return done;
}

/** Blocks searched back for the event of a row that lost its transaction's hash (about half a day of Base). */
const EVENT_LOOKBACK_BLOCKS = 20_000n;

/** The channels a ledger row names. */
const channelsOfOp = (op: store.ChannelOpRow): string[] =>
  op.channel_id ? [op.channel_id] : Array.isArray(op.entries) ? (op.entries as { channelId: string }[]).map((e) => e.channelId) : [];

/** A row's transaction: its own, or the one the escrow's recent events of its kind on its channels prove it sent. */
async function transactionOf(deps: KeeperDeps, op: store.ChannelOpRow, channelIds: string[]): Promise<`0x${string}` | null> {
  if (op.tx_hash) return op.tx_hash as `0x${string}`;
  const name = EVENT_OF_KIND[op.kind as keyof typeof EVENT_OF_KIND];
  if (!name || channelIds.length === 0) return null;
  const head = await deps.reader.blockNumber();
  const events = await deps.reader.channelEvents(name, channelIds as `0x${string}`[], head > EVENT_LOOKBACK_BLOCKS ? head - EVENT_LOOKBACK_BLOCKS : 0n, head);
  // A claim batch's transaction may name channels this row did not claim: its every event is read from its receipt.
  const txs = [...new Set(events.map((e) => e.txHash))];
  const whole = name === "Claimed" ? (await Promise.all(txs.map((h) => deps.reader.transactionEvents(h)))).flat() : events;
  return (await attachTransactions(deps, whole)).get(op.id) ?? null;
}

async function reconcileOp(deps: KeeperDeps, op: store.ChannelOpRow): Promise<boolean> {
  const channelIds = channelsOfOp(op);
  const tx = await transactionOf(deps, op, channelIds);
  const status = tx ? await deps.reader.receiptStatus(tx) : null;
  const age = deps.clock.now() - op.created_at.getTime();
  if (status === null && age < GIVE_UP_AFTER_SECONDS * 1000) return false;
  const rows = await store.channelsByIds(deps.db, channelIds);
  if (rows.length > 0) await syncChannels(deps, rows);
  if (status === "success") {
    if (await store.finishOp(deps.db, op.id, { status: "confirmed" })) {
      if (op.kind === "deposit" && op.channel_id) await store.addToTally(deps.db, op.channel_id, "deposited_atomic", BigInt(op.amount_atomic ?? 0));
      if (op.kind === "settle") await store.markSettled(deps.db, deps.usdc.network, deps.payTo, deps.usdc.asset);
    }
  } else {
    await store.finishOp(deps.db, op.id, { status: "failed", error: status === "reverted" ? "transaction_reverted" : "not_found_on_chain" });
  }
  deps.log.info({ op: op.id, kind: op.kind, tx, outcome: status ?? "not_found" }, "reconciled a channel transaction left open");
  return true;
}

// ---------------------------------------------------------------------------
// The job.

export async function keepChannelsOnce(deps: KeeperDeps, times: KeeperClock): Promise<KeeperReport> {
  const report: KeeperReport = { leased: false, reconciled: 0, withdrawals: 0, claimed: 0, settled: 0n, refunded: 0 };
  if (!(await takeJobLease(deps.db, KEEPER_LEASE, deps.owner, nowDate(deps), LEASE_SECONDS))) return report;
  report.leased = true;
  const nowMs = deps.clock.now();
  // Events first: a row left without its transaction's hash gets it from the escrow's event, then is reconciled.
  report.withdrawals = await scanEscrowEvents(deps);
  report.reconciled = await reconcileOps(deps);
  const periodic = nowMs - times.lastClaimMs >= deps.settings.claimSeconds * 1000;
  report.claimed = await claimDue(deps, periodic);
  if (periodic) times.lastClaimMs = nowMs;
  if (nowMs - times.lastSettleMs >= deps.settings.settleSeconds * 1000) {
    report.settled = await settleClaimed(deps);
    times.lastSettleMs = nowMs;
  }
  report.refunded = await refundIdle(deps);
  return report;
}

/** The keeper as a background job: it runs often (payers' withdrawals are noticed within a run), its periodic parts on their own schedules. */
export function channelKeeperJob(deps: KeeperDeps): Job {
  const times: KeeperClock = { lastClaimMs: 0, lastSettleMs: 0 };
  return {
    name: "x402 channel keeper",
    intervalMs: Math.min(deps.settings.claimSeconds, 15) * 1000,
    leaseSeconds: LEASE_SECONDS,
    run: async () => {
      const r = await keepChannelsOnce(deps, times);
      if (r.withdrawals || r.claimed || r.settled || r.refunded || r.reconciled) deps.log.info({ ...r, settled: r.settled.toString() }, "x402 channel keeper");
      return { more: false };
    },
  };
}
