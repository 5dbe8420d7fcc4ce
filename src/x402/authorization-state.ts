/**
 * What the chain says about one EIP-3009 authorisation, read-only: whether
 * the token contract marks it used (`authorizationState(authorizer, nonce)`)
 * and, if so, the transaction that used it and whether that transaction
 * moved exactly the price from the payer to our payTo. Paid work that was
 * interrupted between settlement and commit is resumed only on that
 * evidence; nothing here ever sends a transaction.
 *
 * "Used elsewhere" is a verdict that burns a payment row (it becomes
 * `failed`), so it is given only on positive evidence: an AuthorizationUsed
 * log whose transaction did not pay us, or an AuthorizationCanceled log. An
 * authorisation marked used whose log is not found (the search window, a
 * lagging node) is `used_unattributed`: nothing is concluded, the caller
 * asks again later. The log search ends at the chain head read after the
 * state, never at a cached head: viem caches eth_blockNumber per client for
 * 4 s, and a settlement mined inside that window was once judged "used
 * elsewhere" and the payer's money was lost
 * (test/e2e/payment-commit-cut.test.ts, test/x402/authorization-state.test.ts).
 *
 * RPC providers cap eth_getLogs ranges (often 500 to 2,000 blocks, each with
 * its own error message). A range the node refuses with a JSON-RPC error (or
 * an HTTP 400/413) is split in two and searched newest half first, down to
 * single blocks; a node that is down is not split for (its error is thrown).
 */
import { BaseError, createPublicClient, http, HttpRequestError, parseAbi, parseEventLogs, RpcRequestError, type Address, type Hex, type TransactionReceipt } from "viem";
import type { UsdcAsset } from "./networks.js";

const abi = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);
const AUTHORIZATION_USED = abi[1];
const AUTHORIZATION_CANCELED = abi[2];

/** Blocks searched back for the AuthorizationUsed log (about 5.5 h of 2 s blocks: longer than any authorisation lives). */
const LOOKBACK_BLOCKS = 10_000n;

export type AuthorizationFinding =
  | { state: "unused" }
  /** Used, by a transaction that paid payTo exactly `amount` from the authorizer. */
  | { state: "paid"; txHash: Hex }
  /** Used by a transaction that did not move the price to payTo, or cancelled: nothing reached us. */
  | { state: "used_elsewhere" }
  /** Marked used, but neither its AuthorizationUsed nor an AuthorizationCanceled log was found: no verdict yet. */
  | { state: "used_unattributed" };

export interface AuthorizationReader {
  /**
   * `txHash`: the settlement transaction our facilitator reported for this
   * authorisation, if any; its receipt is read first (a hint, never trusted
   * without the receipt).
   */
  check(authorizer: string, nonce: string, amount: bigint, hint?: { txHash?: string | null }): Promise<AuthorizationFinding>;
}

export function createAuthorizationReader(opts: { rpcUrl: string; usdc: UsdcAsset; payTo: string; timeoutMs?: number }): AuthorizationReader {
  const client = createPublicClient({ transport: http(opts.rpcUrl, { timeout: opts.timeoutMs ?? 10_000, retryCount: 1 }) });
  const asset = opts.usdc.asset;
  const payTo = opts.payTo.toLowerCase();

  /** Whether this receipt used (authorizer, nonce) and moved exactly `amount` from the authorizer to payTo. */
  function pays(receipt: TransactionReceipt, authorizer: string, nonce: string, amount: bigint): boolean {
    if (receipt.status !== "success") return false;
    const ours = receipt.logs.filter((l) => l.address.toLowerCase() === asset.toLowerCase());
    const used = parseEventLogs({ abi, eventName: "AuthorizationUsed", logs: ours }).some(
      (u) => u.args.authorizer.toLowerCase() === authorizer.toLowerCase() && u.args.nonce.toLowerCase() === nonce.toLowerCase(),
    );
    if (!used) return false;
    return parseEventLogs({ abi, eventName: "Transfer", logs: ours }).some(
      (t) => t.args.from.toLowerCase() === authorizer.toLowerCase() && t.args.to.toLowerCase() === payTo && t.args.value === amount,
    );
  }

  type LogEvent = typeof AUTHORIZATION_USED | typeof AUTHORIZATION_CANCELED;
  /** The event's logs for (authorizer, nonce) in [from, to], newest windows first; stops at the first window that has any. */
  async function findLogs(event: LogEvent, args: { authorizer: Address; nonce: Hex }, from: bigint, to: bigint): Promise<readonly { transactionHash: Hex | null }[]> {
    try {
      return await client.getLogs({ address: asset, event, args, fromBlock: from, toBlock: to });
    } catch (e) {
      if (to <= from || !refusedAsTooLarge(e)) throw e;
      const mid = from + (to - from) / 2n;
      const newer = await findLogs(event, args, mid + 1n, to);
      return newer.length > 0 ? newer : findLogs(event, args, from, mid);
    }
  }

  return {
    async check(authorizer, nonce, amount, hint) {
      const used = await client.readContract({
        address: asset,
        abi,
        functionName: "authorizationState",
        args: [authorizer as Address, nonce as Hex],
      });
      if (!used) return { state: "unused" };
      // The transaction our facilitator reported: its receipt settles it without a log search.
      if (hint?.txHash && /^0x[0-9a-fA-F]{64}$/.test(hint.txHash)) {
        const receipt = await client.getTransactionReceipt({ hash: hint.txHash as Hex }).catch(() => null);
        if (receipt && pays(receipt, authorizer, nonce, amount)) return { state: "paid", txHash: receipt.transactionHash };
      }
      // The head now, read after the state (cacheTime 0: viem's cached head may predate the settlement's block).
      const latest = await client.getBlockNumber({ cacheTime: 0 });
      const fromBlock = latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n;
      const args = { authorizer: authorizer as Address, nonce: nonce as Hex };
      const logs = await findLogs(AUTHORIZATION_USED, args, fromBlock, latest);
      for (const log of logs) {
        if (!log.transactionHash) continue;
        const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
        if (pays(receipt, authorizer, nonce, amount)) return { state: "paid", txHash: log.transactionHash };
      }
      // Positive evidence only: a transaction that used it and did not pay us, or a cancellation.
      if (logs.some((l) => l.transactionHash)) return { state: "used_elsewhere" };
      const cancelled = await findLogs(AUTHORIZATION_CANCELED, args, fromBlock, latest);
      if (cancelled.length > 0) return { state: "used_elsewhere" };
      return { state: "used_unattributed" };
    },
  };
}

/** The node answered, refusing the request (a range or result-size cap), rather than not answering at all. */
function refusedAsTooLarge(e: unknown): boolean {
  if (!(e instanceof BaseError)) return false;
  return Boolean(e.walk((x) => x instanceof RpcRequestError || (x instanceof HttpRequestError && (x.status === 400 || x.status === 413))));
}
