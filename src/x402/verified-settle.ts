/**
 * The official `exact` EVM scheme for the local facilitator, with one thing left out: the second
 * signature check of a payment this facilitator has just verified.
 *
 * A paid call is verified before its handler runs and settled after it. @x402/evm's settle verifies
 * the payment again from the start (its scheme is written for a facilitator that verify and settle
 * reach as separate requests): it asks for the payer's code again, hashes the EIP-712 message again
 * and recovers the signer again (about 2 ms of secp256k1 with the curve code viem pins). Leaving that
 * out took a quarter of a paid call's CPU in the service away (bench/README.md, "A settlement that
 * does not check the same signature twice").
 *
 * Here verify is the official one, unchanged. When it accepts a plain EIP-3009 payment (a 65-byte
 * signature, no ERC-6492 wrapper), the payment's exact bytes and requirements are remembered. A settle
 * of those same bytes, within VERIFIED_TTL_MS, does what the official settle does after its own
 * verification, in the same order and with the same outcomes:
 *  - the time window again (validBefore at least 6 s ahead, validAfter passed), the only checks of
 *    the verification whose answer can change between verify and settle for the same bytes;
 *  - `transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s)` through the
 *    facilitator signer, with the data suffix of any registered extension;
 *  - the receipt: its status, and a Transfer event of exactly the authorised amount from the payer to
 *    the payee in the token's logs;
 *  - a receipt wait that fails gives `settlement_pending` with the hash, which the shared pending
 *    store keeps, so a retry of the same payload waits for that transaction (in the official code)
 *    instead of sending a second one.
 * The token contract checks the signature itself when the transfer runs, so nothing can move on a
 * signature this skips. Anything else (a payload not verified here, verified too long ago, another
 * payload kind, a settle already pending) goes to the official settle unchanged. Each verification is
 * used by one settle at most.
 */
import { createHash } from "node:crypto";
import type { PendingSettlementStore } from "@x402/core/facilitator";
import type {
  FacilitatorContext,
  Network,
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";
import { eip3009ABI, isEIP3009Payload, resolveDataSuffix, type toFacilitatorEvmSigner } from "@x402/evm";
import { LRUCache } from "lru-cache";
import { getAddress, isAddressEqual, parseEventLogs, parseSignature, type Hex, type Log, type TransactionReceipt } from "viem";

type FacilitatorEvmSigner = ReturnType<typeof toFacilitatorEvmSigner>;

/** How long a verification stays usable for the settle that follows it. */
export const VERIFIED_TTL_MS = 10 * 60_000;

/** @x402/evm's reason strings for the outcomes below (the protocol's values). */
export const SettleReasons = {
  validBeforeExpired: "invalid_exact_evm_payload_authorization_valid_before",
  validAfterInFuture: "invalid_exact_evm_payload_authorization_valid_after",
  transactionFailed: "invalid_exact_evm_transaction_failed",
  transferEventMismatch: "invalid_exact_evm_transfer_event_mismatch",
  nonceAlreadyUsed: "invalid_exact_evm_nonce_already_used",
  insufficientBalance: "invalid_exact_evm_insufficient_balance",
  invalidSignature: "invalid_exact_evm_signature",
  settlementPending: "settlement_pending",
} as const;

/** As @x402/evm bounds the message of a pending settlement. */
const MAX_ERROR_MESSAGE_LENGTH = 500;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const transferEvent = [
  {
    type: "event",
    name: "Transfer",
    inputs: [
      { name: "from", type: "address", indexed: true },
      { name: "to", type: "address", indexed: true },
      { name: "value", type: "uint256", indexed: false },
    ],
  },
] as const;

/** The reason a failed broadcast gets, read from the node's revert message as @x402/evm reads it. */
export function transferErrorReason(error: unknown): string {
  const msg = messageOf(error);
  if (/authorization.*(expired|valid before)/i.test(msg) || /AuthorizationExpired/i.test(msg)) return SettleReasons.validBeforeExpired;
  if (/authorization.*not.*valid|AuthorizationNotYetValid/i.test(msg)) return SettleReasons.validAfterInFuture;
  if (/authorization.*used|AuthorizationAlreadyUsed|AuthorizationUsedOrCanceled/i.test(msg)) return SettleReasons.nonceAlreadyUsed;
  if (/transfer.*exceeds.*balance|insufficient.*balance|ERC20InsufficientBalance/i.test(msg)) return SettleReasons.insufficientBalance;
  if (/invalid.*signature|SignerMismatch|InvalidSignatureV|InvalidSignatureS/i.test(msg)) return SettleReasons.invalidSignature;
  return SettleReasons.transactionFailed;
}

/** True when the receipt's logs hold a Transfer of exactly `value` from `from` to `to` by the token. */
export function hasTransfer(logs: readonly Log[], token: Hex, expected: { from: Hex; to: Hex; value: bigint }): boolean {
  const events = parseEventLogs({ abi: transferEvent, eventName: "Transfer", logs: logs.filter((l) => isAddressEqual(l.address, token)) });
  return events.some((e) => isAddressEqual(e.args.from, expected.from) && isAddressEqual(e.args.to, expected.to) && e.args.value === expected.value);
}

export interface Eip3009Payload {
  signature: Hex;
  authorization: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex };
}

/** A plain EIP-3009 payload: a 65-byte signature (no ERC-6492 wrapper, which the official settle unwraps itself). */
export function plainEip3009(payload: PaymentPayload): Eip3009Payload | undefined {
  const inner = payload?.payload;
  if (!inner || typeof inner !== "object" || "permit2Authorization" in inner || !isEIP3009Payload(inner as Parameters<typeof isEIP3009Payload>[0])) return undefined;
  const p = inner as unknown as Eip3009Payload;
  return typeof p.signature === "string" && /^0x[0-9a-fA-F]{130}$/.test(p.signature) ? p : undefined;
}

/** The exact payment and requirements, as one key. */
function paymentKey(payload: PaymentPayload, requirements: PaymentRequirements): string | undefined {
  try {
    const json = JSON.stringify([payload.x402Version, payload.accepted, payload.payload, requirements]);
    return createHash("sha256").update(json).digest("base64");
  } catch {
    return undefined;
  }
}

/** The payments a facilitator verified, kept for their settle (the oldest go first past `max`). */
export type VerifiedPayments = LRUCache<string, true>;

export function verifiedPayments(max = 10_000): VerifiedPayments {
  return new LRUCache<string, true>({ max, ttl: VERIFIED_TTL_MS });
}

export interface VerifiedSettleOptions {
  /** The signer the official scheme was built with (its broadcasts and receipt waits). */
  signer: FacilitatorEvmSigner;
  /** The pending store the official scheme was built with. */
  pending: PendingSettlementStore;
  /** The verifications, shared by every scheme instance of the facilitator. */
  verified: VerifiedPayments;
}

/** The official scheme, whose settle skips the signature check a verification here has just made. */
export function settleVerifiedOnce(official: SchemeNetworkFacilitator, options: VerifiedSettleOptions): SchemeNetworkFacilitator {
  const { signer, pending, verified } = options;

  /** What the receipt of a sent transfer says; a wait that fails is `settlement_pending` with the hash. */
  const receiptOutcome = async (tx: Hex, token: Hex, auth: Eip3009Payload["authorization"], network: Network): Promise<SettleResponse> => {
    const payer = auth.from;
    const pendingAnswer = (error: unknown): SettleResponse => ({
      success: false,
      errorReason: SettleReasons.settlementPending,
      errorMessage: messageOf(error).slice(0, MAX_ERROR_MESSAGE_LENGTH),
      transaction: tx,
      network,
      payer,
    });
    let receipt: TransactionReceipt;
    try {
      receipt = (await signer.waitForTransactionReceipt({ hash: tx })) as TransactionReceipt;
    } catch (error) {
      return pendingAnswer(error);
    }
    try {
      if (receipt.status !== "success") return { success: false, errorReason: SettleReasons.transactionFailed, transaction: tx, network, payer };
      if (receipt.logs != null && !hasTransfer(receipt.logs, token, { from: getAddress(auth.from), to: getAddress(auth.to), value: BigInt(auth.value) })) {
        return { success: false, errorReason: SettleReasons.transferEventMismatch, transaction: tx, network, payer };
      }
      return { success: true, transaction: tx, network, payer };
    } catch (error) {
      return pendingAnswer(error);
    }
  };

  const settleVerified = async (
    payload: PaymentPayload,
    requirements: PaymentRequirements,
    p: Eip3009Payload,
    context: FacilitatorContext | undefined,
  ): Promise<SettleResponse> => {
    const auth = p.authorization;
    const payer = auth.from;
    const network = payload.accepted.network;
    const refused = (errorReason: string): SettleResponse => ({ success: false, network, transaction: "", errorReason, payer });
    const now = Math.floor(Date.now() / 1000);
    if (BigInt(auth.validBefore) < BigInt(now + 6)) return refused(SettleReasons.validBeforeExpired);
    if (BigInt(auth.validAfter) > BigInt(now)) return refused(SettleReasons.validAfterInFuture);

    const token = getAddress(requirements.asset);
    let tx: Hex;
    try {
      const dataSuffix = await resolveDataSuffix(context, { paymentPayload: payload, paymentRequirements: requirements });
      const sig = parseSignature(p.signature);
      tx = (await signer.writeContract({
        address: token,
        abi: eip3009ABI,
        functionName: "transferWithAuthorization",
        args: [
          getAddress(auth.from),
          getAddress(auth.to),
          BigInt(auth.value),
          BigInt(auth.validAfter),
          BigInt(auth.validBefore),
          auth.nonce,
          sig.v || sig.yParity,
          sig.r,
          sig.s,
        ],
        ...(dataSuffix ? { dataSuffix } : {}),
      } as Parameters<FacilitatorEvmSigner["writeContract"]>[0])) as Hex;
    } catch (error) {
      return { ...refused(transferErrorReason(error)), errorMessage: messageOf(error) };
    }
    const result = await receiptOutcome(tx, token, auth, network);
    // As the official settle does: a pending broadcast is kept for the retry, anything else forgotten.
    if (!result.success && result.errorReason === SettleReasons.settlementPending && result.transaction) {
      try {
        await pending.set(p.signature, result.transaction);
      } catch (storeError) {
        return {
          ...result,
          errorReason: "invalid_transaction_state",
          errorMessage: `settlement_pending, but failed to persist for retry: ${messageOf(storeError)}`,
        };
      }
      return result;
    }
    await pending.delete(p.signature).catch(() => undefined);
    return result;
  };

  return {
    scheme: official.scheme,
    caipFamily: official.caipFamily,
    getExtra: (network: Network) => official.getExtra(network),
    getSigners: (network: string) => official.getSigners(network),

    async verify(payload, requirements, context): Promise<VerifyResponse> {
      const result = await official.verify(payload, requirements, context);
      if (result.isValid && plainEip3009(payload)) {
        const key = paymentKey(payload, requirements);
        if (key) verified.set(key, true);
      }
      return result;
    },

    async settle(payload, requirements, context): Promise<SettleResponse> {
      const p = plainEip3009(payload);
      const key = p && paymentKey(payload, requirements);
      const fresh = key !== undefined && verified.get(key) === true;
      if (key !== undefined) verified.delete(key);
      if (!p || !fresh || (await pending.get(p.signature))) {
        return official.settle(payload, requirements, context);
      }
      return settleVerified(payload, requirements, p, context);
    },
  };
}
