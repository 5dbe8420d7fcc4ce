/**
 * What the chain says about one EIP-3009 authorisation, read-only: whether
 * the token contract marks it used (`authorizationState(authorizer, nonce)`)
 * and, if so, the transaction that used it and whether that transaction
 * moved exactly the price from the payer to our payTo. Paid work that was
 * interrupted between settlement and commit is resumed only on that
 * evidence; nothing here ever sends a transaction.
 */
import { createPublicClient, http, parseAbi, parseEventLogs, type Address, type Hex } from "viem";
import type { UsdcAsset } from "./networks.js";

const abi = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

/** Blocks searched back for the AuthorizationUsed log (about 5.5 h of 2 s blocks: longer than any authorisation lives). */
const LOOKBACK_BLOCKS = 10_000n;

export type AuthorizationFinding =
  | { state: "unused" }
  /** Used, by a transaction that paid payTo exactly `amount` from the authorizer. */
  | { state: "paid"; txHash: Hex }
  /** Used, but no transaction moving the price to payTo was found (cancelled, or used elsewhere). */
  | { state: "used_elsewhere" };

export interface AuthorizationReader {
  check(authorizer: string, nonce: string, amount: bigint): Promise<AuthorizationFinding>;
}

export function createAuthorizationReader(opts: { rpcUrl: string; usdc: UsdcAsset; payTo: string; timeoutMs?: number }): AuthorizationReader {
  const client = createPublicClient({ transport: http(opts.rpcUrl, { timeout: opts.timeoutMs ?? 10_000, retryCount: 1 }) });
  const asset = opts.usdc.asset;
  const payTo = opts.payTo.toLowerCase();
  return {
    async check(authorizer, nonce, amount) {
      const used = await client.readContract({
        address: asset,
        abi,
        functionName: "authorizationState",
        args: [authorizer as Address, nonce as Hex],
      });
      if (!used) return { state: "unused" };
      const latest = await client.getBlockNumber();
      const logs = await client.getLogs({
        address: asset,
        event: abi[1],
        args: { authorizer: authorizer as Address, nonce: nonce as Hex },
        fromBlock: latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n,
        toBlock: latest,
      });
      for (const log of logs) {
        if (!log.transactionHash) continue;
        const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
        if (receipt.status !== "success") continue;
        const transfers = parseEventLogs({ abi, eventName: "Transfer", logs: receipt.logs.filter((l) => l.address.toLowerCase() === asset.toLowerCase()) });
        const paid = transfers.some(
          (t) => t.args.from.toLowerCase() === authorizer.toLowerCase() && t.args.to.toLowerCase() === payTo && t.args.value === amount,
        );
        if (paid) return { state: "paid", txHash: log.transactionHash };
      }
      return { state: "used_elsewhere" };
    },
  };
}
