/**
 * Example calls of the paid watch routes, for catalogues and agents (the
 * bazaar extension of each 402, `RouteDef.example`): a Monero watch made on
 * 2026-01-01 and its top-ups. The address and view key are the Monero General
 * Fund's, whose view key is published so anyone can audit donations; the
 * token, secret and ids are made up. Typed by the routes' schemas and checked
 * by test/http/route-examples.test.ts.
 */
import type { z } from "zod";
import { CREATE_CREDIT, IDLE_RATE_PER_DAY, LOW_CREDIT_THRESHOLD, PER_DELIVERY } from "./meter.js";
import { TOPUP_PATHS } from "./topups.js";
import { ZERO_CREDIT_GRACE_DAYS } from "./model.js";
import { CREATE_NOTICE, type CreateWatchInput, type WatchAuthInput } from "./service.js";

const DAY_MS = 86_400_000;
/** 2026-01-01T00:00:00Z, the instant the examples describe. */
const NOW_MS = 1_767_225_600_000;
const WATCH_ID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

export const WATCH_CREATE_INPUT_EXAMPLE = {
  chain: "monero",
  address: "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A",
  viewKey: "f359631075708155cc3d92a32b75a7d02a5dcf27756707b47a2b31b21c389501",
  webhookUrl: "https://shop.example.com/hooks/vigil",
  birthdayHeight: 3_571_200,
} satisfies z.input<typeof CreateWatchInput>;

/** The credit block of a watch holding `credit` atomic USDC. */
function creditBlock(credit: bigint) {
  return {
    remaining_atomic: credit.toString(),
    remaining_usd: `${credit / 1_000_000n}.${(credit % 1_000_000n).toString().padStart(6, "0")}`,
    days_remaining: Number((credit * 1000n) / IDLE_RATE_PER_DAY) / 1000,
    low_credit: credit < LOW_CREDIT_THRESHOLD,
    rate_per_day_atomic: IDLE_RATE_PER_DAY.toString(),
    rate_per_call_atomic: PER_DELIVERY.toString(),
    low_credit_threshold_atomic: LOW_CREDIT_THRESHOLD.toString(),
  };
}

/** When a watch holding `credit` expires: idle drain to zero, then the grace days. */
const expiresAt = (credit: bigint) => new Date(NOW_MS + Number((credit * BigInt(DAY_MS)) / IDLE_RATE_PER_DAY) + ZERO_CREDIT_GRACE_DAYS * DAY_MS).toISOString();

export const WATCH_CREATE_OUTPUT_EXAMPLE = {
  watchId: WATCH_ID,
  watchToken: "wt_Qm9uIGRlbW8gdG9rZW4gb25seSwgbm90IHJlYWwgIQ",
  webhookSecret: "whsec_9b0f3c8e2d7a41f6b5e8c3d2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a392",
  chain: "monero",
  network: "mainnet",
  address: WATCH_CREATE_INPUT_EXAMPLE.address,
  startHeight: WATCH_CREATE_INPUT_EXAMPLE.birthdayHeight,
  expiresAt: expiresAt(CREATE_CREDIT),
  creditAtomic: CREATE_CREDIT.toString(),
  ratePerDayAtomic: IDLE_RATE_PER_DAY.toString(),
  ratePerCallAtomic: PER_DELIVERY.toString(),
  credit: creditBlock(CREATE_CREDIT),
  topupEndpoints: TOPUP_PATHS.map((p) => `POST ${p}`),
  testEndpoint: `/v1/private/watch/${WATCH_ID}/test`,
  statusEndpoint: `/v1/private/watch/${WATCH_ID}`,
  notice: CREATE_NOTICE,
};

/** Credit a watch held before the example top-ups: two idle days, under the low-credit threshold. */
const BEFORE_TOPUP = 40_000n;

/** A top-up of `amount` to the example watch: its input and answer. */
export function topupExample(amount: bigint) {
  const credit = BEFORE_TOPUP + amount;
  return {
    input: { watchId: WATCH_ID, watchToken: WATCH_CREATE_OUTPUT_EXAMPLE.watchToken } satisfies z.input<typeof WatchAuthInput>,
    output: {
      watchId: WATCH_ID,
      addedAtomic: amount.toString(),
      creditAtomic: credit.toString(),
      expiresAt: expiresAt(credit),
      credit: creditBlock(credit),
      lowCreditRearmed: amount >= LOW_CREDIT_THRESHOLD,
    },
  };
}

/** The custom top-up of `amount`: the same, with the amount in the input. */
export function customTopupExample(amount: bigint) {
  const fixed = topupExample(amount);
  return { input: { ...fixed.input, amountAtomic: amount.toString() }, output: fixed.output };
}
