/**
 * The proposer-payment check's branches over a hand-written chain reader
 * (the devnet end-to-end test drives the same function over real sockets;
 * here the odd cases are pinned one by one): which method applies, the
 * withdrawal subtraction, a negative difference, a refusing pruned node, a
 * node that cannot be reached.
 */
import { describe, expect, it } from "vitest";
import { checkProposerPayment, type PaymentReader } from "../../../src/chains/ethereum/proposer-payment.js";
import type { EthBlockWithTxs } from "../../../src/chains/ethereum/rpc.js";
import { UpstreamError } from "../../../src/core/upstream.js";

const FEE = "0x00000000000000000000000000000000000000fe";
const BUILDER = "0x4838b106fce9647bdf1e7877bf73ce8b0bad5f97";
const HASH = `0x${"ab".repeat(32)}`;

/** A reader over one block and a balance table by block number. */
function reader(block: EthBlockWithTxs | null, balances: Record<string, bigint> | Error): PaymentReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    blockByHash: async () => block,
    balanceAt: async (account, n) => {
      asked.push(`${account}@${n}`);
      if (balances instanceof Error) throw balances;
      return balances[String(n)] ?? 0n;
    },
  };
}

const block = (over: Partial<EthBlockWithTxs> = {}): EthBlockWithTxs => ({ number: 100n, hash: HASH, miner: BUILDER, transactions: [], withdrawals: [], ...over });
const tx = (to: string | null, value: bigint) => ({ hash: `0x${"cd".repeat(32)}`, from: BUILDER, to, value });

describe("proposer payment on chain", () => {
  it("last_tx: the last transaction to the fee recipient, no state needed", async () => {
    const r = reader(block({ transactions: [tx("0x1111111111111111111111111111111111111111", 5n), tx(FEE.toUpperCase().replace("0X", "0x"), 7n)] }), new Error("not asked"));
    expect(await checkProposerPayment(r, { blockHash: HASH, feeRecipient: FEE })).toMatchObject({ method: "last_tx", payment: 7n, coinbaseIsProposer: false, coinbase: BUILDER });
    expect(r.asked).toEqual([]);
  });

  it("balance_diff when the last transaction goes elsewhere, less the withdrawals to the recipient only", async () => {
    const r = reader(
      block({ transactions: [tx(FEE, 3n), tx("0x2222222222222222222222222222222222222222", 1n)], withdrawals: [{ address: FEE, amountGwei: 2n }, { address: BUILDER, amountGwei: 9n }] }),
      { "99": 1_000n, "100": 1_000n + 3n + 2_000_000_000n },
    );
    expect(await checkProposerPayment(r, { blockHash: HASH, feeRecipient: FEE })).toEqual({ method: "balance_diff", payment: 3n, coinbase: BUILDER, coinbaseIsProposer: false, withdrawals: 2_000_000_000n });
    expect(r.asked.sort()).toEqual([`${FEE}@100`, `${FEE}@99`]);
  });

  it("a proposer coinbase is judged by its balance even when a last transaction pays it too", async () => {
    const r = reader(block({ miner: FEE, transactions: [tx(FEE, 5n)] }), { "99": 10n, "100": 25n });
    expect(await checkProposerPayment(r, { blockHash: HASH, feeRecipient: FEE })).toMatchObject({ method: "balance_diff", payment: 15n, coinbaseIsProposer: true });
  });

  it("a recipient that spent more than it got shows a negative payment, not a clamp", async () => {
    const r = reader(block(), { "99": 50n, "100": 20n });
    expect(await checkProposerPayment(r, { blockHash: HASH, feeRecipient: FEE })).toMatchObject({ method: "balance_diff", payment: -30n });
  });

  it("unavailable: the node lacks the block, or refuses the state (its reason kept); never a guess", async () => {
    expect(await checkProposerPayment(reader(null, {}), { blockHash: HASH, feeRecipient: FEE })).toMatchObject({ method: "unavailable", coinbase: null, coinbaseIsProposer: null });
    const pruned = new UpstreamError("chain_rpc_failed", "Ethereum node refused eth_getBalance: missing trie node", {}, -32000);
    const r = await checkProposerPayment(reader(block(), pruned), { blockHash: HASH, feeRecipient: FEE });
    expect(r).toMatchObject({ method: "unavailable", coinbaseIsProposer: false });
    expect(r.method === "unavailable" && r.reason).toMatch(/missing trie node.*archive node/);
  });

  it("a node that cannot be reached is an error, not an answer", async () => {
    const down = new UpstreamError("chain_rpc_failed", "Ethereum node did not answer", {});
    await expect(checkProposerPayment(reader(block(), down), { blockHash: HASH, feeRecipient: FEE })).rejects.toBe(down);
  });
});
