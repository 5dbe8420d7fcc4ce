/**
 * The x402 flow around one paid call, framework-free, in named steps:
 *   decode (the payload, our terms) → the payment identifier → reserve (the
 *   once-ever nonce row, the time window) → verify (facilitator) → the work
 *   inside a DB transaction → settle → store the answer → commit.
 * A failed settlement rolls the work back; a nonce is accepted once, ever, and
 * the pending row is the cross-process lock from verify until settle ends.
 * The checks on the payload are exact-payload.ts's; every statement on the
 * `payments` table is payment-store.ts's.
 *
 * Paid work is idempotent (docs/idempotency.md):
 * - the same signed authorisation presented again for the same request gets
 *   the stored answer of the work, never a second run;
 * - the payment-identifier extension: the same id (per payer) with the same
 *   request gets the stored answer and nothing is charged again; with another
 *   request it is a 409;
 * - an authorisation whose work never committed (the process died after the
 *   settlement) is resumed on the chain's evidence only: the token contract
 *   marks it used and its transaction paid us this price; the work is then
 *   done now, once. Nothing is ever re-settled.
 * Stored answers are sealed with the master key and deleted when the
 * authorisation could no longer be presented (reconcile.ts purges them).
 *
 * The probe (docs/discovery.md): a crawler that calls a paid route with no
 * payment and no input at all (POST without a body or with `{}`, GET without a
 * query string) gets this route's 402 and PAYMENT-REQUIRED, with the bazaar
 * extension describing the input, even when the route needs input: `probe`
 * builds it and nothing else happens (no precheck, no work, no payment row).
 * The router decides what is a probe: any input sent is validated first, so a
 * non-empty invalid body is a 400 before any 402, and with a payment header an
 * empty or invalid input is a 400 and nothing is charged.
 *
 * Irreversible work (`settleBeforeWork`: a transaction sent to builders, a
 * message that cannot be unsent) turns the order round: every refusal is the
 * route's precheck, before the 402 and again before verify; then verify →
 * settle → the work → store the answer, all under the payment row's lock. A
 * failed settlement does nothing; work that fails after settlement leaves the
 * row settled without work (resumed once on the chain's word, as above); a
 * retry never does the work again, stored answer or not.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Transaction } from "kysely";
import { encodeX402Header } from "./header-codec.js";
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Channel } from "@x402/evm/batch-settlement/server";
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension } from "@x402/extensions/payment-identifier";
import type { Database } from "../db/types.js";
import type { DB } from "../db/schema.js";
import type { Clock } from "../core/clock.js";
import type { SecretBox } from "../core/secretbox.js";
import { ServiceError, unavailable, upstreamFailed } from "../core/errors.js";
import type { AuthorizationReader } from "./authorization-state.js";
import type { PaidCall, PaidOutcome, PaymentInfo, PaymentTerms, Paywall, ProbeCall, ResourceDescription } from "./paid-call.js";
import { batchRequirements, withChannelState } from "./channel-terms.js";
import { isBatchPayment } from "./channel-payload.js";
import { channelStorage, newChannelCache, type DbChannelStorage } from "./channel-store.js";
import { runChannelCall, type ChannelPayDeps } from "./channel-pay.js";
import { isDatabaseOutage } from "../db/unavailable.js";
import * as store from "./payment-store.js";
import type { PaymentRow, SealedAnswer } from "./payment-store.js";
import {
  VALID_BEFORE_SLACK_SECONDS,
  decodePaymentHeader,
  parseExactPayload,
  nonceKeyOf,
  paymentIdentifierOf,
  requestHash,
  signedByPayer,
  termsRefusal,
  windowRefusal,
  type DecodedPayment,
} from "./exact-payload.js";

export type * from "./paid-call.js";

/** Largest payment header we decode (a real v2 payload is about 1 KB of base64). */
export const MAX_PAYMENT_HEADER_BYTES = 8192;

class SettlementFailed extends Error {
  constructor(readonly response: SettleResponse) {
    super(response.errorReason ?? "settlement failed");
  }
}

interface PaywallDeps {
  db: Database;
  facilitator: FacilitatorClient;
  terms: PaymentTerms | null;
  clock: Clock;
  log: Logger;
  /** Seals stored answers; without it nothing is stored and payment-identifier is not declared. */
  secretBox?: SecretBox | null;
  /** Reads authorisations on chain, to resume work whose settlement outlived its process. */
  chain?: AuthorizationReader | null;
  /** The channels' storage (tests share one); by default one over `db` with this paywall's cache. */
  channelStorage?: DbChannelStorage;
}

/** What the steps of a paid call share: the paywall's collaborators, fixed when it is created. */
interface PaywallContext extends PaywallDeps {
  secretBox: SecretBox | null;
  chain: AuthorizationReader | null;
  /** Seconds a stored answer is kept. */
  responseTtlSeconds: number;
  /** The batch-settlement flow's collaborators, when channels are offered (terms.channel). */
  channels: ChannelPayDeps | null;
}

/** Builds the 402 of a call for a reason (and the failed settlement's answer, when there is one; a channel's state for a correction). */
type Refuse<T> = (reason: string, settleResponse?: SettleResponse, correction?: Channel) => PaidOutcome<T>;

/** One presented payment, decoded and within our terms: what every step after decoding reads. */
interface Presented<T> extends DecodedPayment {
  call: PaidCall<T>;
  req: PaymentRequirements;
  /** The authorisation's `from`, lower case. */
  payer: string;
  /** What a stored answer belongs to (requestHash). */
  hash: string;
  refuse: Refuse<T>;
}

const isOutcome = <T>(v: unknown): v is PaidOutcome<T> => typeof v === "object" && v !== null && "kind" in v;

const inProgress = () => new ServiceError("payment_in_progress", "This payment authorisation is being processed by another request.");

/** The channel flow's collaborators (channel-pay.ts), when the terms offer batch-settlement. */
function channelDeps(deps: PaywallDeps, secretBox: SecretBox | null): ChannelPayDeps | null {
  const channel = deps.terms?.channel;
  if (!deps.terms || !channel) return null;
  const network = deps.terms.usdc.network;
  const storage: DbChannelStorage = deps.channelStorage ?? channelStorage(deps.db, { network, cache: newChannelCache() });
  return {
    db: deps.db,
    facilitator: deps.facilitator,
    clock: deps.clock,
    log: deps.log,
    secretBox,
    storage,
    network,
    terms: { chainId: deps.terms.usdc.chainId, receiverAuthorizer: channel.receiverAuthorizer, withdrawDelaySeconds: channel.withdrawDelaySeconds },
    reservation: { voucherSeconds: channel.reservationSeconds, depositSeconds: channel.depositReservationSeconds },
  };
}

export function createPaywall(deps: PaywallDeps): Paywall {
  const { terms } = deps;
  const secretBox = deps.secretBox ?? null;
  const responseTtlSeconds = (terms?.maxTimeoutSeconds ?? 300) + Number(VALID_BEFORE_SLACK_SECONDS);
  const ctx: PaywallContext = { ...deps, secretBox, chain: deps.chain ?? null, responseTtlSeconds, channels: channelDeps(deps, secretBox) };
  return {
    terms,
    idempotent: secretBox !== null,
    responseTtlSeconds,
    requirementsFor: (amount) => requirementsFor(terms, amount),
    acceptsFor: (amount) => acceptsFor(terms, amount),
    paymentRequired: (resource, amount, error, extensions) => paymentRequired(terms, resource, amount, error, extensions),
    probe: (call) => ({ kind: "payment_required", paymentRequired: paymentRequired(terms, call.resource, call.amount, "payment_required", declaredExtensions(ctx, call)) }),
    run: (call) => run(ctx, call),
  };
}

function requirementsFor(terms: PaymentTerms | null, amount: bigint): PaymentRequirements {
  if (!terms) throw unavailable("paywall_not_configured", "This service has no PAY_TO address configured; paid routes are disabled.");
  return {
    scheme: "exact",
    network: terms.usdc.network,
    amount: amount.toString(),
    asset: terms.usdc.asset,
    payTo: terms.payTo,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    extra: { name: terms.usdc.name, version: terms.usdc.version },
  };
}

/** Every scheme's requirements of a price: `exact` first (what an exact-only client takes), then `batch-settlement`. */
function acceptsFor(terms: PaymentTerms | null, amount: bigint): PaymentRequirements[] {
  const exact = requirementsFor(terms, amount);
  return terms?.channel ? [exact, batchRequirements(terms.usdc, terms.payTo, terms.maxTimeoutSeconds, terms.channel, amount)] : [exact];
}

/** The 402; `correction` puts a channel's state on its batch requirement (the scheme's corrective 402). */
function paymentRequired(
  terms: PaymentTerms | null,
  resource: ResourceDescription,
  amount: bigint,
  error: string,
  extensions?: Record<string, unknown>,
  correction?: Channel,
): PaymentRequired {
  const accepts = acceptsFor(terms, amount).map((r) => (correction && r.scheme !== "exact" ? withChannelState(r, correction) : r));
  return { x402Version: 2, error, resource, accepts, ...(extensions ? { extensions } : {}) };
}

/** The extensions every 402 of a call declares: the route's, plus payment-identifier when answers are stored. */
function declaredExtensions(ctx: PaywallContext, call: ProbeCall): Record<string, unknown> | undefined {
  return ctx.secretBox ? { ...(call.extensions ?? {}), [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) } : call.extensions;
}

/** The paid answer, with the settlement's answer in PAYMENT-RESPONSE (and its v1 name). */
function paidOutcome<T>(result: T, settleResponse: SettleResponse, replayed = false): PaidOutcome<T> {
  const header = encodeX402Header(settleResponse);
  return { kind: "paid", result, settleResponse, headers: { "PAYMENT-RESPONSE": header, "X-PAYMENT-RESPONSE": header }, ...(replayed ? { replayed } : {}) };
}

/** The settlement's answer as a settled row remembers it. */
const settledResponse = (row: Pick<PaymentRow, "tx_hash" | "network" | "payer">): SettleResponse => ({
  success: true,
  transaction: row.tx_hash ?? "",
  network: row.network as SettleResponse["network"],
  payer: row.payer,
});

/** The answer sealed for retries under the row's id, or nothing (no master key, no codec, a streamed answer). */
function sealAnswer<T>(ctx: PaywallContext, call: PaidCall<T>, rowId: string, result: T): SealedAnswer | undefined {
  if (!ctx.secretBox || !call.codec) return undefined;
  const text = call.codec.encode(result);
  if (text === undefined) return undefined;
  return {
    status: call.successStatus ?? 200,
    sealed: ctx.secretBox.seal(text, `payment-response:${rowId}`),
    expiresAt: new Date(ctx.clock.now() + ctx.responseTtlSeconds * 1000),
  };
}

// ---------------------------------------------------------------------------
// The flow of one paid call, step by step.

async function run<T>(ctx: PaywallContext, call: PaidCall<T>): Promise<PaidOutcome<T>> {
  const req = requirementsFor(ctx.terms, call.amount);
  const extensions = declaredExtensions(ctx, call);
  const refuse: Refuse<T> = (reason, settleResponse, correction) => ({
    kind: "payment_required",
    paymentRequired: paymentRequired(ctx.terms, call.resource, call.amount, reason, extensions, correction),
    ...(settleResponse ? { settleResponse } : {}),
  });
  if (call.header === undefined || call.header === "") return refuse("payment_required");
  if (call.header.length > MAX_PAYMENT_HEADER_BYTES)
    throw new ServiceError("payment_header_too_large", `The payment header is over ${MAX_PAYMENT_HEADER_BYTES} bytes; it was not decoded.`, { max_bytes: MAX_PAYMENT_HEADER_BYTES });
  const decoded = decodePaymentHeader(call.header);
  if (typeof decoded === "string") return refuse(decoded);
  if (ctx.channels && isBatchPayment(decoded)) {
    const batchReq = acceptsFor(ctx.terms, call.amount)[1]!;
    return runChannelCall(ctx.channels, {
      call,
      decoded,
      req: batchReq,
      refuse: (reason, correction, settleResponse) => refuse(reason, settleResponse, correction),
      paid: (result, settleResponse, replayed) => paidOutcome(result, settleResponse, replayed),
    });
  }
  const presented = decode(call, decoded, req, refuse);
  if (isOutcome<T>(presented)) return presented;
  const identified = await byIdentifier(ctx, presented);
  if (isOutcome<T>(identified)) return identified;
  const reserved = await reserve(ctx, presented, identified.identifier);
  if (isOutcome<T>(reserved)) return reserved;
  const refused = await verify(ctx, presented, reserved.paymentId);
  return refused ?? (await workAndSettle(ctx, presented, reserved.paymentId));
}

/** Decode: the header's payload, of the `exact` shape we accept and within our terms, or the 402 saying why not. */
function decode<T>(call: PaidCall<T>, payment: PaymentPayload, req: PaymentRequirements, refuse: Refuse<T>): Presented<T> | PaidOutcome<T> {
  const decoded = parseExactPayload(payment);
  if (typeof decoded === "string") return refuse(decoded);
  const refusal = termsRefusal(decoded.payload, req);
  if (refusal) return refuse(refusal);
  const payer = decoded.payload.payload.authorization.from.toLowerCase();
  return { ...decoded, call, req, payer, hash: requestHash(call.route, call.input), refuse };
}

/**
 * The payment-identifier extension: an identifier seen before with the same
 * request gets that purchase's answer (nothing charged again), with another
 * request a 409; one left by a failed attempt is freed for this one.
 */
async function byIdentifier<T>(ctx: PaywallContext, p: Presented<T>): Promise<{ identifier: string | undefined } | PaidOutcome<T>> {
  const identified = paymentIdentifierOf(p.payload, ctx.secretBox !== null);
  if (typeof identified === "string") return p.refuse(identified);
  const { identifier } = identified;
  if (!identifier) return identified;
  const seen = await store.findByIdentifier(ctx.db, p.payer, identifier);
  if (seen && seen.status !== "failed") {
    if (seen.request_hash !== p.hash)
      throw new ServiceError("payment_identifier_conflict", "This payment identifier was used for a different request; use a new identifier for a new purchase.");
    if (!(await signedByPayer(ctx.terms?.usdc, p.payload))) return p.refuse("invalid_exact_evm_payload_signature");
    return resume(ctx, seen, p.call, p.refuse);
  }
  // A failed attempt charged nothing: the identifier is free for this one.
  if (seen) await store.releaseIdentifier(ctx.db, seen.id);
  return identified;
}

/**
 * Reserve: the once-ever nonce row, taken before verify; it doubles as the
 * cross-process lock from verify until settle ends. An authorisation seen
 * before is a retry; a fresh one must be inside its time window. One inside
 * its window is inserted straight away (a row already there makes it a
 * retry): the common call costs one statement, not a lookup and an insert.
 */
async function reserve<T>(ctx: PaywallContext, p: Presented<T>, identifier: string | undefined): Promise<{ paymentId: string } | PaidOutcome<T>> {
  const nonceKey = nonceKeyOf(p.req, p.payload);
  const late = windowRefusal(p.payload, p.req, ctx.clock.now(), BigInt(p.call.minValiditySeconds ?? 0));
  if (late) {
    const earlier = await store.findByNonceKey(ctx.db, nonceKey);
    return earlier ? retryOf(ctx, p, earlier) : p.refuse(late);
  }

  const paymentId = randomUUID();
  const auth = p.payload.payload.authorization;
  const taken = await store.insertPending(ctx.db, {
    id: paymentId,
    nonce_key: nonceKey,
    payer: p.payer,
    route: p.call.route,
    amount_atomic: p.call.amount.toString(),
    network: p.req.network,
    nonce: auth.nonce.toLowerCase(),
    request_hash: p.hash,
    valid_before: auth.validBefore,
    payment_identifier: identifier ?? null,
  });
  // The identifier's unique index: another request with the same identifier got there first.
  if (taken === "identifier_taken") throw new ServiceError("payment_in_progress", "A payment with this identifier is being processed by another request.");
  if (taken === "inserted") return { paymentId };
  const existing = await store.findByNonceKey(ctx.db, nonceKey);
  if (!existing) throw inProgress();
  return retryOf(ctx, p, existing);
}

/** An authorisation presented again: only the same request may have its answer back. */
async function retryOf<T>(ctx: PaywallContext, p: Presented<T>, row: PaymentRow): Promise<PaidOutcome<T>> {
  // Another request never reuses an authorisation.
  if (row.request_hash !== p.hash || row.route !== p.call.route || BigInt(row.amount_atomic) !== p.call.amount) return p.refuse("authorization_already_used");
  // A pending row is either in flight (its work transaction holds the row's lock, or the chain shows it
  // unused: 409) or was left by a process that died after settling (the chain shows it paid: resumed).
  if (!(await signedByPayer(ctx.terms?.usdc, p.payload))) return p.refuse("invalid_exact_evm_payload_signature");
  return resume(ctx, row, p.call, p.refuse);
}

/** Verify: the facilitator's word on the authorisation; a refusal or an outage frees the nonce row. */
async function verify<T>(ctx: PaywallContext, p: Presented<T>, paymentId: string): Promise<PaidOutcome<T> | undefined> {
  let verified;
  try {
    verified = await ctx.facilitator.verify(p.decoded, p.req);
  } catch (e) {
    await store.deleteRow(ctx.db, paymentId);
    ctx.log.warn({ err: (e as Error).message }, "facilitator verify failed");
    throw upstreamFailed("facilitator_unavailable", "The payment facilitator could not be reached; nothing was charged.");
  }
  if (verified.isValid) return undefined;
  await store.deleteRow(ctx.db, paymentId);
  return p.refuse(verified.invalidReason ?? "payment_invalid");
}

/** Settle: the facilitator moves the money; a failure (thrown, or success:false) is a SettlementFailed. */
async function settle<T>(ctx: PaywallContext, p: Presented<T>): Promise<SettleResponse> {
  let settleResponse: SettleResponse;
  try {
    settleResponse = await ctx.facilitator.settle(p.decoded, p.req);
  } catch (e) {
    settleResponse = {
      success: false,
      errorReason: "settlement_error",
      errorMessage: (e as Error).message,
      transaction: "",
      network: p.req.network as SettleResponse["network"],
    };
  }
  // A settle answer with success:false is a failure even when nothing threw.
  if (!settleResponse.success) throw new SettlementFailed(settleResponse);
  return settleResponse;
}

/** What a failure after verify needs to know: the transaction, once money moved. */
interface Progress {
  settledTx?: string;
}

/**
 * Do the work and settle, in the order the route needs, then store the
 * answer; all in one transaction that holds the row's lock, except for
 * reversible work that writes nothing.
 */
async function workAndSettle<T>(ctx: PaywallContext, p: Presented<T>, paymentId: string): Promise<PaidOutcome<T>> {
  const progress: Progress = {};
  // Irreversible work runs under the row's lock too, read-only or not: a concurrent retry must not do it a second time.
  const locked = !p.call.readOnly || p.call.settleBeforeWork === true;
  try {
    const { result, settleResponse } = locked
      ? await ctx.db.transaction().execute(async (trx) => {
          // The row stays locked until the work commits: a retry never resumes work that is still in flight.
          await store.lockRow(trx, paymentId);
          return workSettleStore(ctx, p, paymentId, trx, progress);
        })
      : await workSettleStore(ctx, p, paymentId, ctx.db, progress);
    return paidOutcome(result, settleResponse);
  } catch (e) {
    return afterFailure(ctx, p, paymentId, e, progress);
  }
}

/** The work and the settlement in the route's order, then the row settled with its (sealed) answer. */
async function workSettleStore<T>(ctx: PaywallContext, p: Presented<T>, paymentId: string, handle: Transaction<DB> | Database, progress: Progress): Promise<{ result: T; settleResponse: SettleResponse }> {
  const { call } = p;
  const payment: PaymentInfo = { payer: p.payer, amountAtomic: call.amount, nonce: p.payload.payload.authorization.nonce };
  const settled = async () => {
    const response = await settle(ctx, p);
    progress.settledTx = response.transaction;
    return response;
  };
  let result: T;
  let settleResponse: SettleResponse;
  if (call.settleBeforeWork) {
    settleResponse = await settled();
    result = await call.work(handle, payment);
  } else {
    result = await call.work(handle, payment);
    settleResponse = await settled();
  }
  await store.recordWorkDone(handle, paymentId, { txHash: settleResponse.transaction, settledAt: new Date(ctx.clock.now()), answer: sealAnswer(ctx, call, paymentId, result) });
  return { result, settleResponse };
}

/**
 * A failure after verify: a failed settlement is the 402 with its answer
 * (the work rolled back, or never done); work that failed after the money
 * moved leaves the row settled without work; any other failure frees the row.
 */
async function afterFailure<T>(ctx: PaywallContext, p: Presented<T>, paymentId: string, e: unknown, progress: Progress): Promise<PaidOutcome<T>> {
  const { call } = p;
  if (e instanceof SettlementFailed) {
    const reason = e.response.errorReason;
    // A settlement whose outcome is unknown stays pending: the reconciler asks the chain. Otherwise nothing moved.
    if (reason === "settlement_error" || reason === "settlement_pending") await store.noteSettlementError(ctx.db, paymentId, reason);
    else await store.markFailed(ctx.db, paymentId, reason ?? "settlement_failed");
    ctx.log.warn({ reason, route: call.route }, call.settleBeforeWork ? "settlement failed; the work was not done" : "settlement failed; work rolled back");
    return p.refuse(`settlement_failed: ${reason ?? "unknown"}`, e.response);
  }
  if (progress.settledTx !== undefined) {
    // Money moved but the commit failed: keep the nonce burnt; the client's retry (or the operator) resumes the work.
    // Only a row still pending: a commit whose answer was lost may have landed (settled, work done), and a
    // concurrent retry may have resumed the work meanwhile; neither is undone here.
    ctx.log.error({ route: call.route, tx: progress.settledTx, err: (e as Error).message }, "payment settled but the work did not commit");
    await store.markSettledWithoutWork(ctx.db, paymentId, { txHash: progress.settledTx, settledAt: new Date(ctx.clock.now()) });
    throw e;
  }
  // The work failed: nothing was settled, so the authorisation may be used again.
  await store.deleteRow(ctx.db, paymentId);
  throw e;
}

// ---------------------------------------------------------------------------
// A payment row seen before for this request.

/**
 * Its stored answer, or the work done now when the chain shows the
 * authorisation paid us and no work committed; otherwise a refusal.
 */
async function resume<T>(ctx: PaywallContext, row: PaymentRow, call: PaidCall<T>, refuse: Refuse<T>): Promise<PaidOutcome<T>> {
  if (row.status === "failed") return refuse("authorization_already_used");
  if (row.status === "settled" && row.work_done) return answerAgain(ctx, row, call, refuse);
  // Pending, or settled without its work: resumed only on the chain's word, under the row's lock.
  if (!ctx.chain) {
    if (row.status === "pending") throw inProgress();
    return refuse("authorization_already_used");
  }
  const resumed = await resumeOnChain(ctx, ctx.chain, row, call);
  if (resumed === "busy" || resumed === "unused") throw inProgress();
  if (resumed === "unattributed") {
    ctx.log.warn({ route: call.route, payment: row.id, tx: row.tx_hash }, "resuming a payment: the chain marks the authorisation used but its transaction was not found; left as it is");
    // Not "facilitator_unavailable" (whose promise is "nothing was charged"): here money may have moved.
    throw upstreamFailed(
      "payment_unresolved",
      "The chain marks this payment authorisation as used but its transaction was not found yet; the payment stays pending and the work is not done. Retry later with the same payment: it is never charged twice.",
    );
  }
  if (resumed === "answered") return resume(ctx, await store.findById(ctx.db, row.id), call, refuse);
  if (resumed === "elsewhere") return refuse("authorization_already_used");
  ctx.log.warn({ route: call.route, payment: row.id, tx: resumed.txHash }, "settled payment without work: the work was done on the client's retry");
  return paidOutcome(resumed.result, { ...settledResponse(row), transaction: resumed.txHash });
}

/** Settled work answered again: its stored answer, or read-only work simply done again; never a second irreversible act. */
async function answerAgain<T>(ctx: PaywallContext, row: PaymentRow, call: PaidCall<T>, refuse: Refuse<T>): Promise<PaidOutcome<T>> {
  if (row.response_sealed && ctx.secretBox && call.codec) {
    const text = ctx.secretBox.open(row.response_sealed, `payment-response:${row.id}`);
    ctx.log.info({ route: call.route, payment: row.id }, "paid request retried: the stored answer is returned");
    return paidOutcome(call.codec.decode(text), settledResponse(row), true);
  }
  // Nothing stored (expired, a streamed answer, no master key): work that writes nothing is simply done again,
  // unless it cannot be undone (a second send is a second side effect nobody paid for).
  if (call.readOnly && !call.settleBeforeWork) {
    const result = await call.work(ctx.db, { payer: row.payer, amountAtomic: call.amount, nonce: row.nonce });
    return paidOutcome(result, settledResponse(row), true);
  }
  return refuse("authorization_already_used");
}

/** The chain's verdict on a row left without its work, and the work when the chain shows we were paid. */
type Resumed<T> = { result: T; txHash: string } | "busy" | "unused" | "unattributed" | "elsewhere" | "answered";

async function resumeOnChain<T>(ctx: PaywallContext, chain: AuthorizationReader, row: PaymentRow, call: PaidCall<T>): Promise<Resumed<T>> {
  try {
    return await ctx.db.transaction().execute((trx) => resumeLocked(ctx, chain, trx, row.id, call));
  } catch (e) {
    // A database outage (or full disk) is not the chain's: it answers 503 and the retry resumes.
    if (e instanceof ServiceError || isDatabaseOutage(e)) throw e;
    ctx.log.warn({ route: call.route, payment: row.id, err: (e as Error).message }, "resuming a settled payment failed");
    throw upstreamFailed("facilitator_unavailable", "The payment's state on chain could not be read; try again shortly.");
  }
}

/** Under the row's lock (skipped when another request holds it): ask the chain, then do the work once, or record the verdict. */
async function resumeLocked<T>(ctx: PaywallContext, chain: AuthorizationReader, trx: Transaction<DB>, rowId: string, call: PaidCall<T>): Promise<Resumed<T>> {
  const locked = await store.lockUnlessBusy(trx, rowId);
  if (!locked) return "busy";
  if (locked.status === "settled" && locked.work_done) return "answered";
  if (locked.status !== "pending" && locked.status !== "settled") return "elsewhere";
  const finding = await chain.check(locked.payer, locked.nonce, BigInt(locked.amount_atomic), { txHash: locked.tx_hash });
  if (finding.state === "unused") return "unused";
  // Used, but the chain has not (yet) said by whom: no verdict, the row stays as it is.
  if (finding.state === "used_unattributed") return "unattributed";
  if (finding.state === "used_elsewhere") {
    await store.markFailed(trx, rowId, "authorization_used_elsewhere", new Date(ctx.clock.now()));
    return "elsewhere";
  }
  const handle = call.readOnly && !call.settleBeforeWork ? ctx.db : trx;
  const result = await call.work(handle, { payer: locked.payer, amountAtomic: call.amount, nonce: locked.nonce });
  await store.recordResumedWork(trx, rowId, {
    txHash: finding.txHash,
    settledAt: locked.settled_at ?? new Date(ctx.clock.now()),
    checkedAt: new Date(ctx.clock.now()),
    answer: sealAnswer(ctx, call, rowId, result),
  });
  return { result, txHash: finding.txHash };
}
