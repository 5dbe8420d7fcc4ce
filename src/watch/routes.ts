/**
 * Private Watch routes: the module's whole HTTP surface under /v1/private.
 * Each handler adapts one operation of service.ts (one line); the output
 * schemas say exactly what those operations return, so OpenAPI and MCP
 * publish real shapes. The info guide's prices and top-up list are read off
 * these RouteDefs, never typed again.
 */
import { z } from "zod";
import { defineRoute, priceLabel, usdCents, type AnyRouteDef, type RequestContext } from "../http/route-table.js";
import { formatUsd } from "../core/money.js";
import { SnippetsGuideSchema, snippetsGuide, SNIPPET_LANGUAGES } from "../webhooks/snippets.js";
import { CREATE_CREDIT } from "./meter.js";
import { CUSTOM_TOPUP_MAX, CUSTOM_TOPUP_MIN, CUSTOM_TOPUP_PATH, FIXED_TOPUPS, type FixedTopupOffer } from "./topups.js";
import { deriveViewkeyRouteFor } from "./derive-viewkey-route.js";
import type { ZcashNetwork } from "../chains/zcash/network.js";
import { customTopupExample, topupExample, WATCH_CREATE_INPUT_EXAMPLE, WATCH_CREATE_OUTPUT_EXAMPLE } from "./examples.js";
import { historicalRoute, type HistoricalScans } from "./historical-route.js";
import { describeWatchProduct, WatchGuideSchema, type WatchGuide, type WatchGuidePrices } from "./guide.js";
import {
  cancelWatch,
  checkCreateWatch,
  checkTopup,
  countWatches,
  createWatch,
  CreateWatchInput,
  getWatchStatus,
  sendTestEvent,
  topupWatch,
  updateWatch,
  UpdateWatchInput,
  USDC_OPENING,
  WatchAuthInput,
  type WatchCtx,
} from "./service.js";
import type { WatchDeps } from "./deps.js";
import { SubaddressSettingsSchema } from "./subaddresses.js";

/** The spec's credit block (every webhook body and the status view). */
export const CreditBlockSchema = z.object({
  remaining_atomic: z.string(),
  remaining_usd: z.string(),
  days_remaining: z.number(),
  low_credit: z.boolean(),
  rate_per_day_atomic: z.string(),
  rate_per_call_atomic: z.string(),
  low_credit_threshold_atomic: z.string(),
});

/** A chain's balance view; chains add their own fields (outputs, heights), hence open. */
const BalanceSnapshotSchema = z
  .object({ balanceAtomic: z.string(), pendingAtomic: z.string(), scannedHeight: z.number() })
  .passthrough();

const WatchIdToken = z.object({ id: z.string().uuid(), watchToken: z.string().max(256).optional() });

/** What creating a watch answers (paid create, and the coin-created watch with its payment on top). */
export const WatchCreateOutput = z.object({
  watchId: z.string(),
  watchToken: z.string(),
  webhookSecret: z.string(),
  chain: z.string(),
  network: z.string(),
  address: z.string(),
  startHeight: z.number().int(),
  expiresAt: z.string(),
  creditAtomic: z.string(),
  ratePerDayAtomic: z.string(),
  ratePerCallAtomic: z.string(),
  credit: CreditBlockSchema,
  topupEndpoints: z.array(z.string()),
  testEndpoint: z.string(),
  statusEndpoint: z.string(),
  notice: z.string(),
});

const TopupOutput = z.object({
  watchId: z.string(),
  addedAtomic: z.string(),
  creditAtomic: z.string(),
  expiresAt: z.string(),
  credit: CreditBlockSchema,
  lowCreditRearmed: z.boolean(),
});

const StatusOutput = z.object({
  watchId: z.string(),
  chain: z.string(),
  network: z.string(),
  address: z.string(),
  status: z.enum(["active", "paused", "dead", "cancelled"]),
  credit: CreditBlockSchema,
  lastPolledAt: z.string().nullable(),
  nextPollAt: z.string().nullable(),
  nextPollInSeconds: z.number().int().nullable(),
  deliveryCount: z.number().int(),
  pendingDeliveries: z.number().int(),
  consecutiveFailures: z.number().int(),
  lastEventType: z.string().nullable(),
  lastSnapshot: BalanceSnapshotSchema,
  subaddresses: SubaddressSettingsSchema.nullable().describe("Monero primary-address watches: the look-ahead scanned, the invoice account and the invoice subaddresses handed out; null otherwise"),
  startHeight: z.number().int(),
  initialScanComplete: z.boolean(),
  webhookUrl: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
});

const TestOutput = z.object({
  watchId: z.string(),
  event: z.literal("synthetic_test"),
  nonce: z.string(),
  delivered: z.boolean(),
  receiverStatus: z.number().int().nullable().describe("The receiver's HTTP status; null when it never answered (refused, timed out, blocked)"),
  latencyMs: z.number().int().describe("Time from sending to the receiver's answer (or the failure)"),
  error: z.string().nullable(),
  retried: z.literal(false).describe("A test event is attempted once: never retried, never billed, never counted toward retiring the watch"),
});

const WatchCounters = z.object({
  watches: z.object({
    total: z.number().int(),
    active: z.number().int(),
    paused: z.number().int(),
    dead: z.number().int(),
    cancelled: z.number().int(),
    by_chain: z.record(z.string(), z.number().int()),
  }),
  credit: z.object({
    outstanding_atomic: z.string(),
    ledger: z.record(z.string(), z.object({ total_atomic: z.string(), entries: z.number().int() })),
  }),
  deliveries: z.record(z.string(), z.number().int()),
});

// Top level: merchants' watches only; the service's own coin-wallet watches are counted apart.
const HealthOutput = WatchCounters.extend({
  service_watches: WatchCounters.meta({ description: "The service's own coin receiving wallets' watches (internal credit, not merchants' money)" }),
  chains: z.array(z.string()),
});

export interface WatchRouteOptions {
  /** The service's Zcash network (ZCASH_NETWORK): derive-viewkey's default network. */
  zcashNetwork: ZcashNetwork;
  /** Historical scans by chain; an absent chain answers 503 chain_not_configured. */
  historical: HistoricalScans;
  /** Paying in coin, as the coin module offers it (absent: not offered); shown by the info and snippets guides. */
  cryptoTopup?: WatchGuide["crypto_topup"];
  /** The x402 network the paywall asks for (X402_NETWORK): the snippets guide names it. */
  paymentNetwork?: string;
  /** Checkout, as the checkout module offers it (absent: not offered); shown by the snippets guide. */
  checkout?: { available: boolean; events: string[]; note: string };
}

/** Turns a request into the watch operations' context (the x402 nonce is the payment's reference). */
type WatchCtxOf = (ctx: RequestContext) => WatchCtx;

function watchCtxOf(deps: WatchDeps): WatchCtxOf {
  return (ctx) => ({ deps, db: ctx.db, paymentRef: ctx.payment?.nonce ?? null, callId: ctx.requestId });
}

/** Every /v1/private route: watch operations, the historical scan and the Zcash key derivation. */
export function watchRoutes(deps: WatchDeps, opts: WatchRouteOptions): AnyRouteDef[] {
  const ctxOf = watchCtxOf(deps);
  const createRoute = watchCreateRoute(ctxOf);
  const topupRoutes: AnyRouteDef[] = [...FIXED_TOPUPS.map((offer) => fixedTopupRoute(ctxOf, offer)), customTopupRoute(ctxOf)];
  const historical = historicalRoute(opts.historical);
  const prices = guidePrices(createRoute, topupRoutes, historical);

  return [
    createRoute,
    ...topupRoutes,
    statusRoute(ctxOf),
    updateRoute(ctxOf),
    cancelRoute(ctxOf),
    testRoute(ctxOf),
    infoRoute(deps, opts, prices, topupRoutes),
    healthRoute(ctxOf),
    snippetsRoute(opts),
    historical,
    deriveViewkeyRouteFor(opts.zcashNetwork),
  ];
}

function watchCreateRoute(ctxOf: WatchCtxOf) {
  return defineRoute({
    method: "POST",
    path: "/v1/private/watch",
    operationId: "privateWatchCreate",
    summary: "Create a Private Watch: scan an address with its view key and POST signed webhooks on balance changes",
    description:
      "The $0.10 fee is the opening credit. Address and view key are checked (a key that does not belong to the address is a 400) and the webhook URL is vetted before any payment is asked for. `durationDays` is accepted and ignored.",
    tags: ["private-watch"],
    mcpTool: "service_private_watch_create",
    input: CreateWatchInput,
    output: WatchCreateOutput,
    price: CREATE_CREDIT,
    example: { input: WATCH_CREATE_INPUT_EXAMPLE, output: WATCH_CREATE_OUTPUT_EXAMPLE },
    precheck: async (input, ctx) => void (await checkCreateWatch({ ctx: ctxOf(ctx), input })),
    handler: (input, ctx) => createWatch({ ctx: ctxOf(ctx), input, opening: USDC_OPENING }),
  });
}

function fixedTopupRoute(ctxOf: WatchCtxOf, offer: FixedTopupOffer) {
  return defineRoute({
    method: "POST",
    path: offer.path,
    operationId: offer.operationId,
    summary: `Add ${formatUsd(usdCents(offer.cents))} of credit to a watch (about ${offer.idleDays} idle days)`,
    tags: ["private-watch"],
    ...(offer.mcpTool ? { mcpTool: offer.mcpTool } : {}),
    input: WatchAuthInput,
    output: TopupOutput,
    price: usdCents(offer.cents),
    example: topupExample(usdCents(offer.cents)),
    precheck: (input, ctx) => checkTopup({ ctx: ctxOf(ctx), input }),
    handler: (input, ctx) => topupWatch({ ctx: ctxOf(ctx), input: { ...input, amountAtomic: usdCents(offer.cents) } }),
  });
}

function customTopupRoute(ctxOf: WatchCtxOf) {
  return defineRoute({
    method: "POST",
    path: CUSTOM_TOPUP_PATH,
    operationId: "privateTopupCustom",
    summary: "Add a chosen amount of credit ($0.10 to $25, priced from amountAtomic)",
    tags: ["private-watch"],
    input: WatchAuthInput.extend({
      amountAtomic: z
        .union([z.string().regex(/^\d{1,12}$/), z.number().int().nonnegative()])
        .meta({ examples: ["250000"] })
        .transform((v) => BigInt(v))
        .refine((v) => v >= CUSTOM_TOPUP_MIN && v <= CUSTOM_TOPUP_MAX, {
          message: `amountAtomic must be between ${CUSTOM_TOPUP_MIN} and ${CUSTOM_TOPUP_MAX} (USD 0.10 to 25)`,
        }),
    }),
    output: TopupOutput,
    price: (input) => input.amountAtomic,
    priceRange: { min: CUSTOM_TOPUP_MIN, max: CUSTOM_TOPUP_MAX },
    example: customTopupExample(250_000n),
    precheck: (input, ctx) => checkTopup({ ctx: ctxOf(ctx), input }),
    handler: (input, ctx) => topupWatch({ ctx: ctxOf(ctx), input }),
  });
}

function statusRoute(ctxOf: WatchCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/private/watch/:id",
    operationId: "privateWatchStatus",
    summary: "Watch status: credit block, last poll, deliveries, last event, last balance snapshot, time to next poll",
    tags: ["private-watch"],
    mcpTool: "service_private_watch_status",
    input: WatchIdToken,
    headerInputs: { "x-watch-token": "watchToken" },
    output: StatusOutput,
    handler: (input, ctx) => getWatchStatus({ ctx: ctxOf(ctx), input }),
  });
}

function updateRoute(ctxOf: WatchCtxOf) {
  return defineRoute({
    method: "PATCH",
    path: "/v1/private/watch/:id",
    operationId: "privateWatchUpdate",
    summary: "Change a Monero watch's subaddress look-ahead or the account its invoice subaddresses come from",
    description:
      "Free. `subaddressLookahead` (accounts × minors, at most a wallet's 50 × 200; null: the server's default) applies to the blocks scanned from the next tick on: payments made earlier to subaddresses it newly covers are found by a historical scan. Invoice subaddresses already handed out stay scanned whatever it becomes.",
    tags: ["private-watch"],
    mcpTool: "service_private_watch_update",
    input: UpdateWatchInput,
    headerInputs: { "x-watch-token": "watchToken" },
    output: z.object({ watchId: z.string(), subaddresses: SubaddressSettingsSchema }),
    handler: (input, ctx) => updateWatch({ ctx: ctxOf(ctx), input }),
  });
}

function cancelRoute(ctxOf: WatchCtxOf) {
  return defineRoute({
    method: "DELETE",
    path: "/v1/private/watch/:id",
    operationId: "privateWatchCancel",
    summary: "Cancel a watch; the remaining credit is forfeited",
    tags: ["private-watch"],
    mcpTool: "service_private_watch_cancel",
    input: WatchIdToken,
    headerInputs: { "x-watch-token": "watchToken" },
    output: z.object({ watchId: z.string(), status: z.literal("cancelled"), forfeitedAtomic: z.string() }),
    handler: (input, ctx) => cancelWatch({ ctx: ctxOf(ctx), input }),
  });
}

function testRoute(ctxOf: WatchCtxOf) {
  return defineRoute({
    method: "POST",
    path: "/v1/private/watch/:id/test",
    operationId: "privateWatchTest",
    summary: "Send one synthetic signed webhook (event synthetic_test, not billed) now and report how the receiver answered",
    description:
      "Attempted exactly once, synchronously: the answer carries the receiver's status, the latency and the error. A test event is never retried, never billed and never counted toward the 50 consecutive failures that retire a watch.",
    tags: ["private-watch"],
    mcpTool: "service_private_watch_test",
    input: WatchIdToken,
    headerInputs: { "x-watch-token": "watchToken" },
    rateLimit: { points: 10, windowSeconds: 60 },
    output: TestOutput,
    handler: (input, ctx) => sendTestEvent({ ctx: ctxOf(ctx), input }),
  });
}

/** The product guide: its prices and top-up list come from the routes themselves. */
function infoRoute(deps: WatchDeps, opts: WatchRouteOptions, prices: WatchGuidePrices, topupRoutes: readonly AnyRouteDef[]) {
  return defineRoute({
    method: "GET",
    path: "/v1/private/info",
    operationId: "privateWatchInfo",
    summary: "Private Watch product guide: prices, webhook signatures, top-ups, lifecycle",
    tags: ["private-watch"],
    mcpTool: "service_private_watch_info",
    input: z.object({}),
    output: WatchGuideSchema,
    handler: async () => describeWatchProduct(deps, { prices, topupPaths: topupRoutes.map((r) => r.path), cryptoTopup: opts.cryptoTopup }),
  });
}

function healthRoute(ctxOf: WatchCtxOf) {
  return defineRoute({
    method: "GET",
    path: "/v1/private/health",
    operationId: "privateWatchHealth",
    summary: "Private Watch counters: watches by state, credit aggregates, deliveries",
    tags: ["private-watch"],
    input: z.object({}),
    output: HealthOutput,
    handler: (_input, ctx) => countWatches({ ctx: ctxOf(ctx) }),
  });
}

function snippetsRoute(opts: WatchRouteOptions) {
  return defineRoute({
    method: "GET",
    path: "/v1/private/snippets",
    operationId: "privateWatchSnippets",
    summary: "Webhook receiver snippets (Node, Python, PHP) that verify the signature, plus create/test instructions",
    tags: ["private-watch"],
    input: z.object({ lang: z.enum(SNIPPET_LANGUAGES).optional() }),
    output: SnippetsGuideSchema,
    handler: async (input, ctx) =>
      snippetsGuide(
        ctx.baseUrl,
        input.lang,
        opts.cryptoTopup?.available ? { available: true, note: opts.cryptoTopup.note } : undefined,
        opts.checkout,
        opts.paymentNetwork,
      ),
  });
}

/** The guide's price list, read off the routes: a price changes in one place. */
function guidePrices(create: AnyRouteDef, topups: readonly AnyRouteDef[], historical: AnyRouteDef): WatchGuidePrices {
  const label = (r: AnyRouteDef): string => {
    // A range reads "$0.10 to $25.00 (amountAtomic)" in the guide: the field the price follows.
    if (r.priceRange) return `${formatUsd(r.priceRange.min)} to ${formatUsd(r.priceRange.max)} (amountAtomic)`;
    return priceLabel(r) ?? "free";
  };
  const lastSegment = (r: AnyRouteDef) => r.path.slice(r.path.lastIndexOf("/") + 1);
  return {
    create: `${label(create)} (becomes the opening credit)`,
    ...Object.fromEntries(topups.map((r) => [lastSegment(r), label(r)])),
    [lastSegment(historical)]: label(historical),
  };
}
