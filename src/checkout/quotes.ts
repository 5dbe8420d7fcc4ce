/**
 * Paying for watch credit in coin: quotes, coin-created watches, and the
 * scan subscriber that settles them.
 *
 * A quote asks for an exact amount of XMR at the service's own receiving
 * wallet. The amount identifies the quote: the USD price converted at the
 * locked rate (rounded up), rounded up again to a whole TAG_MODULUS, plus a
 * random tag in 1..TAG_MODULUS−1 — so every quote asks for at least what its
 * USD is worth, and the database's partial unique index on (pay_to, amount)
 * among open quotes makes two open quotes with one amount impossible.
 *
 * The service wallet is watched like any other watch (created on the first
 * quote); the tick's scan tells this module's subscriber what it found, in
 * the tick's transaction: a new output of an open quote's exact amount marks
 * it `confirming`, the same output confirmed settles it and credits the watch
 * in that transaction, a reorged one sends it back to `pending`. Every output
 * the wallet receives is kept in coin_receipts with what became of it.
 */
import { randomInt, randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import { z } from "zod";
import { notFound, unavailable } from "../core/errors.js";
import { formatAtomic, UNITS, usdCents, usdCentsToAtomicCeil, type MoneyUnit } from "../core/money.js";
import { tokenMatches } from "../core/tokens.js";
import type { DB, CoinQuotesTable } from "../db/schema.js";
import { withTransaction } from "../db/transaction.js";
import type { Queryable } from "../db/types.js";
import type { Selectable } from "kysely";
import { type ScanSubscriber, type WatchFindings, type WatchDeps, checkCreateWatch, checkTopup, createWatch, creditWatch, CreateWatchInput, type WatchOpening, discardNewWatch } from "../watch/index.js";
// The watch account owns the rows that carry credit (src/watch/account.ts); the watch module has no index.ts face yet.
import { formatRate, type Coin, type RateSource } from "./prices.js";
import { identifyHint, memoTokenOf, newMemoToken, TAG_MODULI, taggedAmountFor, USES_MEMO, type PayChain } from "./pay-id.js";

export type { PayChain } from "./pay-id.js";

/** Coin top-up bounds (US cents): USD 2 to 500. */
export const COIN_TOPUP_MIN_CENTS = 200;
export const COIN_TOPUP_MAX_CENTS = 50_000;
/** How long a quote's rate holds. */
export const QUOTE_TTL_MS = 15 * 60_000;
/** A payment of the exact amount arriving this long after expiresAt still settles; the amount stays reserved until then. */
export const LATE_PAYMENT_GRACE_MS = 24 * 3_600_000;
/** Monero: the tag lives in the amount's last six digits (10^6 piconero = 0.000001 XMR); per chain: TAG_MODULI. */
export const TAG_MODULUS = TAG_MODULI.monero;
/** Attempts at a free tag before 503 quote_collision. */
const TAG_ATTEMPTS = 8;
/** Grace credit of a coin-created watch: about one idle day (the idle rate is 20000 atomic per day). */
export const GRACE_CREDIT = 20_000n;
/** Opening credit of the service wallet's own watch: decades of idle drain and deliveries. */
export const SERVICE_WALLET_CREDIT = 1_000_000_000_000n;

const COIN_OF: Record<PayChain, { coin: Coin; unit: MoneyUnit }> = {
  monero: { coin: "xmr", unit: UNITS.xmr },
  zcash: { coin: "zec", unit: UNITS.zec },
};

export interface CoinWallet {
  address: string;
  viewKey: string;
}

export interface CoinDeps {
  watch: WatchDeps;
  rates: RateSource;
  /** The service's own receiving wallets by chain; a chain without one takes no coin payments. */
  wallets: Partial<Record<PayChain, CoinWallet>>;
  /** Confirmations a payment needs (the scanner's depth: its findings say "confirmed" there). */
  confirmations: Partial<Record<PayChain, number>>;
  /** Where the service wallet's watch posts its webhooks, and whether that URL is the service's own sink. */
  walletWebhook: () => { url: string; ownSink: boolean };
}

export interface CoinCtx {
  deps: CoinDeps;
  db: Queryable;
}

export const QuoteStatusSchema = z.enum(["pending", "confirming", "settled", "expired", "cancelled"]);

export const QuoteSchema = z.object({
  quoteId: z.string(),
  watchId: z.string(),
  chain: z.enum(["monero", "zcash"]),
  status: QuoteStatusSchema,
  payTo: z.string(),
  amount: z.object({ atomic: z.string(), display: z.string(), coin: z.string() }),
  memo: z.string().nullable(),
  credit: z.object({ usdCents: z.number().int(), atomic: z.string() }),
  rate: z.object({ usdPerCoin: z.string() }),
  confirmations: z.number().int(),
  seenTxid: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  settledAt: z.string().nullable(),
  instructions: z.string(),
});
export type QuoteView = z.infer<typeof QuoteSchema>;

function walletFor(deps: CoinDeps, chain: PayChain): CoinWallet {
  const w = deps.wallets[chain];
  if (!w || !deps.watch.scanners[chain]) {
    throw unavailable("coin_payments_not_configured", `This service takes no ${chain} payments (no receiving wallet or no scanner for it).`);
  }
  return w;
}

/** The exact amount of a quote: at least `base`, rounded up to a whole TAG_MODULUS, plus `tag` (1..TAG_MODULUS−1). */
export function taggedAmount(base: bigint, tag: bigint): bigint {
  return taggedAmountFor("monero", base, tag);
}

type QuoteRow = Selectable<CoinQuotesTable>;

export function quoteView(q: QuoteRow, nowMs: number): QuoteView {
  const chain = q.chain;
  const { unit } = COIN_OF[chain];
  const amount = BigInt(q.amount_atomic);
  const expiresAt = new Date(q.expires_at);
  const status = q.status === "pending" && nowMs >= expiresAt.getTime() ? "expired" : q.status;
  const display = formatAtomic(amount, unit);
  return {
    quoteId: q.id,
    watchId: q.watch_id,
    chain,
    status,
    payTo: q.pay_to,
    amount: { atomic: amount.toString(), display, coin: unit.symbol },
    memo: q.memo,
    credit: { usdCents: q.usd_cents, atomic: BigInt(q.credit_atomic).toString() },
    rate: { usdPerCoin: formatRate({ num: BigInt(q.rate_num), den: BigInt(q.rate_den) }) },
    confirmations: q.confirmations,
    seenTxid: q.seen_txid,
    createdAt: new Date(q.created_at).toISOString(),
    expiresAt: expiresAt.toISOString(),
    settledAt: q.settled_at ? new Date(q.settled_at).toISOString() : null,
    instructions:
      `Send exactly ${display} ${unit.symbol} to ${q.pay_to} in one payment before ${expiresAt.toISOString()}. ` +
      `${identifyHint(chain, q.memo, "quote")} ` +
      `The credit lands after ${q.confirmations} confirmations.`,
  };
}

/**
 * The watch of the service's receiving wallet, created on first use (its
 * birthday is the chain tip then: payments for quotes come later).
 */
async function ensureServiceWallet(ctx: CoinCtx, chain: PayChain): Promise<void> {
  const wallet = walletFor(ctx.deps, chain);
  const known = await ctx.db.selectFrom("coin_wallets").select("watch_id").where("chain", "=", chain).where("address", "=", wallet.address).executeTakeFirst();
  // A watch that was retired or removed is replaced, scanning again from where the old one started.
  let birthdayHeight: number | undefined;
  if (known) {
    const w = await ctx.db.selectFrom("watches").select(["status", "start_height"]).where("id", "=", known.watch_id).executeTakeFirst();
    if (w?.status === "active") return;
    birthdayHeight = w?.start_height;
    ctx.deps.watch.log.error({ chain, watchId: known.watch_id, status: w?.status ?? "deleted" }, "the service wallet's watch is not active: replacing it");
    await ctx.db.deleteFrom("coin_wallets").where("chain", "=", chain).where("address", "=", wallet.address).execute();
  }
  const hook = ctx.deps.walletWebhook();
  // The service's own sink may be on a private or plain-HTTP address (PUBLIC_URL unset): it is ours, not a user's URL.
  const watchDeps: WatchDeps = hook.ownSink ? { ...ctx.deps.watch, urlPolicy: { allowHttp: true, allowPrivate: true } } : ctx.deps.watch;
  await withTransaction(ctx.db, async (trx) => {
    const created = await createWatch({
      ctx: { deps: watchDeps, db: trx },
      input: { chain, address: wallet.address, viewKey: wallet.viewKey, webhookUrl: hook.url, ...(birthdayHeight !== undefined ? { birthdayHeight } : {}) },
      opening: { creditAtomic: SERVICE_WALLET_CREDIT, funding: "service" },
    });
    const inserted = await trx
      .insertInto("coin_wallets")
      .values({ chain, address: wallet.address, watch_id: created.watchId })
      .onConflict((oc) => oc.columns(["chain", "address"]).doNothing())
      .returning("watch_id")
      .executeTakeFirst();
    // Another request created it at the same moment: drop ours.
    if (!inserted) await discardNewWatch(trx, created.watchId);
  });
}

interface NewQuote {
  watchId: string;
  purpose: "topup" | "watch-crypto";
  chain: PayChain;
  usdCents: number;
}

/** The rate and amount of a quote, fetched before any transaction (an upstream call). */
async function priceQuote(deps: CoinDeps, chain: PayChain, cents: number) {
  const { coin, unit } = COIN_OF[chain];
  const { rate } = await deps.rates.usdRate(coin);
  return { rate, base: usdCentsToAtomicCeil(BigInt(cents), unit, rate) };
}

/** Inserts a quote with a free tag (in the caller's transaction). */
async function insertQuote(trx: Queryable, deps: CoinDeps, q: NewQuote, priced: Awaited<ReturnType<typeof priceQuote>>): Promise<QuoteRow> {
  const wallet = walletFor(deps, q.chain);
  const nowMs = deps.watch.clock.now();
  const now = new Date(nowMs);
  // Quotes past their late-payment grace give their amounts back.
  await trx
    .updateTable("coin_quotes")
    .set({ status: "expired" })
    .where("pay_to", "=", wallet.address)
    .where("status", "=", "pending")
    .where("reserved_until", "<=", now)
    .execute();
  const expiresAt = new Date(nowMs + QUOTE_TTL_MS);
  for (let attempt = 0; attempt < TAG_ATTEMPTS; attempt++) {
    const amount = taggedAmountFor(q.chain, priced.base, BigInt(randomInt(1, Number(TAG_MODULI[q.chain]))));
    const row = await trx
      .insertInto("coin_quotes")
      .values({
        id: randomUUID(),
        watch_id: q.watchId,
        purpose: q.purpose,
        chain: q.chain,
        pay_to: wallet.address,
        amount_atomic: amount.toString(),
        memo: USES_MEMO[q.chain] ? newMemoToken() : null,
        usd_cents: q.usdCents,
        credit_atomic: usdCents(q.usdCents).toString(),
        rate_num: priced.rate.num.toString(),
        rate_den: priced.rate.den.toString(),
        confirmations: deps.confirmations[q.chain] ?? 1,
        seen_txid: null,
        seen_index: null,
        seen_at: null,
        settled_at: null,
        credited_atomic: null,
        expires_at: expiresAt,
        reserved_until: new Date(expiresAt.getTime() + LATE_PAYMENT_GRACE_MS),
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["pay_to", "amount_atomic"]).where("status", "in", ["pending", "confirming"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row) return row;
  }
  throw unavailable("quote_collision", "No free amount tag was found for this quote; retry shortly.");
}

export const TopupCryptoInput = z.object({
  watchId: z.string().uuid(),
  watchToken: z.string().min(1).max(256),
  chain: z.enum(["monero", "zcash"]).default("monero"),
  amountUsdCents: z
    .number()
    .int()
    .min(COIN_TOPUP_MIN_CENTS, `amountUsdCents must be at least ${COIN_TOPUP_MIN_CENTS} (USD 2)`)
    .max(COIN_TOPUP_MAX_CENTS, `amountUsdCents must be at most ${COIN_TOPUP_MAX_CENTS} (USD 500)`),
});
export type TopupCryptoInput = z.infer<typeof TopupCryptoInput>;

/** A quote for a top-up of an existing watch, paid in coin. */
export async function createTopupQuote({ ctx, input }: { ctx: CoinCtx; input: TopupCryptoInput }): Promise<QuoteView> {
  const { deps } = ctx;
  walletFor(deps, input.chain);
  await checkTopup({ ctx: { deps: deps.watch, db: ctx.db }, input });
  const priced = await priceQuote(deps, input.chain, input.amountUsdCents);
  await ensureServiceWallet(ctx, input.chain);
  const row = await withTransaction(ctx.db, (trx) =>
    insertQuote(trx, deps, { watchId: input.watchId, purpose: "topup", chain: input.chain, usdCents: input.amountUsdCents }, priced),
  );
  return quoteView(row, deps.watch.clock.now());
}

/** A quote as its watch's token holder sees it; an unknown quote and a wrong token get the same 404. */
export async function getQuote({ ctx, input }: { ctx: CoinCtx; input: { quoteId: string; watchToken?: string | undefined } }): Promise<QuoteView> {
  const row = await ctx.db.selectFrom("coin_quotes").selectAll().where("id", "=", input.quoteId).executeTakeFirst();
  const w = row ? await ctx.db.selectFrom("watches").select(["token_hash", "status"]).where("id", "=", row.watch_id).executeTakeFirst() : undefined;
  if (!row || !w || !tokenMatches(input.watchToken, w.token_hash)) throw notFound("quote_not_found", "No quote by this id belongs to a watch with this token.");
  return quoteView(row, ctx.deps.watch.clock.now());
}

export const WatchCryptoInput = z.object({
  chain: z.enum(["monero", "zcash"]),
  address: z.string().trim().min(1).max(512),
  viewKey: z.string().trim().min(1).max(2048),
  webhookUrl: z.string().trim().min(1).max(2048),
  birthdayHeight: z.number().int().min(0).max(100_000_000).optional(),
  subaddressLookahead: CreateWatchInput.shape.subaddressLookahead,
  invoiceAccount: CreateWatchInput.shape.invoiceAccount,
  payWith: z.enum(["monero", "zcash"]).optional(),
  amountUsdCents: z
    .number()
    .int()
    .min(COIN_TOPUP_MIN_CENTS, `amountUsdCents must be at least ${COIN_TOPUP_MIN_CENTS} (USD 2)`)
    .max(COIN_TOPUP_MAX_CENTS, `amountUsdCents must be at most ${COIN_TOPUP_MAX_CENTS} (USD 500)`)
    .optional(),
});
export type WatchCryptoInput = z.infer<typeof WatchCryptoInput>;

export const COIN_OPENING: WatchOpening = { creditAtomic: GRACE_CREDIT, funding: "coin" };

/**
 * Creates a watch live at once on grace credit, with a quote for its credit
 * in coin (paying with the watched chain unless `payWith` says otherwise).
 * Everything that can be refused is checked before anything is written.
 */
export async function createCoinWatch({ ctx, input }: { ctx: CoinCtx; input: WatchCryptoInput }) {
  const { deps } = ctx;
  const payWith = input.payWith ?? input.chain;
  const cents = input.amountUsdCents ?? COIN_TOPUP_MIN_CENTS;
  walletFor(deps, payWith);
  const watchInput: CreateWatchInput = {
    chain: input.chain,
    address: input.address,
    viewKey: input.viewKey,
    webhookUrl: input.webhookUrl,
    ...(input.birthdayHeight !== undefined ? { birthdayHeight: input.birthdayHeight } : {}),
    ...(input.subaddressLookahead !== undefined ? { subaddressLookahead: input.subaddressLookahead } : {}),
    ...(input.invoiceAccount !== undefined ? { invoiceAccount: input.invoiceAccount } : {}),
  };
  await checkCreateWatch({ ctx: { deps: deps.watch, db: ctx.db }, input: watchInput });
  const priced = await priceQuote(deps, payWith, cents);
  await ensureServiceWallet(ctx, payWith);
  return withTransaction(ctx.db, async (trx) => {
    const watch = await createWatch({ ctx: { deps: deps.watch, db: trx }, input: watchInput, opening: COIN_OPENING });
    const quote = quoteView(await insertQuote(trx, deps, { watchId: watch.watchId, purpose: "watch-crypto", chain: payWith, usdCents: cents }, priced), deps.watch.clock.now());
    return {
      ...watch,
      payment: { quoteId: quote.quoteId, payTo: quote.payTo, amount: quote.amount, memo: quote.memo, confirmations: quote.confirmations, expiresAt: quote.expiresAt },
      quoteEndpoint: `/v1/private/topup-crypto/${quote.quoteId}`,
    };
  });
}

/** What the info guide says under `crypto_topup` (and whether the snippets guide offers paying in coin). */
export function cryptoTopupOffer(deps: Pick<CoinDeps, "wallets" | "watch">) {
  const chains = (Object.keys(deps.wallets) as PayChain[]).filter((c) => deps.watch.scanners[c]);
  return {
    available: chains.length > 0,
    min_usd_cents: COIN_TOPUP_MIN_CENTS,
    max_usd_cents: COIN_TOPUP_MAX_CENTS,
    note:
      chains.length > 0
        ? `Pay in ${chains.join(", ")}: POST /v1/private/topup-crypto for a quote (rate locked ${QUOTE_TTL_MS / 60_000} minutes), or POST /v1/private/watch-crypto to create a watch on grace credit with its quote; send the exact amount; the credit lands after the quote's confirmations.`
        : "Top-ups paid in XMR/ZEC are not offered by this deployment (no receiving wallet configured).",
  };
}

// ---------------------------------------------------------------------------
// Settlement: the scan subscriber.

type Out = WatchFindings["new"][number];

async function recordReceipt(
  trx: Transaction<DB>,
  chain: string,
  address: string,
  o: Out,
  disposition: Selectable<DB["coin_receipts"]>["disposition"],
  quoteId: string | null,
  note: string | null,
  now: Date,
) {
  await trx
    .insertInto("coin_receipts")
    .values({
      chain,
      txid: o.txid,
      output_index: o.index,
      address,
      amount_atomic: o.amountAtomic,
      quote_id: quoteId,
      disposition,
      note,
      first_seen_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["chain", "txid", "output_index"]).doUpdateSet({ quote_id: quoteId, disposition, note, updated_at: now }))
    .execute();
}

/** What the subscriber did, for logs and tests. */
export interface SettleLog {
  matched: number;
  unmatched: number;
  settled: number;
  reorged: number;
}

/**
 * The subscriber that settles coin quotes. Idempotent on (txid, index): the
 * tick may hand it the same findings again after a rolled-back batch.
 */
export function coinQuoteSubscriber(deps: CoinDeps): ScanSubscriber {
  return {
    name: "coin-quotes",
    onScan: async (trx, found) => {
      const ids = found.map((f) => f.watchId);
      const mine = await trx.selectFrom("coin_wallets").select(["watch_id", "chain", "address"]).where("watch_id", "in", ids).execute();
      if (mine.length === 0) return;
      const byWatch = new Map(mine.map((m) => [m.watch_id, m]));
      for (const f of found) {
        const wallet = byWatch.get(f.watchId);
        if (!wallet) continue;
        await settleFindings(trx, deps, wallet.chain, wallet.address, f);
      }
    },
  };
}

async function settleFindings(trx: Transaction<DB>, deps: CoinDeps, chain: string, address: string, f: WatchFindings): Promise<SettleLog> {
  const log: SettleLog = { matched: 0, unmatched: 0, settled: 0, reorged: 0 };
  const nowMs = deps.watch.clock.now();
  const now = new Date(nowMs);
  const findSeen = (o: Out) =>
    trx.selectFrom("coin_quotes").selectAll().where("seen_txid", "=", o.txid).where("seen_index", "=", o.index).where("pay_to", "=", address).forUpdate().executeTakeFirst();

  for (const o of f.new) {
    const already = await findSeen(o);
    if (already && already.status !== "pending") continue; // told again: nothing new
    const open = () =>
      trx.selectFrom("coin_quotes").selectAll().where("pay_to", "=", address).where("chain", "=", chain as PayChain).where("status", "=", "pending").where("reserved_until", ">", now);
    // Zcash: the memo token names the quote; a payment of less than it asks is not matched (and is kept as unmatched).
    const token = USES_MEMO[chain as PayChain] ? memoTokenOf(o.memo) : null;
    const byMemo = token ? await open().where("memo", "=", token).forUpdate().executeTakeFirst() : undefined;
    if (byMemo && BigInt(o.amountAtomic) < BigInt(byMemo.amount_atomic)) {
      log.unmatched++;
      deps.watch.log.warn({ chain, txid: o.txid, index: o.index, quoteId: byMemo.id }, "coin payment carries a quote's memo but less than its amount");
      await recordReceipt(trx, chain, address, o, "unmatched", byMemo.id, `carries the memo of quote ${byMemo.id} but less than its amount ${byMemo.amount_atomic}`, now);
      continue;
    }
    const quote = byMemo ?? (await open().where("amount_atomic", "=", o.amountAtomic).forUpdate().executeTakeFirst());
    if (!quote) {
      log.unmatched++;
      deps.watch.log.warn({ chain, txid: o.txid, index: o.index, amountAtomic: o.amountAtomic }, "coin payment matches no open quote");
      await recordReceipt(trx, chain, address, o, "unmatched", null, token ? "no open quote has this memo or asks for this exact amount" : "no open quote asks for this exact amount", now);
      continue;
    }
    log.matched++;
    await trx
      .updateTable("coin_quotes")
      .set({ status: "confirming", seen_txid: o.txid, seen_index: o.index, seen_at: now })
      .where("id", "=", quote.id)
      .execute();
    await recordReceipt(trx, chain, address, o, "matched", quote.id, null, now);
  }

  for (const o of f.confirmed) {
    const quote = await findSeen(o);
    if (!quote || quote.status !== "confirming") continue;
    const credit = BigInt(quote.credit_atomic);
    const credited = await creditWatch({
      ctx: { deps: deps.watch, db: trx, paymentRef: `${chain}:${o.txid}:${o.index}` },
      input: { watchId: quote.watch_id, amountAtomic: credit, reason: `top-up paid in ${chain} (quote ${quote.id})` },
    });
    await trx
      .updateTable("coin_quotes")
      .set({ status: credited ? "settled" : "cancelled", settled_at: now, credited_atomic: credited ? credit.toString() : "0" })
      .where("id", "=", quote.id)
      .execute();
    if (credited) log.settled++;
    else {
      deps.watch.log.warn({ quoteId: quote.id, watchId: quote.watch_id, txid: o.txid }, "coin payment confirmed for a watch that can take no credit");
      await recordReceipt(trx, chain, address, { ...o }, "watch_gone", quote.id, "the quote's watch was cancelled, retired or deleted before the payment confirmed", now);
    }
  }

  for (const o of f.reorged) {
    log.reorged++;
    const quote = await findSeen(o);
    if (quote?.status === "confirming") {
      // Back to waiting: the same transaction mined again (or another payment of the amount) matches again.
      await trx
        .updateTable("coin_quotes")
        .set({ status: "pending", seen_txid: null, seen_index: null, seen_at: null })
        .where("id", "=", quote.id)
        .execute();
      await recordReceipt(trx, chain, address, o, "reorged", quote.id, "left the chain while confirming; the quote waits again", now);
    } else if (quote?.status === "settled") {
      deps.watch.log.error({ quoteId: quote.id, txid: o.txid }, "a settled coin payment was reorged out of the chain; the credit stays");
      await recordReceipt(trx, chain, address, o, "reorged_after_settlement", quote.id, "left the chain after settlement; the credit was not taken back", now);
    } else {
      await recordReceipt(trx, chain, address, o, "reorged", null, "left the chain", now);
    }
  }
  return log;
}
