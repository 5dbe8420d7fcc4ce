/**
 * The `local` facilitator mode: verify and settle x402 `exact` EIP-3009
 * payments ourselves against any EVM JSON-RPC (Base, Base Sepolia, or the
 * devnet's simulated chain), with the official pieces: x402Facilitator from
 * @x402/core and ExactEvmScheme from @x402/evm over a viem wallet+public
 * client. The facilitator key only pays gas; it never holds customer funds.
 *
 * What the wrapper adds around the official scheme:
 * - Outcomes, not exceptions, for everything the payer or the requirements
 *   got wrong: an unsupported network, scheme or version, a malformed payload
 *   or a non-EIP-3009 payload come back as {isValid:false} / {success:false}
 *   with a reason (the core facilitator would throw for some of these).
 * - RPC outages are not disguised as payment faults. The official code turns
 *   some transport failures into "invalid signature" (it treats a failed
 *   eth_getCode as an invalid signer). Every RPC call is tracked per
 *   operation; if one failed at the transport level and the operation did
 *   not succeed, verify/settle throw LocalFacilitatorRpcError (a
 *   FacilitatorResponseError, so x402 middleware answers 502). On settle,
 *   `indeterminate` says whether the broadcast itself may have reached the
 *   node, in which case the payer's authorisation may still be executed:
 *   reconcile with authorizationState(from, nonce) before anything else.
 *   A broadcast whose receipt wait failed keeps the official outcome
 *   {success:false, errorReason:"settlement_pending", transaction} so the
 *   caller can reconcile against the hash.
 * - The RPC must serve the configured chain: the first operation checks
 *   eth_chainId and refuses a mismatch (a mainnet facilitator is never
 *   pointed at a test chain by accident, nor the reverse).
 * - Broadcasts from each gas key are serialised in-process, so concurrent
 *   settlements never race for the same account nonce. Run one process per
 *   key. A settlement's gas is estimated before it joins the queue, and the
 *   broadcast names the chain id (viem would otherwise ask the node to fill
 *   the transaction): only signing and the send are serial, one round trip
 *   per settlement, not three. With several gas keys each settlement goes to
 *   the key with the fewest broadcasts waiting, so n keys settle up to n
 *   payments per round trip to the node.
 * - Each JSON-RPC call goes through undici's request, not the global fetch
 *   (rpc-fetch.ts): about a quarter of a millisecond less CPU per call.
 * - Fewer round trips to the RPC per payment (each is a network round trip
 *   to a hosted node, and every paid call waits for them): the official
 *   scheme asks for the payer's code twice in one verify or settle, which one
 *   answer serves; the key's next nonce is read once and then counted here
 *   (serialised broadcasts make that exact), read again after any failed
 *   broadcast or receipt wait; the fee estimate (a block and the priority
 *   fee) is kept for FEE_TTL_MS, well inside the headroom viem's 1.2× base
 *   fee multiplier leaves on a chain whose base fee moves at most a few per
 *   cent a block. A settlement went from eleven round trips to six, and to five with the next point.
 * - A settle of a payment this facilitator has just verified does not check its signature again
 *   (verified-settle.ts): the same outcomes as the official settle, one secp256k1 recovery less.
 * - A good payment's signature is checked with a faster curve library, and a returning payer's
 *   against its remembered key (quick-verify.ts): the official verify's outcomes, at about a third
 *   of its signature check's cost.
 * - It speaks `batch-settlement` too, through the official facilitator scheme (deposits, claim
 *   batches, settlements to the receiver, cooperative refunds; docs/batch-settlement.md), over the
 *   same tracked RPC and gas keys. It advertises no receiverAuthorizer: the service signs its own
 *   claim batches and refunds (BATCH_RECEIVER_AUTHORIZER_KEY), so this facilitator only pays gas.
 *   A claim batch that would change nothing on chain (every row already claimed, e.g. a batch
 *   replayed after a crash) is refused without a broadcast (batch-claims.ts): the contract would
 *   run it as a no-op and the gas (~31k) would buy nothing.
 */
import { InMemoryPendingSettlementStore, x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient } from "@x402/core/http";
import {
  FacilitatorResponseError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/facilitator";
import { BATCH_SETTLEMENT_SCHEME } from "@x402/evm";
import { refuseNoOpClaims } from "./batch-claims.js";
import { toFacilitatorEvmSigner } from "@x402/evm";
import {
  BaseError,
  HttpRequestError,
  NonceTooHighError,
  NonceTooLowError,
  TimeoutError,
  createWalletClient,
  http,
  isAddress,
  isHex,
  publicActions,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { LRUCache } from "lru-cache";
import { createRpcFetch } from "./rpc-fetch.js";
import { settleVerifiedOnce, verifiedPayments } from "./verified-settle.js";
import { payerRecovery, verifyQuickly } from "./quick-verify.js";
import { base, baseSepolia } from "viem/chains";

export type LocalFacilitatorNetwork = "eip155:8453" | "eip155:84532";

export interface LocalFacilitatorOptions {
  /** Any EVM JSON-RPC endpoint for the network (the devnet's in devnet mode). */
  rpcUrl: string;
  /**
   * The facilitator's gas-paying key, or several: each key broadcasts one settlement at a time (its
   * nonces in order), and a settlement goes to the key with the fewest waiting, so with a distant
   * node n keys settle up to n times as many payments a second.
   */
  privateKey: Hex | readonly Hex[];
  network: LocalFacilitatorNetwork;
  /** Bound on each receipt wait; past it settle reports settlement_pending. Default 60 s. */
  confirmationTimeoutMs?: number;
  /** Per-request RPC timeout. Default 10 s. */
  rpcTimeoutMs?: number;
  /** Transport retries per RPC request on network errors / 5xx. Default 2. */
  rpcRetryCount?: number;
  /**
   * A settle of a payment this facilitator verified moments ago skips the official scheme's second
   * signature check (verified-settle.ts). Default true; false settles through the official scheme only.
   */
  settleVerifiedOnce?: boolean;
  /**
   * A good plain EIP-3009 payment is found valid with a cheaper signature check than the official
   * verify's (quick-verify.ts); anything else goes to the official verify. Default true; false
   * verifies through the official scheme only.
   */
  quickVerify?: boolean;
}

export interface LocalFacilitator extends FacilitatorClient {
  /** The first gas-paying address. */
  readonly address: Address;
  /** Every gas-paying address (all listed under signers in getSupported). */
  readonly addresses: readonly Address[];
  readonly network: LocalFacilitatorNetwork;
}

/** The RPC behind the local facilitator failed; the payment's validity is unknown. */
export class LocalFacilitatorRpcError extends FacilitatorResponseError {
  readonly operation: "verify" | "settle";
  /**
   * settle only: true when the failure hit eth_sendRawTransaction itself, so the
   * transfer may still land. Reconcile with authorizationState(from, nonce).
   */
  readonly indeterminate: boolean;
  override readonly cause: unknown;

  constructor(operation: "verify" | "settle", message: string, options: { indeterminate?: boolean; cause?: unknown } = {}) {
    super(`local facilitator ${operation}: ${message}`);
    this.name = "LocalFacilitatorRpcError";
    this.operation = operation;
    this.indeterminate = options.indeterminate ?? false;
    this.cause = options.cause;
  }
}

/** Reason strings this wrapper produces itself (the rest come from @x402/evm). */
export const LocalFacilitatorReasons = {
  invalidVersion: "invalid_x402_version",
  unsupportedScheme: "unsupported_scheme",
  invalidNetwork: "invalid_network",
  invalidPayload: "invalid_payload",
  invalidRequirements: "invalid_payment_requirements",
} as const;

interface OperationContext {
  transportErrors: Error[];
  /** A transport error hit eth_sendRawTransaction: the transaction may be on its way. */
  broadcastUncertain: boolean;
  /** eth_getCode answers within this verify or settle, by lower-case address. */
  code: Map<string, Promise<Hex | undefined>>;
}

/** How long a fee estimate is reused for the next broadcasts (about one Base block). */
export const FEE_TTL_MS = 2_000;

const newContext = (): OperationContext => ({ transportErrors: [], broadcastUncertain: false, code: new Map() });

const CHAINS = { "eip155:8453": base, "eip155:84532": baseSepolia } as const;

function isTransportError(err: unknown): err is BaseError {
  return (
    err instanceof BaseError &&
    err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null
  );
}

function touchesBroadcast(err: BaseError): boolean {
  const inner = err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) as
    | (HttpRequestError | TimeoutError)
    | null;
  const body = (inner as { body?: unknown } | null)?.body;
  const requests = Array.isArray(body) ? body : [body];
  return requests.some((r) => typeof r === "object" && r !== null && (r as { method?: unknown }).method === "eth_sendRawTransaction");
}

const uint = (v: unknown) => typeof v === "string" && /^\d{1,78}$/.test(v);
const addr = (v: unknown) => typeof v === "string" && isAddress(v, { strict: false });

/** Returns a reason when the payload is not a v2 exact EIP-3009 payment we can check. */
function payloadProblem(payload: PaymentPayload): string | undefined {
  if (!payload || typeof payload !== "object") return "payment payload is not an object";
  if (!payload.accepted || typeof payload.accepted !== "object") return "payment payload has no accepted requirements";
  const inner = payload.payload as Record<string, unknown> | undefined;
  if (!inner || typeof inner !== "object") return "payment payload has no payload";
  const auth = inner.authorization as Record<string, unknown> | undefined;
  if (!auth || typeof auth !== "object") return "only EIP-3009 authorizations are accepted";
  if (!addr(auth.from) || !addr(auth.to)) return "authorization from/to must be addresses";
  if (!uint(auth.value) || !uint(auth.validAfter) || !uint(auth.validBefore)) {
    return "authorization value/validAfter/validBefore must be decimal strings";
  }
  if (typeof auth.nonce !== "string" || !isHex(auth.nonce, { strict: true }) || auth.nonce.length !== 66) {
    return "authorization nonce must be 32 bytes of hex";
  }
  if (typeof inner.signature !== "string" || !isHex(inner.signature, { strict: true }) || inner.signature.length < 4) {
    return "signature must be hex";
  }
  return undefined;
}

/** A batch-settlement payload must at least be an object of a known type. */
function batchPayloadProblem(payload: PaymentPayload): string | undefined {
  if (!payload || typeof payload !== "object") return "payment payload is not an object";
  const inner = payload.payload as Record<string, unknown> | undefined;
  if (!inner || typeof inner !== "object") return "payment payload has no payload";
  if (!["deposit", "voucher", "refund", "claim", "settle"].includes(String(inner.type))) return "batch-settlement payload type must be deposit, voucher, refund, claim or settle";
  return undefined;
}

function requirementsProblem(req: PaymentRequirements): string | undefined {
  if (!req || typeof req !== "object") return "payment requirements are not an object";
  if (!addr(req.asset)) return "asset must be an address";
  if (!addr(req.payTo)) return "payTo must be an address";
  if (!uint(req.amount)) return "amount must be a decimal string of atomic units";
  const extra = req.extra as Record<string, unknown> | undefined;
  // batch-settlement asks for the token's domain only for a deposit, and its scheme says so itself.
  if (req.scheme === "exact" && (!extra || typeof extra.name !== "string" || typeof extra.version !== "string")) {
    return "extra.name and extra.version (the token's EIP-712 domain) are required";
  }
  return undefined;
}

export function createLocalFacilitator(options: LocalFacilitatorOptions): LocalFacilitator {
  const { rpcUrl, privateKey, network } = options;
  const chain = CHAINS[network];
  if (!chain) throw new Error(`local facilitator: unsupported network ${String(network)}`);
  const keys = typeof privateKey === "string" ? [privateKey] : [...privateKey];
  if (keys.length === 0) throw new Error("local facilitator: at least one gas key is needed");
  const accounts = keys.map((k) => privateKeyToAccount(k));
  const addresses = accounts.map((a) => a.address);
  if (new Set(addresses).size !== addresses.length) throw new Error("local facilitator: a gas key is given twice");
  const transport = http(rpcUrl, { timeout: options.rpcTimeoutMs ?? 10_000, retryCount: options.rpcRetryCount ?? 2, fetchFn: createRpcFetch() });
  const clientOf = (account: (typeof accounts)[number]) => createWalletClient({ account, chain, transport }).extend(publicActions);
  const client = clientOf(accounts[0]!);

  /** Runs one RPC call of an operation; a transport failure is recorded on the operation's context. */
  const trackedIn = (ctx: OperationContext | undefined) => async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (ctx && isTransportError(err)) {
        ctx.transportErrors.push(err);
        if (touchesBroadcast(err)) ctx.broadcastUncertain = true;
      }
      throw err;
    }
  };

  let fees: { at: number; value: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> } | undefined;
  const currentFees = () => {
    if (!fees || Date.now() - fees.at > FEE_TTL_MS) {
      const value = client.estimateFeesPerGas({ type: "eip1559" });
      const entry = { at: Date.now(), value };
      fees = entry;
      value.catch(() => {
        if (fees === entry) fees = undefined;
      });
    }
    return fees.value;
  };
  type Lane = GasKeyLane<typeof client>;
  const lanes: Lane[] = accounts.map((a, i) => {
    const c = i === 0 ? client : clientOf(a);
    return gasKeyLane(c, () => c.getTransactionCount({ address: a.address, blockTag: "pending" }), currentFees);
  });
  // Which key sent a transaction still awaiting its receipt: a failed wait makes that key read its nonce again.
  const sentBy = new LRUCache<Hex, Lane>({ max: 10_000 });
  let turn = 0;
  /** The key with the fewest broadcasts waiting (the next in turn among equals) sends this one. */
  const broadcast = <T extends Hex>(send: (lane: Lane, prepared: PreparedFees) => Promise<T>): Promise<T> => {
    let lane = lanes[turn++ % lanes.length]!;
    for (const l of lanes) if (l.waiting < lane.waiting) lane = l;
    return lane.broadcast((prepared) => send(lane, prepared)).then((hash) => (sentBy.set(hash, lane), hash));
  };

  /** The payer's code, asked once per verify or settle. */
  const codeIn = (ctx: OperationContext | undefined) => (address: Address): Promise<Hex | undefined> => {
    if (!ctx) return client.getCode({ address });
    const key = address.toLowerCase();
    let code = ctx.code.get(key);
    if (!code) {
      code = client.getCode({ address });
      ctx.code.set(key, code);
      code.catch(() => ctx.code.delete(key));
    }
    return code;
  };

  // The official adapter's signature types are looser than viem's generics; the casts only bridge them.
  type WriteArgs = Parameters<typeof client.writeContract>[0];
  type ReadArgs = Parameters<typeof client.readContract>[0];
  type TypedArgs = Parameters<typeof client.verifyTypedData>[0];
  /**
   * The official adapter over this process's clients, for one operation: its RPC calls are tracked
   * on `ctx` (transport failures, the payer's code). Each verify and settle gets its own, so no
   * AsyncLocalStorage is needed to tell operations apart: once used, one would add promise hooks to
   * every promise of the process, every request's included (bench/README.md).
   */
  const signerFor = (ctx: OperationContext | undefined) => {
    const tracked = trackedIn(ctx);
    const codeAt = codeIn(ctx);
    const adapter = toFacilitatorEvmSigner(
      {
        address: addresses[0]!,
        getCode: (a) => tracked(() => codeAt(a.address)),
        readContract: (a) => tracked(() => client.readContract({ ...a, args: a.args ?? [] } as unknown as ReadArgs)),
        verifyTypedData: (a) => tracked(() => client.verifyTypedData(a as unknown as TypedArgs)),
        // The gas is estimated before the broadcast queue, not inside it: an estimate does not depend on
        // the key's nonce, and inside the queue its round trip (the node runs the transfer) held up every
        // other settlement's broadcast; only signing and the send are serial now.
        writeContract: (a) =>
          tracked(async () => {
            const args = { ...a, args: a.args ?? [] } as unknown as WriteArgs;
            // prepare: false — one eth_estimateGas; viem would otherwise read the nonce and the fees for it.
            const gas = (a as { gas?: bigint }).gas ?? (await client.estimateContractGas({ ...args, prepare: false } as unknown as Parameters<typeof client.estimateContractGas>[0]));
            // chainId given: viem would otherwise ask the node to fill the transaction (eth_fillTransaction,
            // which geth and anvil serve): one more round trip, inside the queue.
            return broadcast((lane, prepared) => lane.client.writeContract({ ...args, ...prepared, gas, chainId: chain.id } as unknown as WriteArgs));
          }),
        sendTransaction: (a) => tracked(() => broadcast((lane, prepared) => lane.client.sendTransaction({ ...a, ...prepared, chainId: chain.id }))),
        waitForTransactionReceipt: (a) =>
          tracked(() =>
            client.waitForTransactionReceipt(a).then(
              (receipt) => (sentBy.delete(a.hash), receipt),
              (err: unknown) => {
                // The transaction may have been dropped: the pending count is the truth again.
                sentBy.get(a.hash)?.forgetNonce();
                sentBy.delete(a.hash);
                throw err;
              },
            ),
          ),
      },
      { confirmationTimeoutMs: options.confirmationTimeoutMs ?? 60_000 },
    );
    // Every gas key is listed under signers in getSupported, not only the first.
    return { ...adapter, getAddresses: () => addresses };
  };

  // Shared by every operation: settlements awaiting their receipt (for the retry), and the payments
  // verified here, whose settle skips the second signature check (verified-settle.ts).
  const pending = new InMemoryPendingSettlementStore();
  const pendingDeposits = new InMemoryPendingSettlementStore();
  const verified = verifiedPayments();
  // The payers' keys, for the verify's signature check (quick-verify.ts).
  const payers = payerRecovery();
  /** The official facilitator and scheme for one operation, over a signer bound to its context. */
  const facilitatorFor = (ctx: OperationContext | undefined) => {
    const signer = signerFor(ctx);
    const official = new ExactEvmScheme(signer, { pendingSettlementStore: pending });
    // The quick road's RPC calls are tracked apart: a transport failure on it sends the payment to the
    // official verify, whose own calls alone decide whether its answer is an RPC error.
    const scheme = options.quickVerify === false || !ctx ? official : verifyQuickly(official, { signer: signerFor(newContext()), chainId: chain.id, recover: payers });
    const batch = refuseNoOpClaims(new BatchSettlementEvmScheme(signer, undefined, { pendingSettlementStore: pendingDeposits }), signer);
    return new x402Facilitator()
      .register(network, options.settleVerifiedOnce === false ? scheme : settleVerifiedOnce(scheme, { signer, pending, verified }))
      .register(network, batch);
  };
  const facilitator = facilitatorFor(undefined);

  let chainChecked: Promise<void> | undefined;
  const checkChain = (operation: "verify" | "settle"): Promise<void> => {
    chainChecked ??= (async () => {
      let id: number;
      try {
        id = await client.getChainId();
      } catch (err) {
        throw new LocalFacilitatorRpcError(operation, `cannot reach the RPC at ${rpcUrl}: ${shortMessage(err)}`, { cause: err });
      }
      if (id !== chain.id) {
        throw new LocalFacilitatorRpcError(
          operation,
          `the RPC at ${rpcUrl} serves chain ${id}, but this facilitator settles ${network} (chain ${chain.id})`,
        );
      }
    })();
    return chainChecked.catch((err: unknown) => {
      chainChecked = undefined;
      throw err;
    });
  };

  /** Checks that need no chain access; a reason string means the payment is refused. */
  const precheck = (payload: PaymentPayload, requirements: PaymentRequirements): { reason: string; message: string } | undefined => {
    if (!payload || payload.x402Version !== 2) {
      return { reason: LocalFacilitatorReasons.invalidVersion, message: "only x402 version 2 payloads are accepted" };
    }
    const reqProblem = requirementsProblem(requirements);
    if (reqProblem) return { reason: LocalFacilitatorReasons.invalidRequirements, message: reqProblem };
    if (requirements.scheme !== "exact" && requirements.scheme !== BATCH_SETTLEMENT_SCHEME) {
      return { reason: LocalFacilitatorReasons.unsupportedScheme, message: `scheme ${requirements.scheme} is not supported` };
    }
    if (requirements.network !== network) {
      return {
        reason: LocalFacilitatorReasons.invalidNetwork,
        message: `this facilitator settles ${network}, not ${requirements.network}`,
      };
    }
    // A batch-settlement payload's shape is the official scheme's to judge (it answers each kind with a reason).
    const problem = requirements.scheme === "exact" ? payloadProblem(payload) : batchPayloadProblem(payload);
    if (problem) return { reason: LocalFacilitatorReasons.invalidPayload, message: problem };
    return undefined;
  };

  const payerOf = (payload: PaymentPayload): string | undefined => {
    const inner = payload?.payload as { authorization?: { from?: unknown }; channelConfig?: { payer?: unknown } } | undefined;
    const from = inner?.authorization?.from ?? inner?.channelConfig?.payer;
    return typeof from === "string" ? from : undefined;
  };

  return {
    address: addresses[0]!,
    addresses,
    network,

    async verify(payload, requirements): Promise<VerifyResponse> {
      const refused = precheck(payload, requirements);
      if (refused) {
        return { isValid: false, invalidReason: refused.reason, invalidMessage: refused.message, payer: payerOf(payload) };
      }
      await checkChain("verify");
      const ctx = newContext();
      let result: VerifyResponse;
      try {
        result = await facilitatorFor(ctx).verify(payload, requirements);
      } catch (err) {
        if (ctx.transportErrors.length > 0) {
          throw new LocalFacilitatorRpcError("verify", `RPC failed: ${shortMessage(ctx.transportErrors[0])}`, { cause: err });
        }
        throw err;
      }
      if (!result.isValid && ctx.transportErrors.length > 0) {
        throw new LocalFacilitatorRpcError("verify", `RPC failed: ${shortMessage(ctx.transportErrors[0])}`, {
          cause: ctx.transportErrors[0],
        });
      }
      return result;
    },

    async settle(payload, requirements): Promise<SettleResponse> {
      const refused = precheck(payload, requirements);
      if (refused) {
        return {
          success: false,
          errorReason: refused.reason,
          errorMessage: refused.message,
          transaction: "",
          network: requirements?.network ?? network,
          payer: payerOf(payload),
        };
      }
      await checkChain("settle");
      const ctx = newContext();
      let result: SettleResponse;
      try {
        result = await facilitatorFor(ctx).settle(payload, requirements);
      } catch (err) {
        if (ctx.transportErrors.length > 0) {
          throw new LocalFacilitatorRpcError("settle", `RPC failed: ${shortMessage(ctx.transportErrors[0])}`, {
            cause: err,
            indeterminate: ctx.broadcastUncertain,
          });
        }
        throw err;
      }
      if (!result.success && result.errorReason !== "settlement_pending" && ctx.transportErrors.length > 0) {
        throw new LocalFacilitatorRpcError("settle", `RPC failed: ${shortMessage(ctx.transportErrors[0])}`, {
          cause: ctx.transportErrors[0],
          indeterminate: ctx.broadcastUncertain,
        });
      }
      return result;
    },

    async getSupported(): Promise<SupportedResponse> {
      return facilitator.getSupported() as SupportedResponse;
    },
  };
}

type PreparedFees = { nonce: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

interface GasKeyLane<C> {
  readonly client: C;
  /** Broadcasts queued on this key or in flight. */
  readonly waiting: number;
  broadcast<T>(send: (prepared: PreparedFees) => Promise<T>): Promise<T>;
  /** The next broadcast reads the key's pending nonce from the node again. */
  forgetNonce(): void;
}

/**
 * One gas key's broadcasts, one at a time: each takes the nonce after the previous one was accepted.
 * The nonce is counted here between reads of the key's pending count; any failed broadcast makes
 * the next one read it again, and a node that says the nonce is wrong (the key was used elsewhere)
 * gets one more try at once with the nonce read again. Fees are shared by all keys.
 */
function gasKeyLane<C>(
  client: C,
  pendingCount: () => Promise<number>,
  currentFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>,
): GasKeyLane<C> {
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  let nextNonce: number | undefined;
  const takeNonce = async (): Promise<number> => (nextNonce ??= await pendingCount());
  const sendInTurn = async <T>(send: (prepared: PreparedFees) => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        const [nonce, fee] = await Promise.all([takeNonce(), currentFees()]);
        const result = await send({ nonce, ...fee });
        nextNonce = nonce + 1;
        return result;
      } catch (err) {
        nextNonce = undefined;
        if (attempt === 0 && err instanceof BaseError && err.walk((e) => e instanceof NonceTooLowError || e instanceof NonceTooHighError)) continue;
        throw err;
      }
    }
  };
  return {
    client,
    get waiting() {
      return waiting;
    },
    broadcast(send) {
      waiting++;
      const run = queue.then(() => sendInTurn(send)).finally(() => waiting--);
      queue = run.catch(() => undefined);
      return run;
    },
    forgetNonce: () => void (nextNonce = undefined),
  };
}

function shortMessage(err: unknown): string {
  if (err instanceof BaseError) return err.shortMessage;
  return err instanceof Error ? err.message.split("\n")[0]! : String(err);
}
