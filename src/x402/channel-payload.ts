/**
 * The x402 `batch-settlement` payload as the paywall accepts it — a voucher,
 * a deposit with its voucher, or a cooperative refund request — and the
 * checks made on it before anything leaves the process: its shape, our
 * terms, the binding of its channel id to its configuration, the voucher's
 * signature. Each check answers the refusal's reason (the 402's `error`) or
 * nothing; none touches the database or the network.
 *
 * The channel id is the EIP-712 hash of the channel's configuration under
 * the escrow's domain; computing it costs more than the rest of a voucher's
 * checks, so the ids of configurations seen lately are kept (a
 * configuration maps to one id forever).
 */
import { z } from "zod";
import { LRUCache } from "lru-cache";
import { getAddress, type Hex } from "viem";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { BATCH_SETTLEMENT_SCHEME, BatchReasons, MAX_WITHDRAW_DELAY_SECONDS, MIN_WITHDRAW_DELAY_SECONDS } from "./channel-terms.js";
import { voucherSigner } from "./voucher-signature.js";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
/** A uint128 as a decimal string. */
const uint128 = z.string().regex(/^\d{1,39}$/).refine((v) => BigInt(v) < 1n << 128n);
const uint256 = z.string().regex(/^\d{1,78}$/);
const signature = z.string().regex(/^0x[0-9a-fA-F]+$/).max(4096);

const ChannelConfigSchema = z.object({
  payer: address,
  payerAuthorizer: address,
  receiver: address,
  receiverAuthorizer: address,
  token: address,
  withdrawDelay: z.number().int().min(0).max(2 ** 40 - 1),
  salt: bytes32,
});
const Voucher = z.object({ channelId: bytes32, maxClaimableAmount: uint128, signature });
const Accepted = z.object({
  scheme: z.string(),
  network: z.string(),
  amount: z.string(),
  asset: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
const Erc3009Authorization = z.object({ validAfter: uint256, validBefore: uint256, salt: bytes32, signature });

const BatchPayloadSchema = z.object({
  x402Version: z.literal(2),
  accepted: Accepted,
  payload: z.discriminatedUnion("type", [
    z.object({ type: z.literal("voucher"), channelConfig: ChannelConfigSchema, voucher: Voucher }),
    z.object({
      type: z.literal("deposit"),
      channelConfig: ChannelConfigSchema,
      voucher: Voucher,
      deposit: z.object({ amount: uint128, authorization: z.object({ erc3009Authorization: Erc3009Authorization }) }),
    }),
    z.object({ type: z.literal("refund"), channelConfig: ChannelConfigSchema, voucher: Voucher, amount: uint128.optional() }),
  ]),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

export type ChannelConfig = z.infer<typeof ChannelConfigSchema>;

/** A batch payload decoded and shaped: what the channel flow reads. */
export interface BatchPayload {
  /** The payload as sent (the facilitator gets it as is). */
  decoded: PaymentPayload;
  kind: "voucher" | "deposit" | "refund";
  accepted: z.infer<typeof Accepted>;
  config: ChannelConfig;
  /** Lower case. */
  channelId: Hex;
  maxClaimable: bigint;
  signature: Hex;
  /** A deposit's amount. */
  deposit?: bigint;
  /** A refund request's amount (absent: all that is left). */
  refundAmount?: bigint;
}

/** Whether a decoded payment names the batch-settlement scheme (the paywall's dispatch). */
export function isBatchPayment(decoded: unknown): boolean {
  return (decoded as { accepted?: { scheme?: unknown } } | null)?.accepted?.scheme === BATCH_SETTLEMENT_SCHEME;
}

/** The decoded payment as a batch payload, or the refusal's reason. */
export function parseBatchPayload(decoded: PaymentPayload): BatchPayload | string {
  const parsed = BatchPayloadSchema.safeParse(decoded);
  if (!parsed.success) return "invalid_payment_payload";
  const p = parsed.data.payload;
  return {
    decoded,
    kind: p.type,
    accepted: parsed.data.accepted,
    config: p.channelConfig,
    channelId: p.voucher.channelId.toLowerCase() as Hex,
    maxClaimable: BigInt(p.voucher.maxClaimableAmount),
    signature: p.voucher.signature as Hex,
    ...(p.type === "deposit" ? { deposit: BigInt(p.deposit.amount) } : {}),
    ...(p.type === "refund" && p.amount !== undefined ? { refundAmount: BigInt(p.amount) } : {}),
  };
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Ids of configurations seen lately, by their canonical text. */
const channelIds = new LRUCache<string, string>({ max: 10_000 });

/** The id of a channel configuration on a chain (computeChannelId, remembered). */
export function channelIdOf(config: ChannelConfig, chainId: number): string {
  const key = [chainId, config.payer, config.payerAuthorizer, config.receiver, config.receiverAuthorizer, config.token, config.withdrawDelay, config.salt].join(":").toLowerCase();
  let id = channelIds.get(key);
  if (!id) {
    const normalized = {
      ...config,
      payer: getAddress(config.payer),
      payerAuthorizer: getAddress(config.payerAuthorizer),
      receiver: getAddress(config.receiver),
      receiverAuthorizer: getAddress(config.receiverAuthorizer),
      token: getAddress(config.token),
      salt: config.salt as Hex,
    };
    id = computeChannelId(normalized, chainId).toLowerCase();
    channelIds.set(key, id);
  }
  return id;
}

/** The service's side of the terms a payload must meet. */
export interface ChannelPayTerms {
  chainId: number;
  receiverAuthorizer: string;
  withdrawDelaySeconds: number;
}

/** Checks the payload against the requirements of this call and our channel terms. */
export function batchTermsRefusal(p: BatchPayload, req: PaymentRequirements, terms: ChannelPayTerms): string | undefined {
  const a = p.accepted;
  if (a.scheme !== BATCH_SETTLEMENT_SCHEME) return "unsupported_scheme";
  if (a.network !== req.network) return "network_mismatch";
  if (!sameAddress(a.asset, req.asset) || !sameAddress(p.config.token, req.asset)) return BatchReasons.tokenMismatch;
  if (!sameAddress(a.payTo, req.payTo) || !sameAddress(p.config.receiver, req.payTo)) return BatchReasons.receiverMismatch;
  if (a.amount !== req.amount) return "amount_mismatch";
  if (!sameAddress(p.config.receiverAuthorizer, terms.receiverAuthorizer)) return BatchReasons.receiverAuthorizerMismatch;
  const delay = p.config.withdrawDelay;
  if (delay !== terms.withdrawDelaySeconds || delay < MIN_WITHDRAW_DELAY_SECONDS || delay > MAX_WITHDRAW_DELAY_SECONDS) return BatchReasons.withdrawDelayMismatch;
  if (channelIdOf(p.config, terms.chainId) !== p.channelId) return BatchReasons.channelIdMismatch;
  return undefined;
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/**
 * Whether the voucher is signed by the channel's payerAuthorizer as the escrow will check it;
 * "unchecked" when the channel has none (a smart-wallet payer: only the chain can check its
 * EIP-1271 signature, so the facilitator's verify decides).
 */
export function voucherSignatureCheck(p: BatchPayload, chainId: number): "valid" | "invalid" | "unchecked" {
  if (sameAddress(p.config.payerAuthorizer, ZERO_ADDRESS)) return "unchecked";
  const signer = voucherSigner(chainId, p.channelId, p.maxClaimable, p.signature);
  return signer !== null && sameAddress(signer, p.config.payerAuthorizer) ? "valid" : "invalid";
}
