/**
 * The Private Watch product guide served by GET /v1/private/info. Prices and
 * top-up paths come in from the route table (routes.ts reads them off the
 * RouteDefs); the meter's numbers from meter.ts; the event list from
 * events.ts. Nothing here repeats a value declared elsewhere.
 */
import { z } from "zod";
import { SIGNATURE_SCHEME_DESCRIPTION } from "../webhooks/sign.js";
import {
  DELIVERY_TIMEOUT_MS,
  HEADER_EVENT,
  HEADER_SIGNATURE,
  HEADER_WATCH_ID,
  MAX_CONSECUTIVE_FAILURES,
  MAX_RESPONSE_BYTES,
} from "../webhooks/deliver.js";
import { CREATE_CREDIT, IDLE_RATE_PER_DAY, LOW_CREDIT_THRESHOLD, PER_DELIVERY } from "./meter.js";
import { ZERO_CREDIT_GRACE_DAYS } from "./model.js";
import { WATCH_EVENTS } from "./events.js";
import type { WatchDeps } from "./deps.js";

/** Price label by short route name (create, topup, topup-1, …, historical). */
export type WatchGuidePrices = Record<string, string>;

export const WatchGuideSchema = z.object({
  product: z.literal("private-watch"),
  chains: z.array(z.string()),
  prices: z.record(z.string(), z.string()),
  meter: z.object({
    rate_per_day_atomic: z.string(),
    rate_per_call_atomic: z.string(),
    low_credit_threshold_atomic: z.string(),
    opening_credit_atomic: z.string(),
    billing: z.string(),
    expiry: z.string(),
  }),
  webhooks: z.object({
    signature: z.string(),
    headers: z.object({ signature: z.string(), watch_id: z.string(), event: z.string() }),
    events: z.array(z.enum(WATCH_EVENTS)),
    timeout_seconds: z.number(),
    response_read_bytes: z.number().int(),
    retry: z.string(),
    retire_after_consecutive_failures: z.number().int(),
  }),
  topups: z.object({ usdc: z.array(z.string()), auth: z.string() }),
  crypto_topup: z.object({ available: z.boolean(), min_usd_cents: z.number().int(), max_usd_cents: z.number().int(), note: z.string() }),
  lifecycle: z.object({ active: z.string(), paused: z.string(), dead: z.string(), cancelled: z.string(), expired: z.string() }),
  poll_interval_seconds: z.number(),
  snippets: z.string(),
});
export type WatchGuide = z.infer<typeof WatchGuideSchema>;

export function describeWatchProduct(
  deps: Pick<WatchDeps, "scanners" | "pollSeconds">,
  table: { prices: WatchGuidePrices; topupPaths: readonly string[]; cryptoTopup?: WatchGuide["crypto_topup"] | undefined },
): WatchGuide {
  return {
    product: "private-watch",
    chains: Object.keys(deps.scanners),
    prices: table.prices,
    meter: {
      rate_per_day_atomic: IDLE_RATE_PER_DAY.toString(),
      rate_per_call_atomic: PER_DELIVERY.toString(),
      low_credit_threshold_atomic: LOW_CREDIT_THRESHOLD.toString(),
      opening_credit_atomic: CREATE_CREDIT.toString(),
      billing: `Idle drain is billed proportionally at each poll tick; each delivered webhook costs ${PER_DELIVERY} atomic; synthetic tests are free.`,
      expiry: `expiresAt is when idle drain alone would exhaust the credit, plus ${ZERO_CREDIT_GRACE_DAYS} days in which a top-up revives the watch; every credit change moves it.`,
    },
    webhooks: {
      signature: SIGNATURE_SCHEME_DESCRIPTION,
      headers: { signature: HEADER_SIGNATURE, watch_id: HEADER_WATCH_ID, event: HEADER_EVENT },
      events: [...WATCH_EVENTS],
      timeout_seconds: DELIVERY_TIMEOUT_MS / 1000,
      response_read_bytes: MAX_RESPONSE_BYTES,
      retry: "A failed delivery is retried on the next poll tick with the same body, nonce and signature.",
      retire_after_consecutive_failures: MAX_CONSECUTIVE_FAILURES,
    },
    topups: {
      usdc: table.topupPaths.map((p) => `POST ${p}`),
      auth: "watchId and watchToken in the JSON body",
    },
    crypto_topup: table.cryptoTopup ?? {
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
  };
}
