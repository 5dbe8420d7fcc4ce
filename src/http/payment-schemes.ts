/**
 * How the paid routes can be paid, in words and in data, from the payment
 * terms: x402's `exact` always, and `batch-settlement` beside it when the
 * terms carry a channel (`PaymentTerms.channel`; docs/batch-settlement.md).
 * Every surface that describes payment (GET /v1/paywall, /.well-known/x402,
 * OpenAPI, llms.txt, the MCP tools, the start-up banner) takes its scheme
 * names and sentences from here, so none names a scheme the 402 does not
 * list, and the deposit figures are the policy's own constants.
 */
import { z } from "zod";
import { formatUsd } from "../core/money.js";
import {
  BATCH_SETTLEMENT_ADDRESS,
  BATCH_SETTLEMENT_SCHEME,
  CALLS_PER_DEPOSIT,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  MIN_DEPOSIT_CEILING_ATOMIC,
  MIN_DEPOSIT_FLOOR_ATOMIC,
  minDepositFor,
  type ChannelTerms,
} from "../x402/channel-terms.js";

export const SCHEME_NAMES = ["exact", BATCH_SETTLEMENT_SCHEME] as const;
export type SchemeName = (typeof SCHEME_NAMES)[number];

/** The schemes a 402 lists, in its order (Paywall.acceptsFor): `exact`, then `batch-settlement` when channels are offered. */
export function offeredSchemes(channel: ChannelTerms | undefined): SchemeName[] {
  return channel ? ["exact", BATCH_SETTLEMENT_SCHEME] : ["exact"];
}

/** The offered schemes as prose: "`exact`", or "`exact` or `batch-settlement`" (`mark` quotes each name). */
export function schemeNames(channel: ChannelTerms | undefined, mark = "`"): string {
  return offeredSchemes(channel)
    .map((s) => `${mark}${s}${mark}`)
    .join(" or ");
}

/** Which scheme suits which caller, when there is a choice (undefined when only `exact` is offered). */
export function schemeChoice(channel: ChannelTerms | undefined, mark = "`"): string | undefined {
  if (!channel) return undefined;
  return (
    `${mark}exact${mark} for a one-off call (it pays that call alone, no deposit); ` +
    `${mark}${BATCH_SETTLEMENT_SCHEME}${mark} for repeated calls (one deposit, then a signed voucher per call that settles nothing on chain)`
  );
}

/** The smallest deposit a call of a fixed price asks for, when channels are offered (the 402's `extra.minDeposit`). */
export function minDepositAtomic(channel: ChannelTerms | undefined, price: unknown): string | undefined {
  return channel && typeof price === "bigint" ? minDepositFor(price).toString() : undefined;
}

/** How a payer uses a channel, from the first deposit to getting the rest back. */
export function batchSettlementHow(channel: ChannelTerms): string {
  return (
    "Deposit once: the first batch-settlement payment carries an ERC-3009 ReceiveWithAuthorization of USDC, at least the 402's extra.minDeposit, " +
    "to the deposit collector, which puts it into the payer's channel in the escrow (the service pays the gas); one channel pays for every paid route. " +
    'Every call carries a voucher: an EIP-712 Voucher(bytes32 channelId, uint128 maxClaimableAmount) under the domain "x402 Batch Settlement" version 1 ' +
    "(the chain's id, the escrow's address), signed over the cumulative amount owed, this call included. Nothing settles on chain per call: " +
    "the service claims vouchers in batches. The unspent deposit is refunded when the channel is idle, " +
    `and the payer may withdraw it on chain ${channel.withdrawDelaySeconds} s after asking.`
  );
}

const atomic = z.string().regex(/^\d+$/);

export const DepositPolicy = z.object({
  calls_per_deposit: z.number().int().describe("calls of the asking route one deposit covers (its route entry's min_deposit_atomic)"),
  floor_atomic: atomic.describe("no route asks for less (atomic USDC)"),
  floor_usd: z.string(),
  ceiling_atomic: atomic.describe("no route asks for more, except that a deposit always covers two calls (atomic USDC)"),
  ceiling_usd: z.string(),
  reason: z.string(),
});

export const BatchSettlementInfo = z.object({
  escrow: z.string().describe("x402's batch-settlement escrow contract: it holds each channel's deposit"),
  deposit_collector: z.string().describe("the ERC-3009 deposit collector: the `to` of a deposit's ReceiveWithAuthorization"),
  receiverAuthorizer: z.string().describe("the service's key for claims and refunds (the 402's extra.receiverAuthorizer)"),
  withdraw_delay_seconds: z.number().int().describe("how long a payer's on-chain withdrawal waits (the 402's extra.withdrawDelay)"),
  deposit_policy: DepositPolicy,
  how: z.string(),
});
export type BatchSettlementInfo = z.input<typeof BatchSettlementInfo>;

const DEPOSIT_REASON =
  "The service pays the gas of a channel's deposit, claims and refund (264k–353k gas over its life), so a deposit carries enough calls " +
  "for that gas to stay a few per cent of what they pay, and no more than an agent should lock up for a few calls; what is not spent comes back.";

/** GET /v1/paywall's `batch_settlement`: the channel's terms, the deposit policy and how to pay. */
export function batchSettlementInfo(channel: ChannelTerms): BatchSettlementInfo {
  return {
    escrow: BATCH_SETTLEMENT_ADDRESS,
    deposit_collector: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
    receiverAuthorizer: channel.receiverAuthorizer,
    withdraw_delay_seconds: channel.withdrawDelaySeconds,
    deposit_policy: {
      calls_per_deposit: Number(CALLS_PER_DEPOSIT),
      floor_atomic: MIN_DEPOSIT_FLOOR_ATOMIC.toString(),
      floor_usd: formatUsd(MIN_DEPOSIT_FLOOR_ATOMIC),
      ceiling_atomic: MIN_DEPOSIT_CEILING_ATOMIC.toString(),
      ceiling_usd: formatUsd(MIN_DEPOSIT_CEILING_ATOMIC),
      reason: DEPOSIT_REASON,
    },
    how: batchSettlementHow(channel),
  };
}
