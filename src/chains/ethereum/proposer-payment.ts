/**
 * What a MEV-Boost block really paid its proposer, read on chain, next to
 * what the relays claimed (their bid trace `value`). The method is
 * relayscan's (flashbots/relayscan cmd/core/check-payload-value.go), in this
 * order:
 *   1. fetch the delivered block by the relay's block hash; a node without it
 *      (not seen yet, or replaced by a reorg) makes the check unavailable;
 *   2. `last_tx`: the builder is the coinbase and pays the proposer in the
 *      block's last transaction: that transaction's value, when it goes to
 *      the proposer's fee recipient;
 *   3. `balance_diff`: otherwise (the fee recipient is the coinbase, or the
 *      last transaction goes elsewhere) the fee recipient's balance at N minus
 *      at N−1, less the beacon withdrawals the block credits to it (EIP-4895
 *      withdrawals are applied at the end of a block and are not a payment;
 *      relayscan does not subtract them). This needs the node to hold the
 *      state of N−1: a pruned node that refuses it makes the check
 *      unavailable, with its reason; nothing is estimated.
 * A node that cannot be reached at all is not an answer: its error goes up
 * (the question answers 503 naming the node).
 */
import { UpstreamError } from "../../core/upstream.js";
import type { EthBlockWithTxs } from "./rpc.js";

/** The reads the check makes (EthRpc has them). */
export interface PaymentReader {
  blockByHash(hash: string, signal?: AbortSignal): Promise<EthBlockWithTxs | null>;
  balanceAt(account: string, block: bigint, signal?: AbortSignal): Promise<bigint>;
}

export type PaymentCheck =
  | { method: "last_tx"; payment: bigint; coinbase: string; coinbaseIsProposer: boolean; txHash: string }
  | { method: "balance_diff"; payment: bigint; coinbase: string; coinbaseIsProposer: boolean; withdrawals: bigint }
  | { method: "unavailable"; reason: string; coinbase: string | null; coinbaseIsProposer: boolean | null };

const GWEI = 1_000_000_000n;

/** The on-chain payment to `feeRecipient` of the block `blockHash` (see the header for the method). */
export async function checkProposerPayment(
  rpc: PaymentReader,
  delivered: { blockHash: string; feeRecipient: string },
  signal?: AbortSignal,
): Promise<PaymentCheck> {
  const recipient = delivered.feeRecipient.toLowerCase();
  const block = await rpc.blockByHash(delivered.blockHash, signal);
  if (!block) {
    return { method: "unavailable", reason: `The Ethereum node does not have block ${delivered.blockHash} (not seen yet, or replaced by a reorg).`, coinbase: null, coinbaseIsProposer: null };
  }
  const coinbase = block.miner.toLowerCase();
  const coinbaseIsProposer = coinbase === recipient;
  const last = block.transactions[block.transactions.length - 1];
  // A proposer coinbase earns fees as well: only the balance difference counts all of it.
  if (!coinbaseIsProposer && last && last.to?.toLowerCase() === recipient) {
    return { method: "last_tx", payment: last.value, coinbase, coinbaseIsProposer, txHash: last.hash };
  }
  if (block.number === 0n) return { method: "unavailable", reason: "The genesis block has no parent state to compare with.", coinbase, coinbaseIsProposer };
  let before: bigint;
  let after: bigint;
  try {
    [before, after] = await Promise.all([rpc.balanceAt(recipient, block.number - 1n, signal), rpc.balanceAt(recipient, block.number, signal)]);
  } catch (e) {
    // The node answered, with an error: typically a pruned node without the state of N−1.
    if (e instanceof UpstreamError && e.rpcCode !== undefined) {
      return {
        method: "unavailable",
        reason: `The Ethereum node has no state for block ${block.number - 1n} or ${block.number} (${e.message.slice(0, 200)}); the balance difference needs an archive node.`,
        coinbase,
        coinbaseIsProposer,
      };
    }
    throw e;
  }
  const withdrawals = block.withdrawals.filter((w) => w.address.toLowerCase() === recipient).reduce((a, w) => a + w.amountGwei * GWEI, 0n);
  return { method: "balance_diff", payment: after - before - withdrawals, coinbase, coinbaseIsProposer, withdrawals };
}
