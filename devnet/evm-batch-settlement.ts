/**
 * Simulated x402BatchSettlement, the escrow of x402's `batch-settlement`
 * scheme (payment channels): deposits through a pluggable collector, claims
 * of payer-signed cumulative vouchers (by the receiver side, or relayed with
 * the receiver authorizer's signature over the batch), settlement sweeps to
 * receivers, the payer's timed withdrawal, cooperative refunds, and
 * OpenZeppelin's `multicall`, with the real contract's checks in its order,
 * its custom errors and its events, decoded and encoded with its ABI.
 *
 * Invariants, as the real contract keeps them:
 * - A channel is named by its config: channelId is the EIP-712 hash of the
 *   ChannelConfig under this escrow's domain ("x402 Batch Settlement", "1",
 *   chain id, this address), so the same config elsewhere is another channel.
 * - For every channel totalClaimed <= balance; balance - totalClaimed is all
 *   a payer may withdraw or be refunded. Claims are cumulative: a row at or
 *   below the recorded total is a no-op, which is the replay protection.
 * - Per (receiver, token), totalSettled <= totalClaimed; settle pays the gap.
 * - refundNonce moves on every refund that passes its checks, paid or not.
 * - A write is all or nothing (the chain snapshots and restores), and no
 *   write may run inside another (ReentrancyGuardReentrantCall).
 *
 * Signatures: a voucher of a channel with a payerAuthorizer is checked with
 * OpenZeppelin's ECDSA.recover (its own errors for a bad length, a high s,
 * an unrecoverable signature); otherwise, like the receiver authorizer's
 * signatures, with SignatureChecker against the signer: ecrecover for an
 * account without code; an account with code would be asked over EIP-1271,
 * which no devnet contract answers, so it is InvalidSignature().
 *
 * Gas: executionGas models what the real contract costs on anvil (Cancun
 * storage pricing, Circle's FiatToken behind the collector), from the call
 * and the state it meets; test/devnet/evm-batch-settlement.test.ts holds the
 * model to the real contract.
 */
import {
  type AbiEvent,
  type Address,
  type DecodeFunctionDataReturnType,
  type Hex,
  concat,
  decodeFunctionData,
  domainSeparator,
  encodeAbiParameters,
  encodeErrorResult,
  encodeEventTopics,
  encodeFunctionData,
  encodeFunctionResult,
  keccak256,
  parseAbi,
  size,
  toHex,
} from "viem";
import { LRUCache } from "lru-cache";
import { type CallFrame, ExecutionReverted, type SimulatedContract, SIMULATED_CODE, ZERO_ADDRESS, lower } from "./evm-contract.js";
import { callWithoutResult, depositCollectorAbi, revertWith, safeTransfer, tokenBalanceOf } from "./evm-deposit-collector.js";
import { recoverSignerAddress, splitSignature } from "./secp256k1-recover.js";

export const batchSettlementAbi = parseAbi([
  "struct ChannelConfig { address payer; address payerAuthorizer; address receiver; address receiverAuthorizer; address token; uint40 withdrawDelay; bytes32 salt; }",
  "struct Voucher { ChannelConfig channel; uint128 maxClaimableAmount; }",
  "struct VoucherClaim { Voucher voucher; bytes signature; uint128 totalClaimed; }",
  "function deposit(ChannelConfig config, uint128 amount, address collector, bytes collectorData)",
  "function claim(VoucherClaim[] voucherClaims)",
  "function claimWithSignature(VoucherClaim[] voucherClaims, bytes authorizerSignature)",
  "function settle(address receiver, address token)",
  "function initiateWithdraw(ChannelConfig config, uint128 amount)",
  "function finalizeWithdraw(ChannelConfig config)",
  "function refund(ChannelConfig config, uint128 amount)",
  "function refundWithSignature(ChannelConfig config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature)",
  "function multicall(bytes[] data) returns (bytes[] results)",
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
  "function pendingWithdrawals(bytes32 channelId) view returns (uint128 amount, uint40 initiatedAt)",
  "function refundNonce(bytes32 channelId) view returns (uint256)",
  "function receivers(address receiver, address token) view returns (uint128 totalClaimed, uint128 totalSettled)",
  "function getChannelId(ChannelConfig config) view returns (bytes32)",
  "function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns (bytes32)",
  "function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns (bytes32)",
  "function getClaimBatchDigest(VoucherClaim[] voucherClaims) view returns (bytes32)",
  "function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)",
  "function MIN_WITHDRAW_DELAY() view returns (uint40)",
  "function MAX_WITHDRAW_DELAY() view returns (uint40)",
  "function CHANNEL_CONFIG_TYPEHASH() view returns (bytes32)",
  "function VOUCHER_TYPEHASH() view returns (bytes32)",
  "function REFUND_TYPEHASH() view returns (bytes32)",
  "function CLAIM_ENTRY_TYPEHASH() view returns (bytes32)",
  "function CLAIM_BATCH_TYPEHASH() view returns (bytes32)",
  "event ChannelCreated(bytes32 indexed channelId, ChannelConfig config)",
  "event ChannelClosed(bytes32 indexed channelId, ChannelConfig config)",
  "event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)",
  "event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)",
  "event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)",
  "event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)",
  "event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter)",
  "event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)",
  "event EIP712DomainChanged()",
  "error InvalidChannel()",
  "error ZeroDeposit()",
  "error DepositOverflow()",
  "error InvalidSignature()",
  "error NotReceiverAuthorizer()",
  "error NotAuthorizedToClaim()",
  "error NotAuthorizedToRefund()",
  "error ClaimExceedsCeiling()",
  "error ClaimExceedsBalance()",
  "error WithdrawalAlreadyPending()",
  "error WithdrawalNotPending()",
  "error NotAuthorizedToFinalizeWithdraw()",
  "error WithdrawDelayNotElapsed()",
  "error NothingToWithdraw()",
  "error WithdrawAmountExceedsAvailable()",
  "error WithdrawDelayOutOfRange()",
  "error EmptyBatch()",
  "error DepositCollectionFailed()",
  "error InvalidCollector()",
  "error InvalidRefundNonce()",
  "error ZeroRefund()",
  "error ECDSAInvalidSignature()",
  "error ECDSAInvalidSignatureLength(uint256 length)",
  "error ECDSAInvalidSignatureS(bytes32 s)",
  "error ReentrancyGuardReentrantCall()",
  "error SafeERC20FailedOperation(address token)",
  "error AddressEmptyCode(address target)",
  "error FailedCall()",
  "error InvalidShortString()",
  "error StringTooLong(string str)",
]);

export type EscrowCall = DecodeFunctionDataReturnType<typeof batchSettlementAbi>;
type CallOf<N extends EscrowCall["functionName"]> = Extract<EscrowCall, { functionName: N }>;
export type ChannelConfig = CallOf<"getChannelId">["args"][0];
export type VoucherClaim = CallOf<"claim">["args"][0][number];
type EscrowError = Extract<(typeof batchSettlementAbi)[number], { type: "error" }>["name"];
type EscrowEvent = Extract<(typeof batchSettlementAbi)[number], { type: "event" }>["name"];
/** The functions that change state, each behind the reentrancy guard. */
type GuardedWrite = "deposit" | "claim" | "claimWithSignature" | "settle" | "initiateWithdraw" | "finalizeWithdraw" | "refund" | "refundWithSignature";
type ViewCall = Exclude<EscrowCall, CallOf<GuardedWrite | "multicall">>;

export const ESCROW_DOMAIN = { name: "x402 Batch Settlement", version: "1" } as const;
export const MIN_WITHDRAW_DELAY = 15 * 60;
export const MAX_WITHDRAW_DELAY = 30 * 24 * 60 * 60;
const MAX_UINT128 = 2n ** 128n - 1n;
const MAX_UINT40 = 2n ** 40n - 1n;
/** secp256k1 n / 2: OpenZeppelin's ECDSA refuses the malleable upper half of s. */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const ZERO_HASH: Hex = `0x${"00".repeat(32)}`;

const typeHash = (s: string) => keccak256(toHex(s));
const CHANNEL_CONFIG_TYPE =
  "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)";
const CLAIM_ENTRY_TYPE = "ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)";
export const TYPEHASHES = {
  CHANNEL_CONFIG_TYPEHASH: typeHash(CHANNEL_CONFIG_TYPE),
  VOUCHER_TYPEHASH: typeHash("Voucher(bytes32 channelId,uint128 maxClaimableAmount)"),
  REFUND_TYPEHASH: typeHash("Refund(bytes32 channelId,uint256 nonce,uint128 amount)"),
  CLAIM_ENTRY_TYPEHASH: typeHash(CLAIM_ENTRY_TYPE),
  CLAIM_BATCH_TYPEHASH: typeHash(`ClaimBatch(ClaimEntry[] claims)${CLAIM_ENTRY_TYPE}`),
} as const;

const ESCROW_EVENTS = new Map<string, AbiEvent>(batchSettlementAbi.flatMap((item) => (item.type === "event" ? [[item.name, item as AbiEvent]] : [])));

const word = { type: "bytes32" } as const;
const uint = { type: "uint256" } as const;
const addr = { type: "address" } as const;

function fail(errorName: EscrowError, args: readonly unknown[] = []): never {
  return revertWith(batchSettlementAbi, errorName, args);
}

/** Solidity's checked arithmetic: Panic(0x11) on overflow. */
function panicOverflow(): never {
  throw new ExecutionReverted(encodeErrorResult({ abi: parseAbi(["error Panic(uint256 code)"]), errorName: "Panic", args: [0x11n] }), "Panic(0x11)");
}

const result = (functionName: ViewCall["functionName"] | "multicall", value: unknown): Hex =>
  encodeFunctionResult({ abi: batchSettlementAbi, functionName, result: value } as Parameters<typeof encodeFunctionResult>[0]);

// ---------------------------------------------------------------------------
// Signatures
// ---------------------------------------------------------------------------

/** ecrecover's answer by digest ‖ signature; each voucher is checked by the facilitator's eth_call, its estimate and the transaction. */
const ecrecoverAnswers = new LRUCache<string, Address | "none">({ max: 10_000 });

/** The ecrecover precompile: no address for a v other than 27/28, r or s out of range, or no point with x = r. */
function ecrecover(digest: Hex, signature: Hex, expected: Address): Address | undefined {
  const v = Number.parseInt(signature.slice(130, 132), 16);
  if (v !== 27 && v !== 28) return undefined;
  const key = digest + signature.slice(2);
  let answer = ecrecoverAnswers.get(key);
  if (answer === undefined) {
    try {
      answer = recoverSignerAddress(digest, splitSignature(signature), [expected]);
    } catch {
      answer = "none";
    }
    ecrecoverAnswers.set(key, answer);
  }
  return answer === "none" ? undefined : answer;
}

type Recovery = { signer: Address } | { error: "ECDSAInvalidSignature" | "ECDSAInvalidSignatureLength" | "ECDSAInvalidSignatureS"; args: unknown[] };

/** OpenZeppelin's ECDSA.tryRecover: 65-byte signatures only, low s, and an address ecrecover finds. */
function tryRecover(digest: Hex, signature: Hex, expected: Address): Recovery {
  if (size(signature) !== 65) return { error: "ECDSAInvalidSignatureLength", args: [BigInt(size(signature))] };
  const s: Hex = `0x${signature.slice(66, 130)}`;
  if (BigInt(s) > SECP256K1_HALF_N) return { error: "ECDSAInvalidSignatureS", args: [s] };
  const signer = ecrecover(digest, signature, expected);
  return signer ? { signer } : { error: "ECDSAInvalidSignature", args: [] };
}

/** SignatureChecker.isValidSignatureNow; an account with code would need EIP-1271, which no devnet contract answers. */
function isValidSignatureNow(frame: CallFrame, signer: Address, digest: Hex, signature: Hex): boolean {
  if (frame.chain.getCode(signer) !== "0x") return false;
  const recovery = tryRecover(digest, signature, signer);
  return "signer" in recovery && lower(recovery.signer) === lower(signer);
}

// ---------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------

interface ChannelState {
  balance: bigint;
  totalClaimed: bigint;
}
interface WithdrawalState {
  amount: bigint;
  initiatedAt: bigint;
}
interface ReceiverState {
  totalClaimed: bigint;
  totalSettled: bigint;
}
/** Records are replaced, never changed in place, so a snapshot is a copy of the maps. Keys are lower-case. */
interface EscrowState {
  channels: Map<string, ChannelState>;
  withdrawals: Map<string, WithdrawalState>;
  refundNonces: Map<string, bigint>;
  /** `${receiver}:${token}` */
  receivers: Map<string, ReceiverState>;
  /** What the escrow holds of each token by its own books (the gas model prices a first deposit by it). */
  escrowed: Map<string, bigint>;
}

const copyState = (s: EscrowState): EscrowState => ({
  channels: new Map(s.channels),
  withdrawals: new Map(s.withdrawals),
  refundNonces: new Map(s.refundNonces),
  receivers: new Map(s.receivers),
  escrowed: new Map(s.escrowed),
});

const isReceiverSide = (sender: Address, c: ChannelConfig) => lower(sender) === lower(c.receiverAuthorizer) || lower(sender) === lower(c.receiver);
const isPayerSide = (sender: Address, c: ChannelConfig) => lower(sender) === lower(c.payer) || lower(sender) === lower(c.payerAuthorizer);
const isZero = (a: Address) => lower(a) === ZERO_ADDRESS;
const min = (a: bigint, b: bigint) => (a < b ? a : b);

export interface BatchSettlementOptions {
  address: Address;
  chainId: number;
}

/** x402BatchSettlement: channels, vouchers, settlement, withdrawal and refunds. */
export class SimulatedBatchSettlement implements SimulatedContract {
  readonly code = SIMULATED_CODE;
  private state: EscrowState = { channels: new Map(), withdrawals: new Map(), refundNonces: new Map(), receivers: new Map(), escrowed: new Map() };
  /** ReentrancyGuardTransient's slot: set while a guarded write runs (transient, so never snapshotted). */
  private entered = false;
  private readonly domainSeparator: Hex;

  constructor(readonly options: BatchSettlementOptions) {
    this.domainSeparator = domainSeparator({ domain: { ...ESCROW_DOMAIN, chainId: options.chainId, verifyingContract: options.address } });
  }

  // -- reads for tests and the gas model (copies: the records are the state) --

  channel(channelId: Hex): ChannelState {
    return { ...(this.state.channels.get(lower(channelId)) ?? { balance: 0n, totalClaimed: 0n }) };
  }

  pendingWithdrawal(channelId: Hex): WithdrawalState {
    return { ...(this.state.withdrawals.get(lower(channelId)) ?? { amount: 0n, initiatedAt: 0n }) };
  }

  refundNonce(channelId: Hex): bigint {
    return this.state.refundNonces.get(lower(channelId)) ?? 0n;
  }

  receiver(receiver: Address, token: Address): ReceiverState {
    return { ...(this.state.receivers.get(`${lower(receiver)}:${lower(token)}`) ?? { totalClaimed: 0n, totalSettled: 0n }) };
  }

  /** What the escrow holds of `token` by its own books: deposits less settlements, withdrawals and refunds. */
  escrowed(token: Address): bigint {
    return this.state.escrowed.get(lower(token)) ?? 0n;
  }

  /** The EIP-712 hash under this escrow's domain of a struct already hashed. */
  private typedDigest(structHash: Hex): Hex {
    return keccak256(concat(["0x1901", this.domainSeparator, structHash]));
  }

  channelId(config: ChannelConfig): Hex {
    const fields = [word, addr, addr, addr, addr, addr, uint, word] as const;
    const { payer, payerAuthorizer, receiver, receiverAuthorizer, token, withdrawDelay, salt } = config;
    const values = [TYPEHASHES.CHANNEL_CONFIG_TYPEHASH, payer, payerAuthorizer, receiver, receiverAuthorizer, token, BigInt(withdrawDelay), salt] as const;
    return this.typedDigest(keccak256(encodeAbiParameters(fields, values)));
  }

  voucherDigest(channelId: Hex, maxClaimableAmount: bigint): Hex {
    return this.typedDigest(keccak256(encodeAbiParameters([word, word, uint], [TYPEHASHES.VOUCHER_TYPEHASH, channelId, maxClaimableAmount])));
  }

  refundDigest(channelId: Hex, nonce: bigint, amount: bigint): Hex {
    return this.typedDigest(keccak256(encodeAbiParameters([word, word, uint, uint], [TYPEHASHES.REFUND_TYPEHASH, channelId, nonce, amount])));
  }

  /** ClaimBatch over the rows' ClaimEntry hashes (an empty batch hashes the empty string, as the contract defines it). */
  claimBatchDigest(claims: readonly VoucherClaim[]): Hex {
    const entries = claims.map((c) =>
      keccak256(
        encodeAbiParameters(
          [word, word, uint, uint],
          [TYPEHASHES.CLAIM_ENTRY_TYPEHASH, this.channelId(c.voucher.channel), c.voucher.maxClaimableAmount, c.totalClaimed],
        ),
      ),
    );
    const root = keccak256(entries.length ? concat(entries) : "0x");
    return this.typedDigest(keccak256(encodeAbiParameters([word, word], [TYPEHASHES.CLAIM_BATCH_TYPEHASH, root])));
  }

  // -- SimulatedContract ----------------------------------------------------

  snapshot(): EscrowState {
    return copyState(this.state);
  }

  restore(snapshot: unknown): void {
    this.state = copyState(snapshot as EscrowState);
  }

  executionGas(data: Hex): bigint {
    const decoded = decodeEscrowCall(data);
    return decoded ? escrowGas(this, decoded) : 2_000n;
  }

  async call(frame: CallFrame): Promise<Hex> {
    if (frame.value !== 0n) throw new ExecutionReverted("0x");
    // Unknown selector or calldata that does not decode: the contract has no fallback.
    const decoded = decodeEscrowCall(frame.data);
    if (!decoded) throw new ExecutionReverted("0x");
    if (decoded.functionName === "multicall") return this.multicall(frame, decoded.args[0]);
    if (!isGuardedWrite(decoded)) return this.view(frame, decoded);
    if (this.entered) fail("ReentrancyGuardReentrantCall");
    this.entered = true;
    try {
      await this.write(frame, decoded);
      return "0x";
    } finally {
      this.entered = false;
    }
  }

  private async write(frame: CallFrame, decoded: CallOf<GuardedWrite>): Promise<void> {
    switch (decoded.functionName) {
      case "deposit":
        return this.deposit(frame, ...decoded.args);
      case "claim":
        return this.claim(frame, decoded.args[0]);
      case "claimWithSignature":
        return this.claimWithSignature(frame, ...decoded.args);
      case "settle":
        return this.settle(frame, ...decoded.args);
      case "initiateWithdraw":
        return this.initiateWithdraw(frame, ...decoded.args);
      case "finalizeWithdraw":
        return this.finalizeWithdraw(frame, decoded.args[0]);
      case "refund":
        if (!isReceiverSide(frame.sender, decoded.args[0])) fail("NotAuthorizedToRefund");
        return this.executeRefund(frame, ...decoded.args);
      case "refundWithSignature":
        return this.refundWithSignature(frame, ...decoded.args);
    }
  }

  /** OpenZeppelin's Multicall: each item a delegatecall to this contract (same sender); a revert is bubbled, an empty one is FailedCall(). */
  private async multicall(frame: CallFrame, items: readonly Hex[]): Promise<Hex> {
    const results: Hex[] = [];
    for (const data of items) {
      try {
        results.push(await this.call({ ...frame, data }));
      } catch (err) {
        if (err instanceof ExecutionReverted && err.data === "0x") fail("FailedCall");
        throw err;
      }
    }
    return result("multicall", results);
  }

  // -- views -----------------------------------------------------------------

  private view(frame: CallFrame, decoded: ViewCall): Hex {
    switch (decoded.functionName) {
      case "channels": {
        const ch = this.channel(decoded.args[0]);
        return result("channels", [ch.balance, ch.totalClaimed]);
      }
      case "pendingWithdrawals": {
        const ws = this.pendingWithdrawal(decoded.args[0]);
        return result("pendingWithdrawals", [ws.amount, Number(ws.initiatedAt)]);
      }
      case "refundNonce":
        return result("refundNonce", this.refundNonce(decoded.args[0]));
      case "receivers": {
        const rs = this.receiver(...decoded.args);
        return result("receivers", [rs.totalClaimed, rs.totalSettled]);
      }
      case "getChannelId":
        return result("getChannelId", this.channelId(decoded.args[0]));
      case "getVoucherDigest":
        return result("getVoucherDigest", this.voucherDigest(...decoded.args));
      case "getRefundDigest":
        return result("getRefundDigest", this.refundDigest(...decoded.args));
      case "getClaimBatchDigest":
        return result("getClaimBatchDigest", this.claimBatchDigest(decoded.args[0]));
      case "eip712Domain":
        // 0x0f: name, version, chainId and verifyingContract are set; no salt, no extensions.
        return result("eip712Domain", ["0x0f", ESCROW_DOMAIN.name, ESCROW_DOMAIN.version, BigInt(this.options.chainId), frame.self, ZERO_HASH, []]);
      case "MIN_WITHDRAW_DELAY":
        return result("MIN_WITHDRAW_DELAY", MIN_WITHDRAW_DELAY);
      case "MAX_WITHDRAW_DELAY":
        return result("MAX_WITHDRAW_DELAY", MAX_WITHDRAW_DELAY);
      default:
        return result(decoded.functionName, TYPEHASHES[decoded.functionName]);
    }
  }

  // -- deposits --------------------------------------------------------------

  private async deposit(frame: CallFrame, config: ChannelConfig, amount: bigint, collector: Address, collectorData: Hex): Promise<void> {
    if (isZero(config.payer) || isZero(config.receiver) || isZero(config.receiverAuthorizer) || isZero(config.token)) fail("InvalidChannel");
    if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) fail("WithdrawDelayOutOfRange");
    if (amount === 0n) fail("ZeroDeposit");
    if (isZero(collector)) fail("InvalidCollector");

    const channelId = this.channelId(config);
    const before = this.channel(channelId);
    if (amount > MAX_UINT128 - before.balance) fail("DepositOverflow");
    // Credited before the collector runs, as the contract does; a failed pull reverts it all.
    this.setChannel(channelId, { ...before, balance: before.balance + amount });

    const held = await tokenBalanceOf(frame, config.token, frame.self);
    const collect = encodeFunctionData({
      abi: depositCollectorAbi,
      functionName: "collect",
      args: [config.payer, config.token, amount, channelId, collectorData],
    });
    await callWithoutResult(frame, collector, collect);
    // The post-condition catches fee-on-transfer tokens and collectors that do not deliver.
    if ((await tokenBalanceOf(frame, config.token, frame.self)) !== held + amount) fail("DepositCollectionFailed");

    this.moveEscrowed(config.token, amount);
    const after = this.channel(channelId);
    if (after.balance === amount && after.totalClaimed === 0n) this.emit(frame, "ChannelCreated", { channelId, config });
    this.emit(frame, "Deposited", { channelId, sender: frame.sender, amount, newBalance: after.balance });
  }

  // -- claims and settlement -------------------------------------------------

  private async claim(frame: CallFrame, claims: readonly VoucherClaim[]): Promise<void> {
    if (claims.length === 0) fail("EmptyBatch");
    for (const row of claims) {
      if (!isReceiverSide(frame.sender, row.voucher.channel)) fail("NotAuthorizedToClaim");
      this.processVoucherClaim(frame, row);
    }
  }

  private async claimWithSignature(frame: CallFrame, claims: readonly VoucherClaim[], authorizerSignature: Hex): Promise<void> {
    if (claims.length === 0) fail("EmptyBatch");
    const authorizer = claims[0]!.voucher.channel.receiverAuthorizer;
    if (!isValidSignatureNow(frame, authorizer, this.claimBatchDigest(claims), authorizerSignature)) fail("InvalidSignature");
    for (const row of claims) {
      if (lower(row.voucher.channel.receiverAuthorizer) !== lower(authorizer)) fail("NotReceiverAuthorizer");
      this.processVoucherClaim(frame, row);
    }
  }

  /** One voucher row: a no-op at or below the recorded total, else ceiling, balance and the payer side's signature, then the books. */
  private processVoucherClaim(frame: CallFrame, row: VoucherClaim): void {
    const config = row.voucher.channel;
    const channelId = this.channelId(config);
    const ch = this.channel(channelId);
    if (row.totalClaimed <= ch.totalClaimed) return;
    if (row.totalClaimed > row.voucher.maxClaimableAmount) fail("ClaimExceedsCeiling");
    if (row.totalClaimed > ch.balance) fail("ClaimExceedsBalance");
    this.requirePayerSignature(frame, config, this.voucherDigest(channelId, row.voucher.maxClaimableAmount), row.signature);

    const claimAmount = row.totalClaimed - ch.totalClaimed;
    this.setChannel(channelId, { ...ch, totalClaimed: row.totalClaimed });
    const rs = this.receiver(config.receiver, config.token);
    if (rs.totalClaimed + claimAmount > MAX_UINT128) panicOverflow();
    this.setReceiver(config.receiver, config.token, { ...rs, totalClaimed: rs.totalClaimed + claimAmount });
    this.emit(frame, "Claimed", { channelId, sender: frame.sender, claimAmount, newTotalClaimed: row.totalClaimed });
  }

  /** A payerAuthorizer signs with a plain key (ECDSA.recover and its errors); without one the payer is asked through SignatureChecker. */
  private requirePayerSignature(frame: CallFrame, config: ChannelConfig, digest: Hex, signature: Hex): void {
    if (isZero(config.payerAuthorizer)) {
      if (!isValidSignatureNow(frame, config.payer, digest, signature)) fail("InvalidSignature");
      return;
    }
    const recovery = tryRecover(digest, signature, config.payerAuthorizer);
    if (!("signer" in recovery)) fail(recovery.error, recovery.args);
    if (lower(recovery.signer) !== lower(config.payerAuthorizer)) fail("InvalidSignature");
  }

  private async settle(frame: CallFrame, receiver: Address, token: Address): Promise<void> {
    const rs = this.receiver(receiver, token);
    const amount = rs.totalClaimed - rs.totalSettled;
    if (amount === 0n) return;
    this.setReceiver(receiver, token, { ...rs, totalSettled: rs.totalClaimed });
    this.moveEscrowed(token, -amount);
    await safeTransfer(frame, token, receiver, amount);
    this.emit(frame, "Settled", { receiver, token, sender: frame.sender, amount });
  }

  // -- the payer's timed withdrawal ------------------------------------------

  private async initiateWithdraw(frame: CallFrame, config: ChannelConfig, amount: bigint): Promise<void> {
    // The contract names this refusal InvalidChannel, not an authorization error.
    if (!isPayerSide(frame.sender, config)) fail("InvalidChannel");
    if (amount === 0n) fail("NothingToWithdraw");
    const channelId = this.channelId(config);
    if (this.pendingWithdrawal(channelId).initiatedAt !== 0n) fail("WithdrawalAlreadyPending");
    const ch = this.channel(channelId);
    if (amount > ch.balance - ch.totalClaimed) fail("WithdrawAmountExceedsAvailable");

    // uint40(block.timestamp) truncates; the sum with the delay is checked.
    const initiatedAt = frame.timestamp & MAX_UINT40;
    const finalizeAfter = initiatedAt + BigInt(config.withdrawDelay);
    if (finalizeAfter > MAX_UINT40) panicOverflow();
    this.state.withdrawals.set(lower(channelId), { amount, initiatedAt });
    this.emit(frame, "WithdrawInitiated", { channelId, amount, finalizeAfter: Number(finalizeAfter) });
  }

  /** Pays what is still unclaimed of the amount asked, once the delay has passed; claims made meanwhile come first. */
  private async finalizeWithdraw(frame: CallFrame, config: ChannelConfig): Promise<void> {
    if (!isPayerSide(frame.sender, config)) fail("NotAuthorizedToFinalizeWithdraw");
    const channelId = this.channelId(config);
    const ws = this.pendingWithdrawal(channelId);
    if (ws.initiatedAt === 0n) fail("WithdrawalNotPending");
    if (frame.timestamp < ws.initiatedAt + BigInt(config.withdrawDelay)) fail("WithdrawDelayNotElapsed");

    const ch = this.channel(channelId);
    const amount = min(ws.amount, ch.balance - ch.totalClaimed);
    this.state.withdrawals.delete(lower(channelId));
    const balance = ch.balance - amount;
    this.setChannel(channelId, { ...ch, balance });
    this.emit(frame, "WithdrawFinalized", { channelId, sender: frame.sender, amount });
    if (balance === 0n && ch.totalClaimed === 0n) this.emit(frame, "ChannelClosed", { channelId, config });
    this.moveEscrowed(config.token, -amount);
    if (amount > 0n) await safeTransfer(frame, config.token, config.payer, amount);
  }

  // -- cooperative refunds ---------------------------------------------------

  private async refundWithSignature(frame: CallFrame, config: ChannelConfig, amount: bigint, nonce: bigint, signature: Hex): Promise<void> {
    const channelId = this.channelId(config);
    if (nonce !== this.refundNonce(channelId)) fail("InvalidRefundNonce");
    if (!isValidSignatureNow(frame, config.receiverAuthorizer, this.refundDigest(channelId, nonce, amount), signature)) fail("InvalidSignature");
    await this.executeRefund(frame, config, amount);
  }

  /**
   * The nonce moves first, even when nothing is left to refund (no transfer,
   * no event then); the refund is capped to the unclaimed balance and comes
   * out of a pending withdrawal first.
   */
  private async executeRefund(frame: CallFrame, config: ChannelConfig, amount: bigint): Promise<void> {
    if (amount === 0n) fail("ZeroRefund");
    const channelId = this.channelId(config);
    // Unchecked in the contract: wraps at 2^256.
    this.state.refundNonces.set(lower(channelId), (this.refundNonce(channelId) + 1n) % 2n ** 256n);

    const ch = this.channel(channelId);
    const refunded = min(amount, ch.balance - ch.totalClaimed);
    if (refunded === 0n) return;
    const balance = ch.balance - refunded;
    this.setChannel(channelId, { ...ch, balance });
    this.reducePendingWithdrawal(channelId, refunded);
    this.emit(frame, "Refunded", { channelId, sender: frame.sender, amount: refunded });
    if (balance === 0n && ch.totalClaimed === 0n) this.emit(frame, "ChannelClosed", { channelId, config });
    this.moveEscrowed(config.token, -refunded);
    await safeTransfer(frame, config.token, config.payer, refunded);
  }

  private reducePendingWithdrawal(channelId: Hex, refunded: bigint): void {
    const ws = this.pendingWithdrawal(channelId);
    if (ws.initiatedAt === 0n) return;
    if (refunded >= ws.amount) this.state.withdrawals.delete(lower(channelId));
    else this.state.withdrawals.set(lower(channelId), { ...ws, amount: ws.amount - refunded });
  }

  // -- helpers -----------------------------------------------------------------

  private setChannel(channelId: Hex, ch: ChannelState): void {
    this.state.channels.set(lower(channelId), ch);
  }

  private setReceiver(receiver: Address, token: Address, rs: ReceiverState): void {
    this.state.receivers.set(`${lower(receiver)}:${lower(token)}`, rs);
  }

  private moveEscrowed(token: Address, amount: bigint): void {
    this.state.escrowed.set(lower(token), this.escrowed(token) + amount);
  }

  /** Emits an event of the escrow's ABI: indexed arguments as topics, the rest ABI-encoded as data. */
  private emit(frame: CallFrame, eventName: EscrowEvent, args: Record<string, unknown>): void {
    const event = ESCROW_EVENTS.get(eventName)!;
    const topics = encodeEventTopics({ abi: [event], eventName, args } as Parameters<typeof encodeEventTopics>[0]) as Hex[];
    const dataInputs = event.inputs.filter((input) => !input.indexed);
    frame.emit({ topics, data: encodeAbiParameters(dataInputs, dataInputs.map((input) => args[input.name!])) });
  }
}

/**
 * The call `data` makes, or undefined where the contract's decoder refuses it
 * (an unknown selector, short data, a uint40 or uint128 out of range: viem
 * decodes those, so the arguments must also encode again).
 */
export function decodeEscrowCall(data: Hex): EscrowCall | undefined {
  try {
    const decoded = decodeFunctionData({ abi: batchSettlementAbi, data });
    encodeFunctionData({ abi: batchSettlementAbi, functionName: decoded.functionName, args: decoded.args } as Parameters<typeof encodeFunctionData>[0]);
    return decoded;
  } catch {
    return undefined;
  }
}

const GUARDED = new Set<string>(["deposit", "claim", "claimWithSignature", "settle", "initiateWithdraw", "finalizeWithdraw", "refund", "refundWithSignature"]);
function isGuardedWrite(decoded: EscrowCall): decoded is CallOf<GuardedWrite> {
  return GUARDED.has(decoded.functionName);
}

// ---------------------------------------------------------------------------
// Gas
// ---------------------------------------------------------------------------

/**
 * Execution gas (beyond the intrinsic cost) of the real contract on anvil,
 * in parts measured there (test/devnet/evm-batch-settlement.test.ts prints
 * the comparison). Storage prices explain most parts: a slot written from
 * zero costs 17,100 more than one rewritten, a slot or account touched
 * first in a transaction 2,000–2,500 more than again, a slot cleared refunds
 * 4,800. The token's side is Circle's FiatToken behind its proxy.
 */
const GAS = {
  /** Deposit through the ERC-3009 collector into an open channel: receiveWithAuthorization, two transfers, two balanceOf. */
  depositTopUp: 93_400n,
  /** The channel's slot written from zero, and ChannelCreated. */
  channelOpened: 21_000n,
  /** The escrow's own token balance written from zero (its first deposit of a token, or the first since it was emptied). */
  escrowFromZero: 17_100n,
  claimBase: 1_100n,
  /** claimWithSignature's own part: the batch digest's frame and the authorizer's ecrecover. */
  claimWithSignatureBase: 9_100n,
  /** Per row of a signed batch: its ClaimEntry hash (the channel id again). */
  batchEntry: 2_250n,
  /** A row at or below the recorded total: the channel id and one cold read. */
  noOpRow: 5_100n,
  /** A row that claims: the voucher digest, ecrecover, the channel and receiver totals, Claimed. */
  claimedRow: 17_200n,
  /** SignatureChecker's extcodesize of the payer (no payerAuthorizer). */
  payerCodeCheck: 500n,
  /** An account or slot first touched in the transaction. */
  coldAccount: 2_500n,
  coldReceiverSlot: 4_800n,
  slotFromZero: 17_100n,
  settleNothing: 3_400n,
  /** Settlement paid to a receiver the escrow has paid before (its token balance is not zero). */
  settlePaid: 35_000n,
  refundBase: 3_300n,
  /** refundWithSignature's own part: the refund digest, the authorizer's ecrecover and extcodesize. */
  refundSigned: 8_000n,
  slotRewritten: 5_000n,
  channelRead: 2_100n,
  /** A refund that pays: the channel written, the pending withdrawal read, Refunded, the token transfer. */
  refundPayout: 34_800n,
  pendingReduced: 2_900n,
  /** A slot cleared: the refund of its clearing. */
  slotCleared: -4_800n,
  /** ChannelClosed, net of the channel slot's clearing refund. */
  channelClosed: -900n,
  initiateWithdraw: 29_300n,
  finalizeWithdraw: 37_800n,
  finalizeWithoutPayout: 8_400n,
  /** multicall's frame: the array decoded, each item delegatecalled and its result copied. */
  multicallBase: 1_500n,
  /** Each item after the first finds the slots and accounts the first touched warm (claim then refund of one channel). */
  multicallWarmItem: -4_500n,
  view: 2_500n,
} as const;

/** Execution gas of a call, from the call and the state it meets. */
function escrowGas(escrow: SimulatedBatchSettlement, decoded: EscrowCall): bigint {
  switch (decoded.functionName) {
    case "deposit": {
      const [config] = decoded.args;
      const ch = escrow.channel(escrow.channelId(config));
      const opened = ch.balance === 0n && ch.totalClaimed === 0n ? GAS.channelOpened : 0n;
      return GAS.depositTopUp + opened + (escrow.escrowed(config.token) === 0n ? GAS.escrowFromZero : 0n);
    }
    case "claim":
      return GAS.claimBase + claimRowsGas(escrow, decoded.args[0], false);
    case "claimWithSignature":
      return GAS.claimWithSignatureBase + claimRowsGas(escrow, decoded.args[0], true);
    case "settle": {
      const rs = escrow.receiver(...decoded.args);
      if (rs.totalClaimed === rs.totalSettled) return GAS.settleNothing;
      // The escrow's first payment to a receiver usually writes its token balance from zero.
      return GAS.settlePaid + (rs.totalSettled === 0n ? GAS.slotFromZero : 0n);
    }
    case "refund":
      return refundGas(escrow, decoded.args[0], decoded.args[1]);
    case "refundWithSignature":
      return GAS.refundSigned + refundGas(escrow, decoded.args[0], decoded.args[1]);
    case "initiateWithdraw":
      return GAS.initiateWithdraw;
    case "finalizeWithdraw":
      return finalizeGas(escrow, decoded.args[0]);
    case "multicall":
      return decoded.args[0].reduce<bigint>((sum, data, i) => {
        const inner = decodeEscrowCall(data);
        return sum + (inner ? escrowGas(escrow, inner) : 0n) + (i > 0 ? GAS.multicallWarmItem : 0n);
      }, GAS.multicallBase);
    default:
      return GAS.view;
  }
}

/** Rows of a claim: cold accounts and receiver slots are paid once per transaction. */
function claimRowsGas(escrow: SimulatedBatchSettlement, rows: readonly VoucherClaim[], signed: boolean): bigint {
  const payersSeen = new Set<string>();
  const receiversSeen = new Set<string>();
  let gas = 0n;
  for (const row of rows) {
    const config = row.voucher.channel;
    if (signed) gas += GAS.batchEntry;
    if (row.totalClaimed <= escrow.channel(escrow.channelId(config)).totalClaimed) {
      gas += GAS.noOpRow;
      continue;
    }
    gas += GAS.claimedRow;
    if (isZero(config.payerAuthorizer)) {
      gas += GAS.payerCodeCheck + (payersSeen.has(lower(config.payer)) ? 0n : GAS.coldAccount);
      payersSeen.add(lower(config.payer));
    }
    const receiverKey = `${lower(config.receiver)}:${lower(config.token)}`;
    if (receiversSeen.has(receiverKey)) continue;
    receiversSeen.add(receiverKey);
    const rs = escrow.receiver(config.receiver, config.token);
    gas += GAS.coldReceiverSlot + (rs.totalClaimed === 0n && rs.totalSettled === 0n ? GAS.slotFromZero : 0n);
  }
  return gas;
}

function refundGas(escrow: SimulatedBatchSettlement, config: ChannelConfig, amount: bigint): bigint {
  const channelId = escrow.channelId(config);
  const nonceWrite = escrow.refundNonce(channelId) === 0n ? GAS.slotRewritten + GAS.slotFromZero : GAS.slotRewritten;
  const ch = escrow.channel(channelId);
  const refunded = min(amount, ch.balance - ch.totalClaimed);
  let gas = GAS.refundBase + nonceWrite + GAS.channelRead;
  if (refunded === 0n) return gas;
  gas += GAS.refundPayout;
  const ws = escrow.pendingWithdrawal(channelId);
  if (ws.initiatedAt !== 0n) gas += GAS.pendingReduced + (refunded >= ws.amount ? GAS.slotCleared : 0n);
  if (ch.balance === refunded && ch.totalClaimed === 0n) gas += GAS.channelClosed;
  return gas;
}

function finalizeGas(escrow: SimulatedBatchSettlement, config: ChannelConfig): bigint {
  const channelId = escrow.channelId(config);
  const ch = escrow.channel(channelId);
  const amount = min(escrow.pendingWithdrawal(channelId).amount, ch.balance - ch.totalClaimed);
  if (amount === 0n) return GAS.finalizeWithoutPayout;
  return GAS.finalizeWithdraw + (ch.balance === amount && ch.totalClaimed === 0n ? GAS.channelClosed : 0n);
}
