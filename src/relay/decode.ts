/**
 * Decoding a signed raw Ethereum transaction (pure): the five envelope types
 * (legacy, EIP-2930, EIP-1559, EIP-4844, EIP-7702) through viem's
 * parseTransaction, the sender recovered from the signature, the hash, the
 * fees and the targets the transaction touches.
 *
 * Rules:
 *   - malformed bytes, an unsigned transaction or a signature that recovers
 *     no sender: 400 invalid_transaction (nothing about the input is echoed
 *     beyond its length);
 *   - hash = keccak256 of the signed envelope; for an EIP-4844 transaction
 *     submitted in its network form (with blobs, commitments and proofs) the
 *     hash is that of the canonical envelope without the sidecars;
 *   - chain id: typed transactions carry it; legacy carries it in v
 *     (EIP-155: v = 35/36 + 2·chainId); v = 27/28 means none (replayable).
 */
import { recoverAuthorizationAddress } from "viem/utils";
import { keccak256, parseTransaction, recoverTransactionAddress, serializeTransaction, type Hex, type TransactionSerialized } from "viem";
import { badRequest } from "../core/errors.js";

export type TxType = "legacy" | "eip2930" | "eip1559" | "eip4844" | "eip7702";

/** Largest raw transaction accepted (bytes): 6 blobs of 128 KiB plus their envelope, with room. */
export const MAX_RAW_TX_BYTES = 1_000_000;
/** EIP-7825: transaction gas limit cap (Osaka). */
export const TX_GAS_CAP = 16_777_216n;

export interface Authorization {
  /** The contract the authority delegates its code to. */
  delegate: string;
  chainId: number;
  nonce: number;
  /** The account that signed the authorisation, or null when it does not recover. */
  authority: string | null;
}

export interface DecodedTx {
  type: TxType;
  hash: string;
  from: string;
  /** null: contract creation. */
  to: string | null;
  nonce: number;
  /** null: a pre-EIP-155 legacy transaction (valid on every chain). */
  chainId: number | null;
  value: bigint;
  gas: bigint;
  gasPrice: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  maxFeePerBlobGas: bigint | null;
  blobCount: number;
  /** Whether the blobs themselves came with the transaction (network form). */
  blobSidecars: boolean;
  /** 4-byte selector of the call data, or null when there is none. */
  selector: string | null;
  dataBytes: number;
  accessListAddresses: string[];
  authorizations: Authorization[];
  /** The highest the sender can pay: gas × (max fee or gas price) + value + blob gas × max blob fee. */
  maxCost: bigint;
  /** The raw bytes to forward (as received, network form included). */
  raw: Hex;
}

const GAS_PER_BLOB = 131_072n;

const invalid = (reason: string, details?: Record<string, unknown>) =>
  badRequest("invalid_transaction", `raw_tx is not a valid signed Ethereum transaction: ${reason}`, details);

/** Decodes and checks the signature of a raw transaction; throws 400 invalid_transaction. */
export async function decodeRawTransaction(input: string): Promise<DecodedTx> {
  const raw = input.trim().toLowerCase();
  if (!/^0x([0-9a-f]{2})+$/.test(raw)) throw invalid("not 0x-prefixed hex of whole bytes");
  const bytes = (raw.length - 2) / 2;
  if (bytes > MAX_RAW_TX_BYTES) throw invalid(`longer than ${MAX_RAW_TX_BYTES} bytes`, { bytes });
  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(raw as Hex);
  } catch {
    throw invalid("the bytes do not decode as any transaction type", { bytes });
  }
  const type = tx.type as TxType;
  if (!["legacy", "eip2930", "eip1559", "eip4844", "eip7702"].includes(type)) throw invalid(`unsupported type ${String(tx.type)}`);
  if (tx.r === undefined || tx.s === undefined || (tx.v === undefined && tx.yParity === undefined)) throw invalid("the transaction is not signed");
  let from: string;
  try {
    from = (await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized })).toLowerCase();
  } catch {
    throw invalid("the signature does not recover a sender");
  }
  const hasSidecars = type === "eip4844" && Array.isArray((tx as { sidecars?: unknown }).sidecars) && ((tx as { sidecars?: unknown[] }).sidecars?.length ?? 0) > 0;
  const canonical = hasSidecars ? serializeTransaction({ ...tx, sidecars: undefined, blobs: undefined } as never, { r: tx.r, s: tx.s, yParity: tx.yParity! }) : (raw as Hex);
  const t = tx as Record<string, unknown>;
  const big = (k: string) => (typeof t[k] === "bigint" ? (t[k] as bigint) : null);
  const blobCount = Array.isArray(t.blobVersionedHashes) ? (t.blobVersionedHashes as unknown[]).length : 0;
  const gas = big("gas") ?? 0n;
  const value = big("value") ?? 0n;
  const feeCap = big("maxFeePerGas") ?? big("gasPrice") ?? 0n;
  const blobCap = big("maxFeePerBlobGas") ?? 0n;
  const data = typeof t.data === "string" ? (t.data as string) : "0x";
  const authorizations: Authorization[] = [];
  for (const a of (tx as { authorizationList?: { address: string; chainId: number; nonce: number; r: Hex; s: Hex; yParity?: number; v?: bigint }[] }).authorizationList ?? []) {
    let authority: string | null = null;
    try {
      authority = (await recoverAuthorizationAddress({ authorization: a } as never)).toLowerCase();
    } catch {
      authority = null;
    }
    authorizations.push({ delegate: a.address.toLowerCase(), chainId: a.chainId, nonce: a.nonce, authority });
  }
  return {
    type,
    hash: keccak256(canonical),
    from,
    to: typeof tx.to === "string" ? tx.to.toLowerCase() : null,
    nonce: tx.nonce ?? 0,
    chainId: typeof tx.chainId === "number" ? tx.chainId : null,
    value,
    gas,
    gasPrice: big("gasPrice"),
    maxFeePerGas: big("maxFeePerGas"),
    maxPriorityFeePerGas: big("maxPriorityFeePerGas"),
    maxFeePerBlobGas: big("maxFeePerBlobGas"),
    blobCount,
    blobSidecars: hasSidecars,
    selector: data.length >= 10 ? data.slice(0, 10) : null,
    dataBytes: (data.length - 2) / 2,
    accessListAddresses: [...new Set(((t.accessList as { address: string }[] | undefined) ?? []).map((e) => e.address.toLowerCase()))],
    authorizations,
    maxCost: gas * feeCap + value + BigInt(blobCount) * GAS_PER_BLOB * blobCap,
    raw: raw as Hex,
  };
}
