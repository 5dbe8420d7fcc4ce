/**
 * Signed-transaction decoding for the simulated EVM: the RLP envelope is
 * parsed with viem and the sender recovered as viem's
 * recoverTransactionAddress recovers it (secp256k1-recover.ts, which
 * confirms a recent sender's key instead of recovering from scratch), then
 * checked the way geth
 * checks a transaction before it looks at any state (supported type,
 * EIP-155 replay protection, this chain's id, a recipient), and priced
 * against a base fee. Every refusal is the JSON-RPC error -32000 with
 * geth's wording, so clients react as they would against a real node.
 */
import {
  type Address,
  type Hex,
  type TransactionSerialized,
  getAddress,
  keccak256,
  parseTransaction,
  serializeTransaction,
} from "viem";
import { JsonRpcError } from "./jsonrpc-server.js";
import { recoverSignerAddress } from "./secp256k1-recover.js";

export type ParsedTransaction = ReturnType<typeof parseTransaction>;

/** Transaction types the devnet executes (blob and set-code transactions are refused). */
export type SupportedTxType = "legacy" | "eip2930" | "eip1559";

export interface DecodedTransaction {
  hash: Hex;
  from: Address;
  parsed: ParsedTransaction;
}

export interface CheckedEnvelope {
  type: SupportedTxType;
  chainId: number;
  to: Address;
}

const refuse = (message: string): never => {
  throw new JsonRpcError(-32000, message);
};

/** The last few distinct senders, newest first: the keys tried before a full recovery (most transactions come from them). */
const recentSenders: Address[] = [];
const RECENT_SENDERS = 3;

/** The sender, recovered over the unsigned envelope's hash exactly as viem's recoverTransactionAddress does. */
function senderOf(parsed: ParsedTransaction): Address {
  if (parsed.r === undefined || parsed.s === undefined) throw new Error("the transaction is not signed");
  const unsigned = serializeTransaction({ ...parsed, r: undefined, s: undefined, v: undefined, yParity: undefined, sidecars: undefined } as Parameters<typeof serializeTransaction>[0]);
  const from = recoverSignerAddress(keccak256(unsigned), { r: BigInt(parsed.r), s: BigInt(parsed.s), yParity: yParityOf(parsed) }, recentSenders);
  const at = recentSenders.indexOf(from);
  if (at !== 0) {
    if (at > 0) recentSenders.splice(at, 1);
    recentSenders.unshift(from);
    recentSenders.length = Math.min(recentSenders.length, RECENT_SENDERS);
  }
  return from;
}

/** Parses a raw signed transaction and recovers its sender. */
export async function decodeSignedTransaction(raw: Hex): Promise<DecodedTransaction> {
  try {
    const parsed = parseTransaction(raw as TransactionSerialized);
    return { hash: keccak256(raw), from: senderOf(parsed), parsed };
  } catch (err) {
    return refuse(`invalid transaction: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
  }
}

/** The stateless checks: type, EIP-155, chain id, recipient. */
export function checkEnvelope(parsed: ParsedTransaction, chainId: number): CheckedEnvelope {
  const type = parsed.type ?? "legacy";
  if (type === "eip4844" || type === "eip7702") return refuse(`transaction type ${type} not supported`);
  if (parsed.chainId === undefined) return refuse("only replay-protected (EIP-155) transactions allowed over RPC");
  if (parsed.chainId !== chainId) return refuse(`invalid chain id for signer: have ${parsed.chainId} want ${chainId}`);
  if (!parsed.to) return refuse("contract creation is not supported by the devnet");
  return { type, chainId: parsed.chainId, to: getAddress(parsed.to) };
}

/** What the sender must be able to pay per gas (feeCap) and what it pays (effectiveGasPrice) at this base fee. */
export function priceTransaction(
  parsed: ParsedTransaction,
  type: SupportedTxType,
  baseFeePerGas: bigint,
): { feeCap: bigint; effectiveGasPrice: bigint } {
  if (type === "eip1559") {
    const maxFee = parsed.maxFeePerGas ?? 0n;
    const tip = parsed.maxPriorityFeePerGas ?? 0n;
    if (tip > maxFee) return refuse("max priority fee per gas higher than max fee per gas");
    if (maxFee < baseFeePerGas) {
      return refuse(`max fee per gas less than block base fee: maxFeePerGas: ${maxFee}, baseFee: ${baseFeePerGas}`);
    }
    return { feeCap: maxFee, effectiveGasPrice: baseFeePerGas + tip < maxFee ? baseFeePerGas + tip : maxFee };
  }
  const gasPrice = parsed.gasPrice ?? 0n;
  if (gasPrice < baseFeePerGas) return refuse(`transaction underpriced: gasPrice ${gasPrice}, baseFee ${baseFeePerGas}`);
  return { feeCap: gasPrice, effectiveGasPrice: gasPrice };
}

/** The signature's y parity: given (typed transactions), or from v (27/28 legacy, 35+2·chainId EIP-155). */
export function yParityOf(parsed: ParsedTransaction): number {
  if (parsed.yParity !== undefined) return parsed.yParity;
  if (parsed.v === undefined) return 0;
  return parsed.v === 27n || parsed.v === 28n ? Number(parsed.v - 27n) : Number((parsed.v - 35n) % 2n);
}
