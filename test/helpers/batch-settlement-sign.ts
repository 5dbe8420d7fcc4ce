/**
 * Signed inputs of x402's batch-settlement escrow, made the way the official
 * client and facilitator make them (@x402/evm's EIP-712 types and channel
 * id): ERC-3009 deposit authorisations for the ERC-3009 collector, payer
 * vouchers, receiver-authorizer claim batches and refunds, and the escrow's
 * calldata. Also signatures spoiled on purpose (high s, v of 0/1, the
 * 64-byte EIP-2098 form), for the contract's refusals. Everything is for
 * Base Sepolia (84532) with the escrow at its canonical address, so the same
 * bytes serve the devnet and anvil alike.
 */
import {
  type Address,
  type Hex,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  keccak256,
  numberToHex,
  pad,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  toHex,
} from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import {
  BATCH_SETTLEMENT_ADDRESS,
  BATCH_SETTLEMENT_DOMAIN,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  authorizationTypes,
  claimBatchTypes,
  refundTypes,
  voucherTypes,
} from "@x402/evm";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import { batchSettlementAbi, DEVNET_CHAIN_ID, DEVNET_USDC_DOMAIN, type ChannelConfig, type VoucherClaim } from "../../devnet/evm.js";

export const ZERO: Address = "0x0000000000000000000000000000000000000000";
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const escrowDomain = { ...BATCH_SETTLEMENT_DOMAIN, chainId: DEVNET_CHAIN_ID, verifyingContract: BATCH_SETTLEMENT_ADDRESS } as const;

/** EIP-3009's receive authorisation has the fields of its transfer authorisation under another name. */
const receiveWithAuthorizationTypes = { ReceiveWithAuthorization: authorizationTypes.TransferWithAuthorization } as const;

/** A channel paid in Base Sepolia USDC; `salt` tells channels of the same parties apart. */
export function channelConfig(parties: { payer: Address; receiver: Address; receiverAuthorizer: Address }, salt: number, over: Partial<ChannelConfig> = {}): ChannelConfig {
  return {
    payerAuthorizer: ZERO,
    token: DEVNET_USDC_DOMAIN.verifyingContract,
    withdrawDelay: 900,
    salt: pad(toHex(salt)),
    ...parties,
    ...over,
  };
}

export const channelIdOf = (config: ChannelConfig): Hex => computeChannelId(config, DEVNET_CHAIN_ID);

/** The payer's ReceiveWithAuthorization to the collector, packed as the collector's `collectorData`. */
export async function depositCollectorData(
  payer: PrivateKeyAccount,
  config: ChannelConfig,
  amount: bigint,
  window: { salt: bigint; validAfter?: bigint; validBefore: bigint },
): Promise<Hex> {
  const validAfter = window.validAfter ?? 0n;
  const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [channelIdOf(config), window.salt]));
  const signature = await payer.signTypedData({
    domain: DEVNET_USDC_DOMAIN,
    types: receiveWithAuthorizationTypes,
    primaryType: "ReceiveWithAuthorization",
    message: { from: config.payer, to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, value: amount, validAfter, validBefore: window.validBefore, nonce },
  });
  return encodeAbiParameters(
    [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }, { type: "bytes" }],
    [validAfter, window.validBefore, window.salt, signature],
  );
}

export function signVoucher(signer: PrivateKeyAccount, config: ChannelConfig, maxClaimableAmount: bigint): Promise<Hex> {
  return signer.signTypedData({ domain: escrowDomain, types: voucherTypes, primaryType: "Voucher", message: { channelId: channelIdOf(config), maxClaimableAmount } });
}

/** A claim row: the voucher for `max`, signed by `signer` (the payer or its authorizer), claiming `total` in all. */
export async function voucherClaim(signer: PrivateKeyAccount, config: ChannelConfig, max: bigint, total: bigint): Promise<VoucherClaim> {
  return { voucher: { channel: config, maxClaimableAmount: max }, signature: await signVoucher(signer, config, max), totalClaimed: total };
}

export function signClaimBatch(signer: PrivateKeyAccount, rows: readonly VoucherClaim[]): Promise<Hex> {
  const claims = rows.map((r) => ({ channelId: channelIdOf(r.voucher.channel), maxClaimableAmount: r.voucher.maxClaimableAmount, totalClaimed: r.totalClaimed }));
  return signer.signTypedData({ domain: escrowDomain, types: claimBatchTypes, primaryType: "ClaimBatch", message: { claims } });
}

export function signRefund(signer: PrivateKeyAccount, config: ChannelConfig, nonce: bigint, amount: bigint): Promise<Hex> {
  return signer.signTypedData({ domain: escrowDomain, types: refundTypes, primaryType: "Refund", message: { channelId: channelIdOf(config), nonce, amount } });
}

type EscrowFunction = Parameters<typeof encodeFunctionData<typeof batchSettlementAbi>>[0]["functionName"];

/** Calldata of an escrow function (its arguments as the ABI types them). */
export function escrowData(functionName: EscrowFunction, args: readonly unknown[] = []): Hex {
  return encodeFunctionData({ abi: batchSettlementAbi, functionName, args } as Parameters<typeof encodeFunctionData>[0]);
}

/** The same signature with s mirrored into the upper half and v flipped: ecrecover still finds the signer. */
export function highS(signature: Hex): Hex {
  const { r, s, v } = parseSignature(signature);
  return concat([r, numberToHex(SECP256K1_N - BigInt(s), { size: 32 }), v === 27n ? "0x1c" : "0x1b"]);
}

/** v written as 0/1 instead of 27/28. */
export function rawParity(signature: Hex): Hex {
  const { r, s, yParity } = parseSignature(signature);
  return concat([r, s, numberToHex(yParity, { size: 1 })]);
}

/** The 64-byte EIP-2098 form (r, yParity‖s). */
export const compact = (signature: Hex): Hex => serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)));
