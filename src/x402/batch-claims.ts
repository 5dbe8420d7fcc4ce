/**
 * Claim batches of the batch-settlement escrow: what a batch would change on
 * chain, read before it is sent.
 *
 * The escrow applies a claim row only when its `totalClaimed` exceeds what
 * the chain already shows claimed for the channel; a row at or below it is
 * skipped, so a batch made only of such rows (a batch sent again after a
 * crash, a keeper that lost the outcome of its last claim) runs as a no-op
 * that still costs its gas (~31k for one row, bench:channel-gas). `claimedOnChain` reads every
 * row's channel in one Multicall3 call; the keeper drops the rows that would
 * change nothing before it signs a batch, and the local facilitator refuses
 * a batch in which no row would change anything (`refuseNoOpClaims`), so it
 * is never broadcast.
 */
import type { PaymentPayload, PaymentRequirements, SchemeNetworkFacilitator, SettleResponse } from "@x402/core/types";
import { BATCH_SETTLEMENT_ADDRESS, isBatchSettlementClaimPayload, type BatchSettlementVoucherClaim } from "@x402/evm";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import { decodeFunctionResult, encodeFunctionData, getAddress, parseAbi, type Hex } from "viem";

export const escrowViewsAbi = parseAbi([
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
  "function pendingWithdrawals(bytes32 channelId) view returns (uint128 amount, uint40 initiatedAt)",
  "function refundNonce(bytes32 channelId) view returns (uint256)",
  "function receivers(address receiver, address token) view returns (uint128 totalClaimed, uint128 totalSettled)",
]);

const multicall3Abi = parseAbi([
  "struct Call { address target; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function tryAggregate(bool requireSuccess, Call[] calls) payable returns (Result[] returnData)",
]);

const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;

/** What reads a contract: a facilitator signer's readContract, or a viem client's. */
export type ContractReader = (args: { address: `0x${string}`; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }) => Promise<unknown>;

/** The escrow's `channels(id).totalClaimed` of each channel id, in order, read in one call. */
export async function claimedOnChain(read: ContractReader, channelIds: readonly Hex[]): Promise<bigint[]> {
  if (channelIds.length === 0) return [];
  const calls = channelIds.map((id) => ({
    target: BATCH_SETTLEMENT_ADDRESS as `0x${string}`,
    callData: encodeFunctionData({ abi: escrowViewsAbi, functionName: "channels", args: [id] }),
  }));
  const results = (await read({ address: MULTICALL3, abi: multicall3Abi, functionName: "tryAggregate", args: [true, calls] })) as readonly { success: boolean; returnData: Hex }[];
  return results.map((r) => {
    const [, totalClaimed] = decodeFunctionResult({ abi: escrowViewsAbi, functionName: "channels", data: r.returnData }) as readonly [bigint, bigint];
    return totalClaimed;
  });
}

/** The channel id of a claim row on a chain. */
export function claimChannelId(claim: BatchSettlementVoucherClaim, chainId: number): Hex {
  const ch = claim.voucher.channel;
  return computeChannelId(
    {
      ...ch,
      payer: getAddress(ch.payer),
      payerAuthorizer: getAddress(ch.payerAuthorizer),
      receiver: getAddress(ch.receiver),
      receiverAuthorizer: getAddress(ch.receiverAuthorizer),
      token: getAddress(ch.token),
    },
    chainId,
  );
}

/** Why a claim batch is refused unsent: no row would change what the chain shows claimed. */
export const NOTHING_TO_CLAIM = "invalid_batch_settlement_evm_nothing_to_claim";

const chainIdOf = (network: string) => Number(network.split(":")[1]);

/** The official scheme, except that a claim batch that would change nothing is refused before it is broadcast. */
export function refuseNoOpClaims(official: SchemeNetworkFacilitator, signer: { readContract: ContractReader }): SchemeNetworkFacilitator {
  return {
    scheme: official.scheme,
    caipFamily: official.caipFamily,
    getExtra: (network) => official.getExtra(network),
    getSigners: (network) => official.getSigners(network),
    verify: (payload, requirements, context) => official.verify(payload, requirements, context),
    async settle(payload: PaymentPayload, requirements: PaymentRequirements, context): Promise<SettleResponse> {
      const inner = payload.payload;
      if (isBatchSettlementClaimPayload(inner) && inner.claims.length > 0) {
        const ids = inner.claims.map((c) => claimChannelId(c, chainIdOf(requirements.network)));
        const claimed = await claimedOnChain((a) => signer.readContract(a), ids);
        if (inner.claims.every((c, i) => BigInt(c.totalClaimed) <= claimed[i]!)) {
          return { success: false, errorReason: NOTHING_TO_CLAIM, errorMessage: "every row of the batch is already claimed on chain", transaction: "", network: requirements.network };
        }
      }
      return official.settle(payload, requirements, context);
    },
  };
}
