/**
 * Checkout: invoices that ask a buyer for an exact amount paid straight to the
 * merchant's own watched wallet, the restricted checkout keys that create
 * them, and the scan subscriber and expiry job that settle them.
 *
 * The same machine as coin quotes (quotes.ts), pointed at the merchant's
 * watch: the USD price converted at a locked rate, rounded up to a whole
 * TAG_MODULUS plus a tag in the low digits, unique among the wallet's open
 * invoices. The tick already scans the watch; the subscriber reads the tag of
 * each new output, and `stepInvoice` (invoice-state.ts) says what follows.
 */
import { randomInt, randomUUID } from "node:crypto";
import type { Selectable, Transaction } from "kysely";
import { z } from "zod";
import { badRequest, conflict, forbidden, notFound, unauthorized, unavailable } from "../core/errors.js";
import { formatAtomic, UNITS, usdCentsToAtomicCeil, type MoneyUnit } from "../core/money.js";
import { hashToken, newToken, tokenMatches } from "../core/tokens.js";
import type { CheckoutInvoicesTable, DB } from "../db/schema.js";
import { withTransaction } from "../db/transaction.js";
import type { Queryable } from "../db/types.js";
import type { Job } from "../core/jobs.js";
import { readKnownOutputs, type ScanSubscriber, type WatchFindings, creditBlock, type CreditBlock, meterOf, newNonce, snapshotOf, debitSettlementFee, insertSerializedEvents } from "../watch/index.js";
// The watch account is the one writer of a watch's credit, ledger and outbox (src/watch/account.ts); the watch module has no index.ts face yet.
import { LATE_PAYMENT_GRACE_MS, type CoinDeps, type PayChain } from "./quotes.js";
import { identifyHint, memoTokenOf, newMemoToken, TAG_MODULI, tagOf, taggedAmountFor, USES_MEMO, walletUri } from "./pay-id.js";
import { formatRate, type Coin } from "./prices.js";
import { INVOICE_EVENTS, stepInvoice, type InvoiceEvent, type InvoiceInput, type InvoiceState } from "./invoice-state.js";

/** Bounds of the spec ("Limits"). */
export const INVOICE_MIN_CENTS = 25;
export const INVOICE_MAX_CENTS = 10_000_000; // USD 100 000: an upper bound keeps amounts sane
export const TTL_MIN_MINUTES = 5;
export const TTL_MAX_MINUTES = 1440;
export const TTL_DEFAULT_MINUTES = 30;
export const ORDER_ID_MAX = 120;
export const DESCRIPTION_MAX = 200;
export const KEY_LABEL_MAX = 80;
/** The flat settlement fee per paid invoice: USD 0.02 in atomic USDC. */
export const SETTLEMENT_FEE = 20_000n;
/** Attempts at a free tag before 503 invoice_tag_collision. */
const TAG_ATTEMPTS = 8;
/** Invoices listed per call. */
const LIST_LIMIT = 50;

const COIN_OF: Record<PayChain, { coin: Coin; unit: MoneyUnit }> = {
  monero: { coin: "xmr", unit: UNITS.xmr },
  zcash: { coin: "zec", unit: UNITS.zec },
};

export interface CheckoutDeps {
  coin: CoinDeps;
  /** The hosted pay page's base (PAY_URL, else `{PUBLIC_URL}/pay/`), read at call time (the bound address is known late). */
  payUrl: () => string;
}

export interface CheckoutCtx {
  deps: CheckoutDeps;
  db: Queryable;
}

type InvoiceRow = Selectable<CheckoutInvoicesTable>;

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), "successUrl must be an http or https URL");

export const CreateInvoiceInput = z.object({
  amountUsdCents: z
    .number()
    .int()
    .min(INVOICE_MIN_CENTS, `amountUsdCents must be at least ${INVOICE_MIN_CENTS} (USD 0.25)`)
    .max(INVOICE_MAX_CENTS, `amountUsdCents must be at most ${INVOICE_MAX_CENTS} (USD 100000)`),
  checkoutKey: z.string().startsWith("ck_", "checkoutKey starts with ck_").max(256).optional(),
  watchId: z.string().uuid().optional(),
  watchToken: z.string().min(1).max(256).optional(),
  chain: z.enum(["monero", "zcash"]).optional(),
  orderId: z.string().max(ORDER_ID_MAX, `orderId must be at most ${ORDER_ID_MAX} characters`).optional(),
  description: z.string().max(DESCRIPTION_MAX, `description must be at most ${DESCRIPTION_MAX} characters`).optional(),
  successUrl: httpUrl.optional(),
  ttlMinutes: z
    .number()
    .int()
    .min(TTL_MIN_MINUTES, `ttlMinutes must be at least ${TTL_MIN_MINUTES}`)
    .max(TTL_MAX_MINUTES, `ttlMinutes must be at most ${TTL_MAX_MINUTES}`)
    .default(TTL_DEFAULT_MINUTES),
});
export type CreateInvoiceInput = z.infer<typeof CreateInvoiceInput>;

const Amount = z.object({ atomic: z.string(), display: z.string(), coin: z.string() });
/** `display` drops trailing zeros; `atomic` with `decimals` places is every digit (the pay page shows that). */
const PublicAmount = Amount.extend({ decimals: z.number().int() });

/** What a buyer may see: no watch id, no token, no key. */
export const PublicInvoiceSchema = z.object({
  invoiceId: z.string(),
  status: z.enum(["pending", "confirming", "paid", "underpaid", "expired", "cancelled"]),
  chain: z.enum(["monero", "zcash"]),
  payTo: z.string(),
  amount: PublicAmount,
  amountUsdCents: z.number().int(),
  rate: z.object({ usdPerCoin: z.string() }),
  memo: z.string().nullable(),
  uri: z.string(),
  payUrl: z.string(),
  description: z.string().nullable(),
  orderId: z.string().nullable(),
  successUrl: z.string().nullable(),
  received: PublicAmount.nullable(),
  confirmations: z.object({ required: z.number().int(), seen: z.number().int().nullable() }),
  createdAt: z.string(),
  expiresAt: z.string(),
  /** Whole seconds to expiresAt by the service's clock (0 once past): a countdown that a buyer's wrong clock cannot move. */
  expiresInSeconds: z.number().int(),
  /** An expired invoice still takes a payment seen before this time (its amount stays reserved until then). */
  latePaymentUntil: z.string(),
  /** Whole seconds to latePaymentUntil by the service's clock (0 once past: the invoice takes no payment any more). */
  latePaymentInSeconds: z.number().int(),
  /** When the service first saw the payment that counts (after expiresAt: a late payment, honoured). */
  seenAt: z.string().nullable(),
  paidAt: z.string().nullable(),
  instructions: z.string(),
});
export type PublicInvoice = z.infer<typeof PublicInvoiceSchema>;

export const InvoiceSchema = PublicInvoiceSchema.extend({ watchId: z.string(), keyId: z.string().nullable() });

const Delivery = z.object({ event: z.string(), nonce: z.string(), status: z.string(), attempts: z.number().int(), lastStatus: z.number().int().nullable(), lastError: z.string().nullable(), deliveredAt: z.string().nullable() });
export const InvoiceListSchema = z.object({
  watchId: z.string(),
  invoices: z.array(InvoiceSchema.extend({ feeAtomic: z.string().nullable(), webhooks: z.array(Delivery) })),
});

function displayOf(atomic: bigint, chain: PayChain) {
  const { unit } = COIN_OF[chain];
  return { atomic: atomic.toString(), display: formatAtomic(atomic, unit), coin: unit.symbol };
}

function publicAmountOf(atomic: bigint, chain: PayChain) {
  return { ...displayOf(atomic, chain), decimals: COIN_OF[chain].unit.decimals };
}

function statusAt(row: InvoiceRow, nowMs: number): InvoiceRow["status"] {
  // A pending invoice past its TTL reads expired even before the job marks it.
  return row.status === "pending" && nowMs >= new Date(row.expires_at).getTime() ? "expired" : row.status;
}

export function invoiceView(row: InvoiceRow, deps: CheckoutDeps, nowMs: number, seenConfirmations: number | null = null): PublicInvoice {
  const chain = row.chain;
  const amount = publicAmountOf(BigInt(row.amount_atomic), chain);
  const expiresAtMs = new Date(row.expires_at).getTime();
  const expiresAt = new Date(expiresAtMs).toISOString();
  const base = deps.payUrl();
  return {
    invoiceId: row.id,
    status: statusAt(row, nowMs),
    chain,
    payTo: row.pay_to,
    amount,
    amountUsdCents: row.usd_cents,
    rate: { usdPerCoin: formatRate({ num: BigInt(row.rate_num), den: BigInt(row.rate_den) }) },
    memo: row.memo,
    uri: walletUri(chain, row.pay_to, BigInt(row.amount_atomic), row.memo, row.description),
    payUrl: `${base}#${row.id}`,
    description: row.description,
    orderId: row.order_id,
    successUrl: row.success_url,
    received: row.received_atomic === null ? null : publicAmountOf(BigInt(row.received_atomic), chain),
    confirmations: { required: row.confirmations, seen: seenConfirmations },
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt,
    expiresInSeconds: Math.max(0, Math.floor((expiresAtMs - nowMs) / 1000)),
    latePaymentUntil: new Date(row.reserved_until).toISOString(),
    latePaymentInSeconds: Math.max(0, Math.floor((new Date(row.reserved_until).getTime() - nowMs) / 1000)),
    seenAt: row.seen_at ? new Date(row.seen_at).toISOString() : null,
    paidAt: row.paid_at ? new Date(row.paid_at).toISOString() : null,
    instructions:
      `Send exactly ${amount.display} ${amount.coin} to ${row.pay_to} in one payment before ${expiresAt}. ` +
      `${identifyHint(chain, row.memo, "invoice")} It is paid after ${row.confirmations} confirmations.`,
  };
}

const KEY_FAILED = () => unauthorized("invalid_checkout_key", "Unknown or revoked checkout key.");
const TOKEN_FAILED = () => unauthorized("invalid_watch_token", "Unknown watch or wrong watch token.");

async function watchForToken(db: Queryable, watchId: string, token: string | undefined) {
  const w = await db.selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirst();
  if (!w || !tokenMatches(token, w.token_hash) || w.status === "cancelled") throw TOKEN_FAILED();
  return w;
}

/** Who an invoice request speaks for: a watch (by token) or a checkout key of that watch. */
async function authorize(db: Queryable, input: CreateInvoiceInput) {
  const byKey = input.checkoutKey !== undefined;
  const byToken = input.watchId !== undefined || input.watchToken !== undefined;
  if (byKey === byToken || (byToken && (!input.watchId || !input.watchToken)))
    throw badRequest("checkout_auth_required", "Send either checkoutKey, or both watchId and watchToken.");
  if (byKey) {
    const key = await db.selectFrom("checkout_keys").selectAll().where("key_hash", "=", hashToken(input.checkoutKey!)).executeTakeFirst();
    if (!key || key.revoked_at !== null) throw KEY_FAILED();
    const w = await db.selectFrom("watches").selectAll().where("id", "=", key.watch_id).executeTakeFirst();
    if (!w || w.status === "cancelled") throw KEY_FAILED();
    if (key.max_amount_usd_cents !== null && input.amountUsdCents > key.max_amount_usd_cents)
      throw forbidden("checkout_key_cap_exceeded", `This checkout key creates invoices of at most ${key.max_amount_usd_cents} US cents.`);
    return { watch: w, keyId: key.id };
  }
  return { watch: await watchForToken(db, input.watchId!, input.watchToken), keyId: null };
}

/** Creates an invoice paying the watch's own address, at a rate locked for its TTL. */
export async function createInvoice({ ctx, input }: { ctx: CheckoutCtx; input: CreateInvoiceInput }): Promise<PublicInvoice> {
  const { deps } = ctx;
  const { watch, keyId } = await authorize(ctx.db, input);
  const chain = input.chain ?? (watch.chain as PayChain);
  if (chain !== watch.chain) throw badRequest("checkout_chain_mismatch", `This watch is on ${watch.chain}; an invoice pays the watched wallet, so its chain must be ${watch.chain}.`);
  if (!deps.coin.watch.scanners[chain]) throw unavailable("checkout_chain_unavailable", `This server scans no ${chain} wallets, so it takes no ${chain} invoices.`);
  const { coin, unit } = COIN_OF[chain];
  const { rate } = await deps.coin.rates.usdRate(coin);
  const base = usdCentsToAtomicCeil(BigInt(input.amountUsdCents), unit, rate);
  const nowMs = deps.coin.watch.clock.now();
  const now = new Date(nowMs);
  const expiresAt = new Date(nowMs + input.ttlMinutes * 60_000);
  const row = await withTransaction(ctx.db, async (trx) => {
    await releaseTags(trx, now, watch.address);
    for (let attempt = 0; attempt < TAG_ATTEMPTS; attempt++) {
      const tag = BigInt(randomInt(1, Number(TAG_MODULI[chain])));
      const inserted = await trx
        .insertInto("checkout_invoices")
        .values({
          id: randomUUID(),
          watch_id: watch.id,
          key_id: keyId,
          chain,
          pay_to: watch.address,
          amount_atomic: taggedAmountFor(chain, base, tag).toString(),
          tag: tag.toString(),
          memo: USES_MEMO[chain] ? newMemoToken() : null,
          usd_cents: input.amountUsdCents,
          rate_num: rate.num.toString(),
          rate_den: rate.den.toString(),
          order_id: input.orderId ?? null,
          description: input.description ?? null,
          success_url: input.successUrl ?? null,
          confirmations: deps.coin.confirmations[chain] ?? 1,
          received_atomic: null,
          seen_txid: null,
          seen_index: null,
          seen_at: null,
          paid_at: null,
          fee_atomic: null,
          expires_at: expiresAt,
          reserved_until: new Date(expiresAt.getTime() + LATE_PAYMENT_GRACE_MS),
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(["pay_to", "tag"]).where("tag_open", "=", true).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted) return inserted;
    }
    throw unavailable("invoice_tag_collision", "No free amount tag was found for this invoice; retry shortly.");
  });
  return invoiceView(row, deps, nowMs);
}

/** Tags of invoices past their late-payment day (or finished) are given back. */
async function releaseTags(trx: Queryable, now: Date, payTo?: string) {
  let q = trx.updateTable("checkout_invoices").set({ tag_open: false }).where("tag_open", "=", true).where("reserved_until", "<=", now);
  if (payTo) q = q.where("pay_to", "=", payTo);
  await q.execute();
}

/** The buyer's view: the id is the capability; never a secret of the watch. */
export async function getPublicInvoice({ ctx, input }: { ctx: CheckoutCtx; input: { invoiceId: string } }): Promise<PublicInvoice> {
  const row = await ctx.db.selectFrom("checkout_invoices").selectAll().where("id", "=", input.invoiceId).executeTakeFirst();
  if (!row) throw notFound("invoice_not_found", "No invoice has this id.");
  let seen: number | null = null;
  if (row.status === "confirming" && row.seen_txid) {
    const w = await ctx.db.selectFrom("watches").select(["snapshot", "known_outputs", "start_height"]).where("id", "=", row.watch_id).executeTakeFirst();
    const out = w ? readKnownOutputs(w.known_outputs).find((o) => o.txid === row.seen_txid && o.index === row.seen_index) : undefined;
    const tip = w ? snapshotOf(w.snapshot, w.start_height).scannedHeight : 0;
    seen = out && out.height !== null ? Math.max(0, tip - out.height + 1) : 0;
  }
  return invoiceView(row, ctx.deps, ctx.deps.coin.watch.clock.now(), seen);
}

export const ListInvoicesInput = z.object({
  watchId: z.string().uuid(),
  watchToken: z.string().max(256).optional(),
  status: z.enum(["pending", "confirming", "paid", "underpaid", "expired", "cancelled"]).optional(),
});

/** The watch's recent invoices (newest first, at most 50) with the delivery of each invoice webhook. */
export async function listInvoices({ ctx, input }: { ctx: CheckoutCtx; input: z.infer<typeof ListInvoicesInput> }): Promise<z.input<typeof InvoiceListSchema>> {
  await watchForToken(ctx.db, input.watchId, input.watchToken);
  const nowMs = ctx.deps.coin.watch.clock.now();
  const rows = await ctx.db.selectFrom("checkout_invoices").selectAll().where("watch_id", "=", input.watchId).orderBy("created_at", "desc").orderBy("id").limit(500).execute();
  const picked = rows.filter((r) => !input.status || statusAt(r, nowMs) === input.status).slice(0, LIST_LIMIT);
  const outbox = picked.length
    ? await ctx.db.selectFrom("webhook_outbox").selectAll().where("watch_id", "=", input.watchId).where("event", "like", "invoice\\_%").orderBy("seq").execute()
    : [];
  const byInvoice = new Map<string, z.input<typeof Delivery>[]>();
  for (const o of outbox) {
    const id = (JSON.parse(o.body) as { invoiceId?: string }).invoiceId;
    if (!id) continue;
    const list = byInvoice.get(id) ?? [];
    list.push({ event: o.event, nonce: o.nonce, status: o.status, attempts: o.attempts, lastStatus: o.last_status, lastError: o.last_error, deliveredAt: o.delivered_at ? new Date(o.delivered_at).toISOString() : null });
    byInvoice.set(id, list);
  }
  return {
    watchId: input.watchId,
    invoices: picked.map((r) => ({
      ...invoiceView(r, ctx.deps, nowMs),
      watchId: r.watch_id,
      keyId: r.key_id,
      feeAtomic: r.fee_atomic === null ? null : BigInt(r.fee_atomic).toString(),
      webhooks: byInvoice.get(r.id) ?? [],
    })),
  };
}

export const CancelInvoiceInput = z.object({ invoiceId: z.string().uuid(), watchToken: z.string().max(256).optional() });

/**
 * Cancels a pending invoice of the watch (token in x-watch-token). Its amount
 * tag is freed at once: a payment arriving later is an ordinary payment to the
 * merchant's wallet (the watch's balance_change tells of it), not an invoice
 * payment. A wrong token and an unknown invoice get the same 404.
 */
export async function cancelInvoice({ ctx, input }: { ctx: CheckoutCtx; input: z.infer<typeof CancelInvoiceInput> }): Promise<PublicInvoice> {
  const nowMs = ctx.deps.coin.watch.clock.now();
  return withTransaction(ctx.db, async (trx) => {
    const row = await trx.selectFrom("checkout_invoices").selectAll().where("id", "=", input.invoiceId).forUpdate().executeTakeFirst();
    const w = row ? await trx.selectFrom("watches").select(["token_hash"]).where("id", "=", row.watch_id).executeTakeFirst() : undefined;
    if (!row || !w || !tokenMatches(input.watchToken, w.token_hash)) throw notFound("invoice_not_found", "No invoice by this id belongs to a watch with this token.");
    const status = statusAt(row, nowMs);
    if (status !== "pending") throw conflict("invoice_not_cancellable", `This invoice is ${status}; only a pending invoice can be cancelled.`);
    await apply(trx, row, { type: "cancel" }, nowMs);
    const after = await trx.selectFrom("checkout_invoices").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
    return invoiceView(after, ctx.deps, nowMs);
  });
}

export const CreateKeyInput = z.object({
  watchId: z.string().uuid(),
  watchToken: z.string().min(1).max(256),
  label: z.string().max(KEY_LABEL_MAX, `label must be at most ${KEY_LABEL_MAX} characters`).optional(),
  maxAmountUsdCents: z.number().int().min(1, "maxAmountUsdCents must be at least 1").max(INVOICE_MAX_CENTS).optional(),
});

export const CheckoutKeySchema = z.object({
  keyId: z.string(),
  checkoutKey: z.string(),
  watchId: z.string(),
  label: z.string().nullable(),
  maxAmountUsdCents: z.number().int().nullable(),
  createdAt: z.string(),
  notice: z.string(),
});

/** Mints a ck_ key for the watch: shown once here, stored only as its SHA-256. */
export async function createCheckoutKey({ ctx, input }: { ctx: CheckoutCtx; input: z.infer<typeof CreateKeyInput> }): Promise<z.input<typeof CheckoutKeySchema>> {
  await watchForToken(ctx.db, input.watchId, input.watchToken);
  const key = newToken("ck_");
  const id = randomUUID();
  const now = new Date(ctx.deps.coin.watch.clock.now());
  await withTransaction(ctx.db, (trx) =>
    trx
      .insertInto("checkout_keys")
      .values({ id, watch_id: input.watchId, key_hash: hashToken(key), label: input.label ?? null, max_amount_usd_cents: input.maxAmountUsdCents ?? null, created_at: now, revoked_at: null })
      .execute(),
  );
  return {
    keyId: id,
    checkoutKey: key,
    watchId: input.watchId,
    label: input.label ?? null,
    maxAmountUsdCents: input.maxAmountUsdCents ?? null,
    createdAt: now.toISOString(),
    notice: "The key is shown only now. It creates invoices paying this watch's wallet only; revoke it with DELETE /v1/checkout/keys/{keyId} and header x-watch-token.",
  };
}

export const RevokeKeyInput = z.object({ keyId: z.string().uuid(), watchToken: z.string().max(256).optional() });

/** Revokes a key at once; a wrong token and an unknown key get the same 404. */
export async function revokeCheckoutKey({ ctx, input }: { ctx: CheckoutCtx; input: z.infer<typeof RevokeKeyInput> }) {
  const key = await ctx.db.selectFrom("checkout_keys").selectAll().where("id", "=", input.keyId).executeTakeFirst();
  const w = key ? await ctx.db.selectFrom("watches").select(["token_hash"]).where("id", "=", key.watch_id).executeTakeFirst() : undefined;
  if (!key || key.revoked_at !== null || !w || !tokenMatches(input.watchToken, w.token_hash))
    throw notFound("checkout_key_not_found", "No live checkout key by this id belongs to a watch with this token.");
  const now = new Date(ctx.deps.coin.watch.clock.now());
  await withTransaction(ctx.db, (trx) => trx.updateTable("checkout_keys").set({ revoked_at: now }).where("id", "=", key.id).execute());
  return { keyId: key.id, revoked: true as const, revokedAt: now.toISOString() };
}

// ---------------------------------------------------------------------------
// Settlement.

function stateOf(row: InvoiceRow): InvoiceState {
  return {
    status: row.status,
    expectedAtomic: BigInt(row.amount_atomic),
    receivedAtomic: row.received_atomic === null ? null : BigInt(row.received_atomic),
    expiresAtMs: new Date(row.expires_at).getTime(),
    reservedUntilMs: new Date(row.reserved_until).getTime(),
  };
}

/**
 * The body of an invoice webhook (signed and sent like every watch webhook).
 * `credit` is the watch's credit block as of the event (the spec: "present in
 * every webhook body").
 */
export function invoiceEventBody(
  row: InvoiceRow,
  event: InvoiceEvent,
  state: InvoiceState,
  nowMs: number,
  credit: CreditBlock,
  extra: { txid?: string | null; feeAtomic?: bigint | null } = {},
) {
  return {
    event,
    invoiceId: row.id,
    orderId: row.order_id,
    watchId: row.watch_id,
    chain: row.chain,
    status: state.status,
    payTo: row.pay_to,
    amountUsdCents: row.usd_cents,
    expected: displayOf(state.expectedAtomic, row.chain),
    received: state.receivedAtomic === null ? null : displayOf(state.receivedAtomic, row.chain),
    txid: extra.txid ?? row.seen_txid,
    feeAtomic: extra.feeAtomic === undefined || extra.feeAtomic === null ? null : extra.feeAtomic.toString(),
    timestamp: new Date(nowMs).toISOString(),
    nonce: newNonce(),
    credit,
  };
}

/**
 * The watch's credit block in this transaction, as of `nowMs` (after the
 * settlement fee when one was just debited): the same `creditBlock` the
 * watch's own events carry. Null when the watch is gone (hard-deleted after
 * expiry): there is no webhook URL left to tell.
 */
async function watchCredit(trx: Queryable, watchId: string, nowMs: number): Promise<CreditBlock | null> {
  const w = await trx
    .selectFrom("watches")
    .select(["credit_atomic", "drained_through_ms", "drain_remainder", "low_credit_armed", "drain_unbooked_atomic", "drain_unbooked_from_ms"])
    .where("id", "=", watchId)
    .executeTakeFirst();
  return w ? creditBlock(meterOf(w), { now: () => nowMs }) : null;
}

async function queueInvoiceEvent(trx: Queryable, body: ReturnType<typeof invoiceEventBody>) {
  // Not billed per delivery: the flat settlement fee covers an invoice's webhooks.
  await insertSerializedEvents(trx, [{ watchId: body.watchId, event: body.event, nonce: body.nonce, body: JSON.stringify(body), billable: false }]);
}

/** Debits the flat fee from the watch's credit (capped at the balance: a watch at zero pays what it has). */
function chargeFee(trx: Queryable, watchId: string, invoiceId: string, nowMs: number): Promise<bigint> {
  return debitSettlementFee(trx, { watchId, amountAtomic: SETTLEMENT_FEE, reason: `checkout settlement fee (invoice ${invoiceId})`, ref: `invoice:${invoiceId}`, nowMs });
}

/** Applies one input to an invoice row: writes the new state, queues its webhook, charges the fee once. */
async function apply(trx: Queryable, row: InvoiceRow, input: InvoiceInput, nowMs: number, seen?: { txid: string; index: string }) {
  const before = stateOf(row);
  const step = stepInvoice(before, input);
  if (step.state === before) return step; // nothing changes
  const now = new Date(nowMs);
  const feeAtomic = step.chargeFee ? await chargeFee(trx, row.watch_id, row.id, nowMs) : null;
  const finished = step.state.status === "paid" || step.state.status === "underpaid" || step.state.status === "cancelled";
  await trx
    .updateTable("checkout_invoices")
    .set({
      status: step.state.status,
      received_atomic: step.state.receivedAtomic === null ? null : step.state.receivedAtomic.toString(),
      ...(seen ? { seen_txid: seen.txid, seen_index: seen.index, seen_at: now } : {}),
      ...(step.state.receivedAtomic === null ? { seen_txid: null, seen_index: null, seen_at: null } : {}),
      ...(step.state.status === "paid" ? { paid_at: now, fee_atomic: (feeAtomic ?? 0n).toString() } : {}),
      ...(finished ? { tag_open: false } : {}),
      updated_at: now,
    })
    .where("id", "=", row.id)
    .execute();
  if (step.event) {
    const credit = await watchCredit(trx, row.watch_id, nowMs);
    if (credit) await queueInvoiceEvent(trx, invoiceEventBody({ ...row, ...(seen ? { seen_txid: seen.txid } : {}) }, step.event, step.state, nowMs, credit, { feeAtomic }));
  }
  return step;
}

type Out = WatchFindings["new"][number];

/**
 * Settles invoices from what the tick's scan found on merchants' watches.
 * An output belongs to the open invoice on that wallet whose memo token it
 * carries (Zcash), else to the one whose tag equals the low digits of its
 * amount (pay-id.ts). Idempotent on (txid, index).
 */
export function invoiceSubscriber(deps: CheckoutDeps): ScanSubscriber {
  return {
    name: "checkout-invoices",
    onScan: async (trx, found) => {
      const nowMs = deps.coin.watch.clock.now();
      for (const f of found) {
        if (f.chain !== "monero" && f.chain !== "zcash") continue;
        await settleFindings(trx, f, nowMs, deps);
      }
    },
  };
}

async function settleFindings(trx: Transaction<DB>, f: WatchFindings, nowMs: number, deps: CheckoutDeps) {
  const bySeen = (o: Out) =>
    trx.selectFrom("checkout_invoices").selectAll().where("watch_id", "=", f.watchId).where("seen_txid", "=", o.txid).where("seen_index", "=", o.index).forUpdate().executeTakeFirst();
  for (const o of f.new) {
    if (await bySeen(o)) continue; // told again
    const chain = f.chain as PayChain;
    const open = () => trx.selectFrom("checkout_invoices").selectAll().where("watch_id", "=", f.watchId).where("chain", "=", chain).where("tag_open", "=", true);
    // Zcash: the memo token names the invoice (whatever the amount: less is underpaid); otherwise the amount's tag.
    const token = USES_MEMO[chain] ? memoTokenOf(o.memo) : null;
    const tag = tagOf(chain, BigInt(o.amountAtomic));
    const row =
      (token ? await open().where("memo", "=", token).forUpdate().executeTakeFirst() : undefined) ??
      (tag === 0n ? undefined : await open().where("pay_to", "=", f.address).where("tag", "=", tag.toString()).forUpdate().executeTakeFirst());
    if (!row) continue; // an ordinary payment to the merchant's wallet: the watch's own balance_change tells of it
    const step = await apply(trx, row, { type: "payment_seen", amountAtomic: BigInt(o.amountAtomic), nowMs }, nowMs, { txid: o.txid, index: o.index });
    if (step.event === null) deps.coin.watch.log.warn({ invoiceId: row.id, txid: o.txid, status: row.status }, "another payment with an invoice's tag: not counted (the first payment counts)");
  }
  for (const o of f.confirmed) {
    const row = await bySeen(o);
    if (row) await apply(trx, row, { type: "payment_confirmed" }, nowMs);
  }
  for (const o of f.reorged) {
    const row = await bySeen(o);
    if (row) await apply(trx, row, { type: "payment_reorged", nowMs }, nowMs);
  }
}

/** Marks pending invoices past their TTL expired (with invoice_expired), and gives back tags past their late-payment day. */
export async function expireInvoices(deps: CheckoutDeps, db: Queryable, limit = 200): Promise<{ expired: number; more: boolean }> {
  const nowMs = deps.coin.watch.clock.now();
  const now = new Date(nowMs);
  return withTransaction(db, async (trx) => {
    const due = await trx.selectFrom("checkout_invoices").selectAll().where("status", "=", "pending").where("expires_at", "<=", now).orderBy("expires_at").limit(limit).forUpdate().skipLocked().execute();
    for (const row of due) await apply(trx, row, { type: "tick", nowMs }, nowMs);
    await releaseTags(trx, now);
    return { expired: due.length, more: due.length === limit };
  });
}

export function invoiceExpiryJob(deps: CheckoutDeps, db: Queryable, intervalMs = 15_000): Job {
  return {
    name: "checkout-invoice-expiry",
    intervalMs,
    run: async () => ({ more: (await expireInvoices(deps, db)).more }),
  };
}

/** What the snippets guide says under `checkout`. */
export function checkoutOffer(deps: CheckoutDeps) {
  const chains = (["monero", "zcash"] as const).filter((c) => deps.coin.watch.scanners[c]);
  const available = chains.length > 0;
  return {
    available,
    events: [...INVOICE_EVENTS],
    note: available
      ? `Checkout invoices (${chains.map((c) => (c === "monero" ? "Monero" : "Zcash")).join(", ")}): POST /v1/checkout/invoices; their webhooks go to the watch's webhookUrl, signed with the same webhookSecret and verified with the same code. See GET /v1/checkout.`
      : "Checkout invoices are not offered by this deployment (no chain scanner).",
  };
}
