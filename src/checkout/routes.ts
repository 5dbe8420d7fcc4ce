/**
 * Paying in coin, over HTTP: the top-up quote, its status, the coin-created
 * watch, and the sink the service wallet's own watch posts its webhooks to.
 * Each handler adapts one operation of quotes.ts.
 */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import type { Queryable } from "../db/types.js";
import { WatchCreateOutput } from "../watch/index.js";
import { createCoinWatch, createTopupQuote, getQuote, QuoteSchema, TopupCryptoInput, WatchCryptoInput, type CoinDeps } from "./quotes.js";

/** The path the service wallet's watch delivers to when COIN_WEBHOOK_URL is not set. */
export const SERVICE_WALLET_SINK_PATH = "/v1/private/coin-wallet/events";

const MoneyAmount = z.object({ atomic: z.string(), display: z.string(), coin: z.string() });

const CoinWatchOutput = WatchCreateOutput.extend({
  payment: z.object({
    quoteId: z.string(),
    payTo: z.string(),
    amount: MoneyAmount,
    memo: z.string().nullable(),
    confirmations: z.number().int(),
    expiresAt: z.string(),
  }),
  quoteEndpoint: z.string(),
});

export function coinRoutes(deps: CoinDeps): AnyRouteDef[] {
  const ctxOf = (db: Queryable) => ({ deps, db });
  return [
    defineRoute({
      method: "POST",
      path: "/v1/private/topup-crypto",
      operationId: "coinTopupQuote",
      summary: "Quote a watch top-up paid in XMR (USD 2 to 500): send the exact amount to payTo; the credit lands after the stated confirmations",
      description:
        "Free. The USD rate is locked for 15 minutes. Monero quotes are told apart by the amount's last six digits: send exactly `amount.atomic` piconero in one payment. Poll GET /v1/private/topup-crypto/{quoteId}.",
      tags: ["private-watch"],
      mcpTool: "service_private_watch_topup_crypto",
      input: TopupCryptoInput,
      output: QuoteSchema,
      successStatus: 201,
      handler: (input, ctx) => createTopupQuote({ ctx: ctxOf(ctx.db), input }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/private/topup-crypto/:quoteId",
      operationId: "coinTopupQuoteStatus",
      summary: "A coin top-up quote: pending → confirming → settled (or expired)",
      tags: ["private-watch"],
      input: z.object({ quoteId: z.string().uuid(), watchToken: z.string().max(256).optional() }),
      headerInputs: { "x-watch-token": "watchToken" },
      output: QuoteSchema,
      handler: (input, ctx) => getQuote({ ctx: ctxOf(ctx.db), input }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/private/watch-crypto",
      operationId: "coinWatchCreate",
      summary: "Create a watch paid in coin: live at once on about one day of grace credit, with a quote whose payment buys its credit",
      description:
        "Free; rate-limited per IP. `payWith` defaults to the watched chain, `amountUsdCents` to the minimum (200). An unpaid watch stops when its grace credit runs out, like any watch at zero.",
      tags: ["private-watch"],
      input: WatchCryptoInput,
      output: CoinWatchOutput,
      successStatus: 201,
      rateLimit: { points: 3, windowSeconds: 60 },
      handler: (input, ctx) => createCoinWatch({ ctx: ctxOf(ctx.db), input }),
    }),
    defineRoute({
      method: "POST",
      path: SERVICE_WALLET_SINK_PATH,
      operationId: "coinWalletEvents",
      summary: "Receives the webhooks of the service's own receiving wallet's watch (acknowledged, nothing else)",
      tags: ["private-watch"],
      input: z.object({}).passthrough(),
      output: z.object({ received: z.literal(true) }),
      handler: async () => ({ received: true as const }),
    }),
  ];
}
