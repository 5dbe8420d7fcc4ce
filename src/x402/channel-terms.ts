/**
 * What a 402 offers under x402's `batch-settlement` scheme beside `exact`,
 * and the deposit policy (docs/batch-settlement.md).
 *
 * A payer opens a channel in the escrow contract with one deposit and then
 * pays each call with a voucher: a signature over the cumulative amount it
 * owes. The channel is the payer's with this service, whatever route it
 * pays for (its id hashes payer, receiver, their authorizers, the token, the
 * withdraw delay and a salt), so the per-route `minDeposit` is only the size
 * of a deposit that call asks for when the channel is empty or short.
 *
 * The deposit policy: the service pays the gas of a channel's deposit
 * (~141k gas), of its claim (~24k gas a channel in a batch of 20, ~60k
 * alone), its share of a settlement and its cooperative refund (~95k gas):
 * 264k–353k gas over a channel's life (bench:channel-gas, real contracts on
 * anvil). A channel should therefore carry enough calls that this stays a
 * few per cent of what they pay: a deposit covers 100 calls of the route that asks for it,
 * at least USD 0.10, at most USD 5 (what an agent should not have to lock
 * up for a few calls), and never less than two calls. A deposit below the
 * route's figure is refused (the gas would exceed what it can pay for). The
 * payer bounds what it locks up with its own client (the official client
 * deposits at most `depositMultiplier` × its per-payment spend cap) and gets
 * back what it did not spend: the keeper refunds idle channels, and the
 * payer can always withdraw on chain after the withdraw delay.
 */
import { BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_SCHEME, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "@x402/evm";
import type { PaymentRequirements } from "@x402/core/types";
import type { Channel } from "@x402/evm/batch-settlement/server";
import type { UsdcAsset } from "./networks.js";

export { BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_SCHEME, ERC3009_DEPOSIT_COLLECTOR_ADDRESS };

/** The escrow's bounds on a channel's withdraw delay (seconds). */
export const MIN_WITHDRAW_DELAY_SECONDS = 900;
export const MAX_WITHDRAW_DELAY_SECONDS = 2_592_000;

/** Calls of the asking route one deposit covers. */
export const CALLS_PER_DEPOSIT = 100n;
/** USD 0.10 and USD 5, in atomic USDC: the floor and the ceiling of a deposit's size. */
export const MIN_DEPOSIT_FLOOR_ATOMIC = 100_000n;
export const MIN_DEPOSIT_CEILING_ATOMIC = 5_000_000n;

/** The service's side of every channel: who authorizes its claims and refunds, and the withdraw delay it asks for. */
export interface ChannelTerms {
  /** The receiver-authorizer's address (its key is in config: BATCH_RECEIVER_AUTHORIZER_KEY). */
  receiverAuthorizer: `0x${string}`;
  /** Seconds a payer's withdrawal waits on chain: the keeper's time to claim what was charged. */
  withdrawDelaySeconds: number;
  /** Seconds a call's reservation of its channel lasts (BATCH_RESERVATION_SECONDS); a deposit's adds its receipt wait. */
  reservationSeconds: number;
  depositReservationSeconds: number;
}

/** The smallest deposit a call of this price may open or top up a channel with (see the header). */
export function minDepositFor(price: bigint): bigint {
  let deposit = price * CALLS_PER_DEPOSIT;
  if (deposit < MIN_DEPOSIT_FLOOR_ATOMIC) deposit = MIN_DEPOSIT_FLOOR_ATOMIC;
  if (deposit > MIN_DEPOSIT_CEILING_ATOMIC) deposit = MIN_DEPOSIT_CEILING_ATOMIC;
  return deposit < 2n * price ? 2n * price : deposit;
}

/** The `batch-settlement` requirements of a call: the `exact` terms plus the channel's (extra). */
export function batchRequirements(usdc: UsdcAsset, payTo: `0x${string}`, maxTimeoutSeconds: number, channel: ChannelTerms, amount: bigint): PaymentRequirements {
  return {
    scheme: BATCH_SETTLEMENT_SCHEME,
    network: usdc.network,
    amount: amount.toString(),
    asset: usdc.asset,
    payTo,
    maxTimeoutSeconds,
    extra: {
      name: usdc.name,
      version: usdc.version,
      assetTransferMethod: "eip3009",
      receiverAuthorizer: channel.receiverAuthorizer,
      withdrawDelay: channel.withdrawDelaySeconds,
      minDeposit: minDepositFor(amount).toString(),
    },
  };
}

/**
 * The batch requirement of a corrective 402: the channel's state as this service knows it and the
 * latest voucher it holds (absent when it holds none, e.g. a channel adopted from the chain), which an
 * official client checks against its own key and the chain before it adopts them.
 */
export function withChannelState(req: PaymentRequirements, ch: Channel): PaymentRequirements {
  const channelState = {
    channelId: ch.channelId,
    balance: ch.balance,
    totalClaimed: ch.totalClaimed,
    withdrawRequestedAt: ch.withdrawRequestedAt,
    refundNonce: String(ch.refundNonce),
    chargedCumulativeAmount: ch.chargedCumulativeAmount,
  };
  const voucherState = ch.signature ? { signedMaxClaimable: ch.signedMaxClaimable, signature: ch.signature } : undefined;
  return { ...req, extra: { ...req.extra, channelState, ...(voucherState ? { voucherState } : {}) } };
}

/**
 * Reasons of a refusal, as the 402's `error` (the official scheme's strings where it has one,
 * so official clients recognise them; `invalid_batch_settlement_evm_channel_withdrawing` is ours).
 */
export const BatchReasons = {
  cumulativeMismatch: "invalid_batch_settlement_evm_cumulative_amount_mismatch",
  channelBusy: "invalid_batch_settlement_evm_channel_busy",
  channelNotFound: "invalid_batch_settlement_evm_channel_not_found",
  channelIdMismatch: "invalid_batch_settlement_evm_channel_id_mismatch",
  receiverMismatch: "invalid_batch_settlement_evm_receiver_mismatch",
  receiverAuthorizerMismatch: "invalid_batch_settlement_evm_receiver_authorizer_mismatch",
  tokenMismatch: "invalid_batch_settlement_evm_token_mismatch",
  withdrawDelayMismatch: "invalid_batch_settlement_evm_withdraw_delay_mismatch",
  voucherSignature: "invalid_batch_settlement_evm_voucher_signature",
  depositBelowMinimum: "invalid_batch_settlement_evm_deposit_below_min_deposit",
  channelWithdrawing: "invalid_batch_settlement_evm_channel_withdrawing",
  payloadType: "invalid_batch_settlement_evm_payload_type",
  refundNoBalance: "invalid_batch_settlement_evm_refund_no_balance",
  refundAmount: "invalid_batch_settlement_evm_refund_amount_invalid",
} as const;
