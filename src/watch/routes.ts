/** Private Watch routes: thin adapters over the operations in service.ts. */
import { z } from "zod";
import { defineRoute, usdCents, type RouteDef } from "../http/route-table.js";
import { snippetsGuide, SNIPPET_LANGUAGES } from "../webhooks/snippets.js";
import { SIGNATURE_SCHEME_DESCRIPTION } from "../webhooks/sign.js";
import { HEADER_EVENT, HEADER_SIGNATURE, HEADER_WATCH_ID, MAX_CONSECUTIVE_FAILURES } from "../webhooks/deliver.js";
import { CREATE_CREDIT, IDLE_RATE_PER_DAY, LOW_CREDIT_THRESHOLD, PER_DELIVERY } from "./meter.js";
import { ZERO_CREDIT_GRACE_DAYS } from "./model.js";
import { deliverPending } from "./outbox.js";
import {
  cancelWatch,
  checkCreateWatch,
  checkTopup,
  createWatch,
  CreateWatchInput,
  queueTestEvent,
  topupWatch,
  WatchAuthInput,
  watchCounters,
  watchStatus,
} from "./service.js";
import type { WatchDeps } from "./deps.js";

const CreditBlockSchema = z.object({
  remaining_atomic: z.string(),
  remaining_usd: z.string(),
  days_remaining: z.number(),
  low_credit: z.boolean(),
  rate_per_day_atomic: z.string(),
  rate_per_call_atomic: z.string(),
  low_credit_threshold_atomic: z.string(),
});

const WatchIdToken = z.object({ id: z.string().uuid(), watchToken: z.string().max(256).optional() });

export const CUSTOM_TOPUP_MIN = usdCents(10);
export const CUSTOM_TOPUP_MAX = usdCents(2500);

const TopupOutput = z.object({
  watchId: z.string(),
  addedAtomic: z.string(),
  creditAtomic: z.string(),
  expiresAt: z.string(),
  credit: CreditBlockSchema,
  lowCreditRearmed: z.boolean(),
});

export function watchRoutes(deps: WatchDeps): RouteDef[] {
  const fixedTopup = (path: string, operationId: string, cents: number, days: number): RouteDef =>
    defineRoute({
      method: "POST",
      path,
      operationId,
      summary: `Add $${(cents / 100).toFixed(2)} of credit to a watch (about ${days} idle days)`,
      tags: ["private-watch"],
      ...(operationId === "privateTopup" ? { mcpTool: "service_private_watch_topup" } : {}),
      input: WatchAuthInput,
      output: TopupOutput,
      price: usdCents(cents),
      precheck: (input, ctx) => checkTopup(ctx.db, input),
      handler: (input, ctx) => topupWatch(deps, ctx.db, input, usdCents(cents), ctx.payment?.nonce ?? null),
    });

  return [
    defineRoute({
      method: "POST",
      path: "/v1/private/watch",
      operationId: "privateWatchCreate",
      summary: "Create a Private Watch: scan an address with its view key and POST signed webhooks on balance changes",
      description:
        "The $0.10 fee is the opening credit. Address and view key are checked (a key that does not belong to the address is a 400) and the webhook URL is vetted before any payment is asked for. `durationDays` is accepted and ignored.",
      tags: ["private-watch"],
      mcpTool: "service_private_watch_create",
      input: CreateWatchInput,
      output: z.object({
        watchId: z.string(),
        watchToken: z.string(),
        webhookSecret: z.string(),
        expiresAt: z.string(),
        creditAtomic: z.string(),
        ratePerDayAtomic: z.string(),
        ratePerCallAtomic: z.string(),
        topupEndpoints: z.array(z.string()),
        testEndpoint: z.string(),
      }).passthrough(),
      price: CREATE_CREDIT,
      precheck: async (input) => {
        await checkCreateWatch(deps, input);
      },
      handler: (input, ctx) =>
        createWatch(deps, ctx.db, input, { openingCredit: CREATE_CREDIT, funding: "usdc", paymentRef: ctx.payment?.nonce ?? null }),
    }),
    fixedTopup("/v1/private/topup", "privateTopup", 10, 5),
    fixedTopup("/v1/private/topup-1", "privateTopup1", 100, 50),
    fixedTopup("/v1/private/topup-5", "privateTopup5", 500, 250),
    defineRoute({
      method: "POST",
      path: "/v1/private/topup-custom",
      operationId: "privateTopupCustom",
      summary: "Add a chosen amount of credit ($0.10 to $25, priced from amountAtomic)",
      tags: ["private-watch"],
      input: WatchAuthInput.extend({
        amountAtomic: z
          .union([z.string().regex(/^\d{1,12}$/), z.number().int().nonnegative()])
          .transform((v) => BigInt(v))
          .refine((v) => v >= CUSTOM_TOPUP_MIN && v <= CUSTOM_TOPUP_MAX, {
            message: `amountAtomic must be between ${CUSTOM_TOPUP_MIN} and ${CUSTOM_TOPUP_MAX} (USD 0.10 to 25)`,
          }),
      }),
      output: TopupOutput,
      price: (input) => input.amountAtomic,
      priceRange: { min: CUSTOM_TOPUP_MIN, max: CUSTOM_TOPUP_MAX },
      precheck: (input, ctx) => checkTopup(ctx.db, input),
      handler: (input, ctx) => topupWatch(deps, ctx.db, input, input.amountAtomic, ctx.payment?.nonce ?? null),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/private/watch/:id",
      operationId: "privateWatchStatus",
      summary: "Watch status: credit block, last poll, deliveries, last event, last balance snapshot, time to next poll",
      tags: ["private-watch"],
      mcpTool: "service_private_watch_status",
      input: WatchIdToken,
      headerInputs: { "x-watch-token": "watchToken" },
      output: z.object({ watchId: z.string(), credit: CreditBlockSchema }).passthrough(),
      handler: (input, ctx) => watchStatus(deps, ctx.db, input.id, input.watchToken),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/private/watch/:id",
      operationId: "privateWatchCancel",
      summary: "Cancel a watch; the remaining credit is forfeited",
      tags: ["private-watch"],
      mcpTool: "service_private_watch_cancel",
      input: WatchIdToken,
      headerInputs: { "x-watch-token": "watchToken" },
      output: z.object({ watchId: z.string(), status: z.literal("cancelled"), forfeitedAtomic: z.string() }),
      handler: async (input, ctx) => {
        const r = await ctx.db.transaction().execute((trx) => cancelWatch(deps, trx, input.id, input.watchToken));
        return { ...r, status: "cancelled" as const };
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/private/watch/:id/test",
      operationId: "privateWatchTest",
      summary: "Send one synthetic signed webhook (event synthetic_test, not billed) and report how the receiver answered",
      tags: ["private-watch"],
      mcpTool: "service_private_watch_test",
      input: WatchIdToken,
      headerInputs: { "x-watch-token": "watchToken" },
      rateLimit: { points: 10, windowSeconds: 60 },
      output: z.object({ watchId: z.string(), event: z.string(), nonce: z.string(), delivered: z.boolean() }).passthrough(),
      handler: async (input, ctx) => {
        const queued = await queueTestEvent(deps, ctx.db, input.id, input.watchToken);
        const [outcome] = await deliverPending(deps, input.id, `test:${ctx.requestId}`, { onlyOutboxId: queued.outboxId, maxEvents: 1 });
        return {
          watchId: input.id,
          event: "synthetic_test",
          nonce: queued.nonce,
          delivered: outcome?.ok ?? false,
          receiverStatus: outcome?.status ?? null,
          error: outcome?.ok ? null : (outcome?.error ?? "delivery not attempted; it is retried on the next poll tick"),
        };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/private/info",
      operationId: "privateWatchInfo",
      summary: "Private Watch product guide: prices, webhook signatures, top-ups, lifecycle",
      tags: ["private-watch"],
      mcpTool: "service_private_watch_info",
      input: z.object({}),
      output: z.object({ product: z.string() }).passthrough(),
      handler: async () => ({
        product: "private-watch",
        chains: Object.keys(deps.scanners),
        prices: {
          create: "$0.10 (becomes the opening credit)",
          topup: "$0.10",
          "topup-1": "$1.00",
          "topup-5": "$5.00",
          "topup-custom": "$0.10 to $25.00 (amountAtomic)",
          historical: "$0.50",
        },
        meter: {
          rate_per_day_atomic: IDLE_RATE_PER_DAY.toString(),
          rate_per_call_atomic: PER_DELIVERY.toString(),
          low_credit_threshold_atomic: LOW_CREDIT_THRESHOLD.toString(),
          opening_credit_atomic: CREATE_CREDIT.toString(),
          billing: "Idle drain is billed proportionally at each poll tick; each delivered webhook costs 5000 atomic; synthetic tests are free.",
          expiry: `expiresAt is when idle drain alone would exhaust the credit, plus ${ZERO_CREDIT_GRACE_DAYS} days in which a top-up revives the watch; every credit change moves it.`,
        },
        webhooks: {
          signature: SIGNATURE_SCHEME_DESCRIPTION,
          headers: { signature: HEADER_SIGNATURE, watch_id: HEADER_WATCH_ID, event: HEADER_EVENT },
          events: ["balance_change", "scan_complete", "status_change", "low_credit", "synthetic_test"],
          timeout_seconds: 8,
          response_read_bytes: 4096,
          retry: "A failed delivery is retried on the next poll tick with the same body, nonce and signature.",
          retire_after_consecutive_failures: MAX_CONSECUTIVE_FAILURES,
        },
        topups: {
          usdc: ["POST /v1/private/topup", "POST /v1/private/topup-1", "POST /v1/private/topup-5", "POST /v1/private/topup-custom"],
          auth: "watchId and watchToken in the JSON body",
        },
        crypto_topup: {
          available: false,
          min_usd_cents: 200,
          max_usd_cents: 50000,
          note: "Top-ups paid in XMR/ZEC are not offered by this deployment yet.",
        },
        lifecycle: {
          active: "polled every poll interval while credit remains",
          paused: "credit reached zero: no polling and no deliveries until a top-up",
          dead: `retired after ${MAX_CONSECUTIVE_FAILURES} consecutive failed deliveries`,
          cancelled: "DELETE /v1/private/watch/{id}; remaining credit forfeited",
          expired: "deleted at the first tick after expiresAt",
        },
        poll_interval_seconds: deps.pollSeconds,
        snippets: "/v1/private/snippets",
      }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/private/health",
      operationId: "privateWatchHealth",
      summary: "Private Watch counters: watches by state, credit aggregates, deliveries",
      tags: ["private-watch"],
      input: z.object({}),
      output: z.object({ watches: z.object({}).passthrough() }).passthrough(),
      handler: async (_input, ctx) => ({ ...(await watchCounters(ctx.db)), chains: Object.keys(deps.scanners) }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/private/snippets",
      operationId: "privateWatchSnippets",
      summary: "Webhook receiver snippets (Node, Python, PHP) that verify the signature, plus create/test instructions",
      tags: ["private-watch"],
      input: z.object({ lang: z.enum(SNIPPET_LANGUAGES).optional() }),
      output: z.object({ about: z.string(), languages: z.array(z.string()) }).passthrough(),
      handler: async (input, ctx) => snippetsGuide(ctx.baseUrl, input.lang) as unknown as { about: string; languages: string[] },
    }),
  ];
}
