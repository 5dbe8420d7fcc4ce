/**
 * One paid call paid under x402's `batch-settlement` scheme: a voucher
 * against the payer's channel, or a deposit that opens or tops it up with
 * its first voucher. The paywall hands such payments here (paywall.ts);
 * the channel's record is the official ChannelStorage's (channel-store.ts).
 *
 * A voucher, in named steps:
 *   check (shape, terms, channel id, the signature as the escrow checks it;
 *   no database, no network) → judge (the channel is known, free, not being
 *   withdrawn, and the voucher is exactly what was charged so far plus this
 *   price, within the escrowed balance) → the work → charge (one conditional
 *   write: the cumulative amount, the voucher and the sealed answer).
 *
 * Work that writes to the database first reserves the channel (a
 * conditional write), then commits in the same transaction as its charge,
 * which names the reservation. Concurrent requests on one channel
 * serialize: the reserving write succeeds for one of them (a
 * compare-and-swap on the row's version, atomic across processes); the
 * others find a live reservation and are refused with `channel_busy`,
 * charging nothing. A reservation ends with its charge, its release (the
 * work failed), or its expiry (the process died): it lasts
 * BATCH_RESERVATION_SECONDS (the longest a paid call's work may take) for a
 * voucher, and for a deposit as long again as its transaction's receipt may
 * be awaited. Read-only work (a Penny Oracle question) takes no
 * reservation: it is judged on this process's copy of the record, done,
 * then charged by one compare-and-swap that judges the record again; of
 * concurrent calls on a channel one is charged, the others are refused as
 * above (their work was done for nothing). One statement a call.
 *
 * Which way a crash errs: never a double charge (the cumulative amount moves
 * only by the compare-and-swap, once per voucher), and toward the payer.
 * Work that writes commits with its charge or not at all. Read-only work
 * interrupted between the work and the charge is not charged: the answer
 * was never sent either, the reservation expires, and the same voucher
 * presented again is served and charged once. A charge whose answer was
 * lost is answered again for the same voucher and request from the sealed
 * answer, without a second charge (docs/idempotency.md).
 *
 * A voucher that does not follow the charged amount (a replay, a client
 * whose state went stale) gets the corrective 402 of the scheme: the batch
 * requirement carries the channel's state and the latest voucher, which an
 * official client checks against its own key and the chain, adopts and
 * retries with. A voucher beyond the escrowed balance (the keeper refunded
 * the rest, or the payer withdrew) gets the same correction, so the client
 * reads the balance again and deposits.
 *
 * A deposit goes through the facilitator like an `exact` payment: verify,
 * the work, the deposit transaction (the facilitator pays its gas), then the
 * channel is charged in the work's transaction; a failed deposit rolls the
 * work back. Its ledger row is written before the transaction is sent, so a
 * process that dies before the answer leaves a row the keeper reconciles
 * from the chain.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Transaction } from "kysely";
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Channel } from "@x402/evm/batch-settlement/server";
import type { Clock } from "../core/clock.js";
import type { SecretBox } from "../core/secretbox.js";
import { upstreamFailed } from "../core/errors.js";
import type { DB } from "../db/schema.js";
import type { Database } from "../db/types.js";
import type { PaidCall, PaidOutcome, PaymentInfo } from "./paid-call.js";
import { BatchReasons, minDepositFor } from "./channel-terms.js";
import { batchTermsRefusal, parseBatchPayload, voucherSignatureCheck, type BatchPayload, type ChannelPayTerms } from "./channel-payload.js";
import { addToTally, finishOp, insertOp, noteOpTx, type ChannelAnswer, type DbChannelStorage, type StoredChannel } from "./channel-store.js";
import { requestHash } from "./exact-payload.js";


export interface ChannelPayDeps {
  db: Database;
  facilitator: FacilitatorClient;
  clock: Clock;
  log: Logger;
  secretBox: SecretBox | null;
  storage: DbChannelStorage;
  terms: ChannelPayTerms;
  network: string;
  /** How long a voucher's reservation holds its channel; a deposit's holds it this long plus its receipt wait. */
  reservation: { voucherSeconds: number; depositSeconds: number };
}

/** What the paywall hands over with a batch payment. */
export interface ChannelCall<T> {
  call: PaidCall<T>;
  /** The payment header, decoded (its scheme named batch-settlement). */
  decoded: PaymentPayload;
  /** This call's batch-settlement requirements. */
  req: PaymentRequirements;
  /** The 402 for a reason, with the channel's state when the client should correct its own. */
  refuse: (reason: string, correction?: Channel, settleResponse?: SettleResponse) => PaidOutcome<T>;
  /** The paid answer with PAYMENT-RESPONSE. */
  paid: (result: T, settleResponse: SettleResponse, replayed?: boolean) => PaidOutcome<T>;
}

/** What a reservation found (the updateChannel callbacks report through it). */
type Reservation =
  | { kind: "reserved"; channel: StoredChannel }
  | { kind: "missing" | "busy" | "withdrawing" }
  | { kind: "stale" | "short"; channel: StoredChannel }
  | { kind: "replay"; channel: StoredChannel };

/** The reservation's work failed after it was made: the charge must not happen. */
class ReservationLost extends Error {
  constructor() {
    super("the channel's reservation was lost before the charge");
  }
}

export async function runChannelCall<T>(deps: ChannelPayDeps, c: ChannelCall<T>): Promise<PaidOutcome<T>> {
  const p = parseBatchPayload(c.decoded);
  if (typeof p === "string") return c.refuse(p);
  const refusal = batchTermsRefusal(p, c.req, deps.terms);
  if (refusal) return c.refuse(refusal);
  if (p.kind === "refund") return c.refuse(BatchReasons.payloadType);
  const signature = voucherSignatureCheck(p, deps.terms.chainId);
  if (signature === "invalid") return c.refuse(BatchReasons.voucherSignature);
  if (p.kind === "deposit") return depositCall(deps, c, p);
  if (signature === "unchecked") {
    // A smart-wallet payer: only the chain can check its signature.
    const refused = await facilitatorVerify(deps, c, p);
    if (refused) return refused;
  }
  return voucherCall(deps, c, p);
}

/** The payment as the paid work sees it: the payer, the price, and a reference unique to this charge. */
const paymentOf = (p: BatchPayload, amount: bigint): PaymentInfo => ({
  payer: p.config.payer.toLowerCase(),
  amountAtomic: amount,
  nonce: `channel:${p.channelId}:${p.maxClaimable}`,
});

/** The channel's state as PAYMENT-RESPONSE and the corrective 402 carry it. */
function channelStateOf(ch: Channel, charged: bigint) {
  return {
    channelId: ch.channelId,
    balance: ch.balance,
    totalClaimed: ch.totalClaimed,
    withdrawRequestedAt: ch.withdrawRequestedAt,
    refundNonce: String(ch.refundNonce),
    chargedCumulativeAmount: charged.toString(),
  };
}

/** What a voucher-paid answer says of the payment: nothing settled on chain, this much charged. */
function voucherResponse(deps: ChannelPayDeps, p: BatchPayload, ch: Channel, price: bigint): SettleResponse {
  return {
    success: true,
    transaction: "",
    network: deps.network as SettleResponse["network"],
    payer: p.config.payer.toLowerCase(),
    amount: "",
    extra: { chargedAmount: price.toString(), channelState: channelStateOf(ch, p.maxClaimable) },
  };
}

// ---------------------------------------------------------------------------
// A voucher.

/**
 * What a channel's record says of a voucher for a call of `price`: it may be charged ("ok"), or why not. A pure
 * function of the record, as the official ChannelStorage's callbacks are.
 */
function judge(current: StoredChannel | undefined, p: BatchPayload, price: bigint, nowMs: number): Reservation {
  if (!current) return { kind: "missing" };
  if (current.pendingRequest && current.pendingRequest.expiresAt > nowMs) return { kind: "busy" };
  if (current.withdrawRequestedAt > 0) return { kind: "withdrawing" };
  const charged = BigInt(current.chargedCumulativeAmount);
  if (p.maxClaimable === charged && p.signature.toLowerCase() === current.signature.toLowerCase()) return { kind: "replay", channel: current };
  if (p.maxClaimable !== charged + price) return { kind: "stale", channel: current };
  if (p.maxClaimable > BigInt(current.balance)) return { kind: "short", channel: current };
  return { kind: "reserved", channel: current };
}

/** The reservation a voucher asks for, when the record says it may be charged. */
function reserveFor(p: BatchPayload, price: bigint, pendingId: string, nowMs: number, seconds: number, report: (r: Reservation) => void) {
  return (current: StoredChannel | undefined): StoredChannel | undefined => {
    const verdict = judge(current, p, price, nowMs);
    if (verdict.kind !== "reserved") return void report(verdict), current;
    const next: StoredChannel = { ...current!, pendingRequest: { pendingId, signedMaxClaimable: p.maxClaimable.toString(), expiresAt: nowMs + seconds * 1000 } };
    report({ kind: "reserved", channel: next });
    return next;
  };
}

async function reserve(deps: ChannelPayDeps, p: BatchPayload, price: bigint, pendingId: string): Promise<Reservation> {
  let found: Reservation = { kind: "missing" };
  await deps.storage.updateChannel(p.channelId, reserveFor(p, price, pendingId, deps.clock.now(), deps.reservation.voucherSeconds, (r) => (found = r)));
  return found;
}

/** A voucher the record refuses: the answer for each reason. */
function refused<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload, r: Exclude<Reservation, { kind: "reserved" }>): Promise<PaidOutcome<T>> | PaidOutcome<T> {
  switch (r.kind) {
    case "missing":
      return adoptChannel(deps, c, p);
    case "busy":
      return c.refuse(BatchReasons.channelBusy);
    case "withdrawing":
      return c.refuse(BatchReasons.channelWithdrawing);
    case "replay":
      return replayed(deps, c, p, r.channel);
    case "stale":
    case "short":
      return c.refuse(BatchReasons.cumulativeMismatch, r.channel);
  }
}

async function voucherCall<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload): Promise<PaidOutcome<T>> {
  if (c.call.readOnly && !c.call.settleBeforeWork) return readOnlyVoucherCall(deps, c, p);
  const pendingId = randomUUID();
  const r = await reserve(deps, p, c.call.amount, pendingId);
  return r.kind === "reserved" ? workAndCharge(deps, c, p, r.channel, pendingId) : refused(deps, c, p, r);
}

/**
 * A voucher for work that writes nothing: no reservation, the work first, then one conditional write that
 * charges the channel only if its record still says so (compare-and-swap on the row's version): one statement a
 * call when this process wrote the channel last. Concurrent calls on the channel serialize on that write; a
 * loser's work was done for nothing and it is refused as a reserved call would be (busy, or the correction).
 * The record is first read from this process's copy; a refusal it suggests is checked against a fresh read.
 */
async function readOnlyVoucherCall<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload): Promise<PaidOutcome<T>> {
  const price = c.call.amount;
  const seen = await deps.storage.peek(p.channelId);
  let verdict = judge(seen.channel, p, price, deps.clock.now());
  if (verdict.kind !== "reserved" && seen.kept) verdict = judge(await deps.storage.get(p.channelId), p, price, deps.clock.now());
  if (verdict.kind !== "reserved") return refused(deps, c, p, verdict);
  const result = await c.call.work(deps.db, paymentOf(p, price));
  const answer = sealAnswer(deps, c, p, result);
  const nowMs = deps.clock.now();
  const outcome: { verdict: Reservation; charged?: StoredChannel } = { verdict };
  // The callback may run more than once (a lost race reruns it): each run says afresh what it decided.
  await deps.storage.updateChannel(p.channelId, (current) => {
    outcome.charged = undefined;
    outcome.verdict = judge(current, p, price, nowMs);
    if (outcome.verdict.kind !== "reserved") return current;
    outcome.charged = { ...current!, ...chargedFields(p, nowMs, answer) };
    return outcome.charged;
  });
  const final = outcome.verdict;
  if (outcome.charged && final.kind === "reserved") return c.paid(result, voucherResponse(deps, p, outcome.charged, price));
  deps.log.info({ route: c.call.route, channel: p.channelId, why: final.kind }, "a voucher's channel changed while its work ran; nothing was charged");
  return final.kind === "reserved" ? c.refuse(BatchReasons.channelBusy) : refused(deps, c, p, final);
}

/** What a charge writes on the record: the voucher is now what was charged. */
const chargedFields = (p: BatchPayload, nowMs: number, answer: ChannelAnswer | null): Partial<StoredChannel> => ({
  chargedCumulativeAmount: p.maxClaimable.toString(),
  signedMaxClaimable: p.maxClaimable.toString(),
  signature: p.signature,
  lastRequestTimestamp: nowMs,
  pendingRequest: undefined,
  answer,
});

/** The latest voucher presented again: its stored answer for the same request, else the correction. */
function replayed<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload, ch: StoredChannel): PaidOutcome<T> {
  const hash = requestHash(c.call.route, c.call.input);
  if (ch.answer && ch.answer.requestHash === hash && deps.secretBox && c.call.codec) {
    const text = deps.secretBox.open(ch.answer.sealed, answerContext(p));
    deps.log.info({ route: c.call.route, channel: p.channelId }, "voucher presented again: the stored answer is returned");
    return c.paid(c.call.codec.decode(text), voucherResponse(deps, p, ch, c.call.amount), true);
  }
  return c.refuse(BatchReasons.cumulativeMismatch, ch);
}

const answerContext = (p: BatchPayload) => `channel-answer:${p.channelId}:${p.maxClaimable}`;

/** The answer sealed for a retry of this voucher, or nothing (no master key, no codec, a streamed answer). */
function sealAnswer<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload, result: T): ChannelAnswer | null {
  if (!deps.secretBox || !c.call.codec) return null;
  const text = c.call.codec.encode(result);
  if (text === undefined) return null;
  return { requestHash: requestHash(c.call.route, c.call.input), status: c.call.successStatus ?? 200, sealed: deps.secretBox.seal(text, answerContext(p)) };
}

/** The charge of a reserved voucher: the channel moves to the voucher, the reservation ends. */
function chargeFor(p: BatchPayload, pendingId: string, nowMs: number, answer: ChannelAnswer | null, report: (ch: StoredChannel | undefined) => void) {
  return (current: StoredChannel | undefined): StoredChannel | undefined => {
    // A rerun after a lost race says afresh whether it charged.
    report(undefined);
    if (!current || current.pendingRequest?.pendingId !== pendingId) return current;
    const next: StoredChannel = { ...current, ...chargedFields(p, nowMs, answer) };
    report(next);
    return next;
  };
}

/** Ends a reservation that will not be charged (the work failed), if it is still this request's. */
async function release(deps: ChannelPayDeps, channelId: string, pendingId: string): Promise<void> {
  try {
    await deps.storage.updateChannel(channelId, (current) => (current?.pendingRequest?.pendingId === pendingId ? { ...current, pendingRequest: undefined } : current));
  } catch (e) {
    // The reservation then simply expires.
    deps.log.warn({ channel: channelId, err: (e as Error).message }, "releasing a channel reservation failed");
  }
}

/** The work, then the charge; in one transaction when the work writes. */
async function workAndCharge<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload, reserved: StoredChannel, pendingId: string): Promise<PaidOutcome<T>> {
  const { call } = c;
  const payment = paymentOf(p, call.amount);
  let charged: StoredChannel | undefined;
  const charge = async (storage: DbChannelStorage, result: T) => {
    await storage.updateChannel(p.channelId, chargeFor(p, pendingId, deps.clock.now(), sealAnswer(deps, c, p, result), (ch) => (charged = ch)));
    if (!charged) throw new ReservationLost();
  };
  try {
    let result: T;
    if (call.readOnly && !call.settleBeforeWork) {
      result = await call.work(deps.db, payment);
      await charge(deps.storage, result);
    } else {
      result = await deps.db.transaction().execute(async (trx) => {
        const out = await call.work(trx, payment);
        await charge(deps.storage.on(trx), out);
        return out;
      });
    }
    return c.paid(result, voucherResponse(deps, p, charged ?? reserved, call.amount));
  } catch (e) {
    if (!charged) await release(deps, p.channelId, pendingId);
    if (e instanceof ReservationLost) {
      deps.log.warn({ route: call.route, channel: p.channelId }, "a voucher's reservation expired before its charge; nothing was charged");
      return c.refuse(BatchReasons.channelBusy);
    }
    throw e;
  }
}

/**
 * A voucher for a channel this service has no record of (its database was restored, or the channel
 * was opened with another instance): the facilitator reads the channel on chain; a channel there is
 * adopted with what the chain shows claimed as its charged amount (whatever was charged beyond that
 * and not claimed is forfeited, as the scheme says), and the voucher is checked against that.
 */
async function adoptChannel<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload): Promise<PaidOutcome<T>> {
  const verified = await verifyWithFacilitator(deps, c, p);
  if (!verified.isValid) return c.refuse(verified.invalidReason ?? BatchReasons.channelNotFound);
  const state = chainStateOf(verified.extra);
  const nowMs = deps.clock.now();
  await deps.storage.updateChannel(p.channelId, (current) =>
    current ?? {
      channelId: p.channelId,
      channelConfig: normalizedConfig(p),
      chargedCumulativeAmount: state.totalClaimed,
      signedMaxClaimable: state.totalClaimed,
      signature: "",
      ...state,
      onchainSyncedAt: nowMs,
      lastRequestTimestamp: 0,
      answer: null,
    },
  );
  deps.log.info({ channel: p.channelId, payer: p.config.payer }, "adopted a channel found on chain that this service had no record of");
  const pendingId = randomUUID();
  const r = await reserve(deps, p, c.call.amount, pendingId);
  if (r.kind === "reserved") return workAndCharge(deps, c, p, r.channel, pendingId);
  if (r.kind === "busy") return c.refuse(BatchReasons.channelBusy);
  if (r.kind === "withdrawing") return c.refuse(BatchReasons.channelWithdrawing);
  return c.refuse(BatchReasons.cumulativeMismatch, "channel" in r ? r.channel : undefined);
}

/** The channel's configuration as stored (checksummed addresses, as the official records keep them). */
function normalizedConfig(p: BatchPayload): Channel["channelConfig"] {
  return { ...p.config, salt: p.config.salt as `0x${string}` } as Channel["channelConfig"];
}

/** The chain's state of a channel from a facilitator's verify or settle answer (extra, or extra.channelState). */
function chainStateOf(extra: Record<string, unknown> | undefined): Pick<Channel, "balance" | "totalClaimed" | "withdrawRequestedAt" | "refundNonce"> {
  const src = (extra?.channelState as Record<string, unknown> | undefined) ?? extra ?? {};
  const str = (v: unknown) => (typeof v === "string" && /^\d+$/.test(v) ? v : typeof v === "number" ? String(v) : "0");
  return {
    balance: str(src.balance),
    totalClaimed: str(src.totalClaimed),
    withdrawRequestedAt: Number(str(src.withdrawRequestedAt)),
    refundNonce: Number(str(src.refundNonce)),
  };
}

async function verifyWithFacilitator<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload) {
  try {
    return await deps.facilitator.verify(p.decoded, c.req);
  } catch (e) {
    deps.log.warn({ err: (e as Error).message }, "facilitator verify failed");
    throw upstreamFailed("facilitator_unavailable", "The payment facilitator could not be reached; nothing was charged.");
  }
}

/** The facilitator's verdict on a voucher this process cannot check itself; a refusal, or nothing. */
async function facilitatorVerify<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload): Promise<PaidOutcome<T> | undefined> {
  const verified = await verifyWithFacilitator(deps, c, p);
  return verified.isValid ? undefined : c.refuse(verified.invalidReason ?? BatchReasons.voucherSignature);
}

// ---------------------------------------------------------------------------
// A deposit with its first voucher.

/** The reservation a deposit asks for: a new channel's first record, or a known channel's next voucher. */
function reserveDeposit(p: BatchPayload, price: bigint, pendingId: string, nowMs: number, seconds: number, report: (r: Reservation) => void) {
  return (current: StoredChannel | undefined): StoredChannel | undefined => {
    const pendingRequest = { pendingId, signedMaxClaimable: p.maxClaimable.toString(), expiresAt: nowMs + seconds * 1000 };
    if (!current) {
      // No record: the voucher's own base is taken (the facilitator checks it against what the chain shows claimed).
      const base = p.maxClaimable >= price ? p.maxClaimable - price : 0n;
      const fresh: StoredChannel = {
        channelId: p.channelId,
        channelConfig: normalizedConfig(p),
        chargedCumulativeAmount: base.toString(),
        signedMaxClaimable: base.toString(),
        signature: "",
        balance: "0",
        totalClaimed: "0",
        withdrawRequestedAt: 0,
        refundNonce: 0,
        lastRequestTimestamp: 0,
        pendingRequest,
        answer: null,
      };
      report({ kind: "reserved", channel: fresh });
      return fresh;
    }
    if (current.pendingRequest && current.pendingRequest.expiresAt > nowMs) return void report({ kind: "busy" }), current;
    if (current.withdrawRequestedAt > 0) return void report({ kind: "withdrawing" }), current;
    if (p.maxClaimable !== BigInt(current.chargedCumulativeAmount) + price) return void report({ kind: "stale", channel: current }), current;
    const next: StoredChannel = { ...current, pendingRequest };
    report({ kind: "reserved", channel: next });
    return next;
  };
}

async function reserveForDeposit(deps: ChannelPayDeps, p: BatchPayload, price: bigint, pendingId: string): Promise<Reservation> {
  let found: Reservation = { kind: "missing" };
  await deps.storage.updateChannel(p.channelId, reserveDeposit(p, price, pendingId, deps.clock.now(), deps.reservation.depositSeconds, (r) => (found = r)));
  return found;
}

async function depositCall<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload): Promise<PaidOutcome<T>> {
  const price = c.call.amount;
  if ((p.deposit ?? 0n) < minDepositFor(price)) return c.refuse(BatchReasons.depositBelowMinimum);
  const pendingId = randomUUID();
  const r = await reserveForDeposit(deps, p, price, pendingId);
  if (r.kind === "busy") return c.refuse(BatchReasons.channelBusy);
  if (r.kind === "withdrawing") return c.refuse(BatchReasons.channelWithdrawing);
  if (r.kind !== "reserved") return c.refuse(BatchReasons.cumulativeMismatch, "channel" in r ? r.channel : undefined);
  let verified;
  try {
    verified = await verifyWithFacilitator(deps, c, p);
  } catch (e) {
    await release(deps, p.channelId, pendingId);
    throw e;
  }
  if (!verified.isValid) {
    await release(deps, p.channelId, pendingId);
    return c.refuse(verified.invalidReason ?? "payment_invalid");
  }
  return depositWorkAndSettle(deps, c, p, pendingId);
}

class DepositFailed extends Error {
  constructor(readonly response: SettleResponse) {
    super(response.errorReason ?? "deposit failed");
  }
}

/**
 * The work and the deposit transaction in the route's order, then the channel charged with its new
 * balance. Work that writes (or cannot be undone) runs in one transaction with the deposit and its
 * record, as an `exact` payment's does; read-only work holds no transaction across the deposit.
 */
async function depositWorkAndSettle<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload, pendingId: string): Promise<PaidOutcome<T>> {
  const { call } = c;
  const payment = paymentOf(p, call.amount);
  const opId = await insertOp(deps.db, { kind: "deposit", network: deps.network, channelId: p.channelId, amount: p.deposit });
  const progress: { settled?: SettleResponse } = {};
  const settle = async () => (progress.settled = await settleDeposit(deps, c, p));
  try {
    let result: T;
    if (call.readOnly && !call.settleBeforeWork) {
      result = await call.work(deps.db, payment);
      const settled = await settle();
      await deps.db.transaction().execute((trx) => recordDeposit(deps, trx, p, pendingId, opId, settled, result, c));
    } else {
      result = await deps.db.transaction().execute(async (trx) => {
        const out = call.settleBeforeWork ? (await settle(), await call.work(trx, payment)) : await call.work(trx, payment);
        await recordDeposit(deps, trx, p, pendingId, opId, progress.settled ?? (await settle()), out, c);
        return out;
      });
    }
    const settled = progress.settled!;
    const channelState = (settled.extra?.channelState as Record<string, unknown> | undefined) ?? {};
    return c.paid(result, {
      ...settled,
      extra: { ...settled.extra, chargedAmount: call.amount.toString(), channelState: { ...channelState, chargedCumulativeAmount: p.maxClaimable.toString() } },
    });
  } catch (e) {
    return depositFailure(deps, c, p, pendingId, opId, progress.settled, e);
  }
}

async function settleDeposit<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload): Promise<SettleResponse> {
  let response: SettleResponse;
  try {
    response = await deps.facilitator.settle(p.decoded, c.req);
  } catch (e) {
    response = { success: false, errorReason: "settlement_error", errorMessage: (e as Error).message, transaction: "", network: deps.network as SettleResponse["network"] };
  }
  if (!response.success) throw new DepositFailed(response);
  return response;
}

/** The deposit landed: the channel takes its new balance and this call's charge, the ledger its transaction. */
async function recordDeposit<T>(deps: ChannelPayDeps, trx: Transaction<DB>, p: BatchPayload, pendingId: string, opId: string, settled: SettleResponse, result: T, c: ChannelCall<T>): Promise<void> {
  const state = chainStateOf(settled.extra);
  const nowMs = deps.clock.now();
  const answer = sealAnswer(deps, c, p, result);
  let done = false;
  await deps.storage.on(trx).updateChannel(p.channelId, (current) => {
    done = false;
    if (!current || current.pendingRequest?.pendingId !== pendingId) return current;
    done = true;
    return {
      ...current,
      ...state,
      chargedCumulativeAmount: p.maxClaimable.toString(),
      signedMaxClaimable: p.maxClaimable.toString(),
      signature: p.signature,
      onchainSyncedAt: nowMs,
      lastRequestTimestamp: nowMs,
      pendingRequest: undefined,
      answer,
    };
  });
  // The money is in the escrow either way; a lost reservation only means this call is not charged. The tally
  // goes with the row's finishing (the keeper may have found the transaction on chain first).
  if (await finishOp(trx, opId, { status: "confirmed", txHash: settled.transaction })) await addToTally(trx, p.channelId, "deposited_atomic", p.deposit ?? 0n);
  if (!done) throw new ReservationLost();
}

/**
 * A deposit call that failed: a refused deposit charged nothing (the work rolled back); one whose outcome is
 * unknown stays `sending` for the keeper; work that failed after the deposit landed leaves the deposit recorded.
 */
async function depositFailure<T>(deps: ChannelPayDeps, c: ChannelCall<T>, p: BatchPayload, pendingId: string, opId: string, settled: SettleResponse | undefined, e: unknown): Promise<PaidOutcome<T>> {
  await release(deps, p.channelId, pendingId);
  if (e instanceof DepositFailed) {
    const reason = e.response.errorReason ?? "deposit_failed";
    const unknown = reason === "settlement_error" || reason === "settlement_pending";
    if (unknown) await finishOpSafely(deps, opId, { status: "sending", txHash: e.response.transaction || undefined });
    else await finishOpSafely(deps, opId, { status: "failed", error: reason });
    deps.log.warn({ reason, route: c.call.route, channel: p.channelId }, "deposit failed; the work was rolled back");
    return c.refuse(`settlement_failed: ${reason}`, undefined, e.response);
  }
  if (settled) {
    // The deposit is on chain but the work's transaction did not commit: the keeper syncs the balance.
    deps.log.error({ route: c.call.route, tx: settled.transaction, err: (e as Error).message }, "deposit landed but the work did not commit");
    await finishOpSafely(deps, opId, { status: "sending", txHash: settled.transaction });
    if (e instanceof ReservationLost) return c.refuse(BatchReasons.channelBusy);
    throw e;
  }
  await finishOpSafely(deps, opId, { status: "failed", error: (e as Error).message.slice(0, 200) });
  throw e;
}

/** Updates a ledger row after a failure without hiding the failure (an outage here is logged, the row stays for the keeper). */
async function finishOpSafely(deps: ChannelPayDeps, opId: string, outcome: { status: "sending" | "failed"; txHash?: string; error?: string }): Promise<void> {
  try {
    if (outcome.status === "sending") {
      if (outcome.txHash) await noteOpTx(deps.db, opId, outcome.txHash);
      return;
    }
    await finishOp(deps.db, opId, { status: "failed", ...(outcome.error ? { error: outcome.error } : {}) });
  } catch (err) {
    deps.log.warn({ op: opId, err: (err as Error).message }, "recording a deposit's outcome failed; the keeper reconciles it");
  }
}

