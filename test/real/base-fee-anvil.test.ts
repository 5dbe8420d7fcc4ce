/**
 * /v1/q/base-fee against a real EVM: Foundry's anvil with a 210,000 gas
 * block limit, so a handful of transfers fill or empty a block and move the
 * EIP-1559 base fee by the rule's full 12.5 %. Vigil's Ethereum follower
 * ingests anvil's headers over JSON-RPC (ETH_RPC_URL), and each answer is
 * checked against the node's own figures: the head's number, base fee and
 * gas used (eth_getBlockByNumber, eth_feeHistory), and the projection of the
 * next block's base fee against the base fee anvil then gives that block.
 *
 * The load is random and seeded (fast-check; VIGIL_SEED replays a run): each
 * block gets 0–13 transactions with 0–200 bytes of calldata, from several
 * senders; what does not fit waits in anvil's pool for the next block. Blocks
 * are mined by hand 12 s apart (evm_setNextBlockTimestamp + evm_mine) and
 * the app's clock follows them, so every answer is fresh and none is cached.
 *
 * Blobs: anvil reports blobGasUsed and excessBlobGas (both 0: nothing here
 * sends blob transactions, which need a KZG library the project does not
 * carry), so the blob fee and its projection are compared too, at the
 * minimum the rule gives for zero excess.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { formatGwei, hexToBigInt, parseGwei, type Hex } from "viem";
import { realNodesRun, anvilNeeds } from "../helpers/real-nodes.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { ManualClock } from "../../src/core/clock.js";
import { followEthereumOnce } from "../../src/ingest/ethereum-follower.js";

const runs = realNodesRun("base-fee against anvil", anvilNeeds);

const SEED = Number(process.env.VIGIL_SEED ?? 20_260_522);
const BLOCKS = 30;
const SLOT = 12;

/** The block fields the comparisons read, as anvil returns them. */
interface NodeBlock {
  number: Hex;
  timestamp: Hex;
  baseFeePerGas: Hex;
  gasUsed: Hex;
  gasLimit: Hex;
  blobGasUsed?: Hex;
  excessBlobGas?: Hex;
  transactions: Hex[];
}
interface NodeFeeHistory {
  baseFeePerGas: Hex[];
  gasUsedRatio: number[];
  baseFeePerBlobGas?: Hex[];
}

/** A decimal string as an integer scaled by 10^6 (the ratio's 6 decimals). */
function micro(decimal: string): bigint {
  const [whole, frac = ""] = decimal.split(".");
  return BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, "0").slice(0, 6));
}

describe.skipIf(!runs)("base-fee against anvil (real EIP-1559 blocks under random load)", () => {
  let node: AnvilNode;
  let t: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    node = await startAnvil({ chainId: 31337, gasLimit: 210_000n, noMining: true });
    t = await startTestApp({ ETH_RPC_URL: node.url }, { clock });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await node?.close();
  });

  const block = (tag: bigint | "latest") => node.rpc<NodeBlock>("eth_getBlockByNumber", [typeof tag === "bigint" ? `0x${tag.toString(16)}` : tag, false]);
  const feeHistory = (n: bigint) => node.rpc<NodeFeeHistory>("eth_feeHistory", ["0x1", `0x${n.toString(16)}`, []]);

  async function follow(): Promise<string> {
    for (;;) {
      const r = await followEthereumOnce(t.app.ethereum);
      if (!r.more) return r.scheduleCheck;
    }
  }

  it("each answer equals the node's head, and its next_base_fee is the base fee anvil gives the next block", async () => {
    const loads = fc.sample(fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 13 }), { seed: SEED, numRuns: BLOCKS });
    const senders = node.accounts.slice(1);
    const nonces = new Map(senders.map((a) => [a.address, 0]));
    const recipient = node.accounts[0]!.address;
    let prev: { answer: Record<string, unknown>; number: bigint } | undefined;
    const moved = { up: 0, down: 0, same: 0 };
    let sent = 0;

    for (const [i, load] of loads.entries()) {
      const where = `seed ${SEED}, block ${i + 1} of ${BLOCKS}`;
      const head0 = await block("latest");
      for (const dataBytes of load) {
        const from = senders[sent++ % senders.length]!;
        const nonce = nonces.get(from.address)!;
        nonces.set(from.address, nonce + 1);
        await node.wallet(from).sendTransaction({
          account: from,
          chain: node.chain,
          to: recipient,
          value: 1n,
          data: dataBytes ? (`0x${"ab".repeat(dataBytes)}` as Hex) : undefined,
          nonce,
          // No gas given: the node estimates it (calldata pricing, EIP-7623's floor included, is the node's business).
          // Far above any base fee this run reaches, so nothing is priced out of the block.
          maxFeePerGas: parseGwei("1000"),
          maxPriorityFeePerGas: parseGwei("1"),
        });
      }
      await node.rpc("evm_setNextBlockTimestamp", [Number(hexToBigInt(head0.timestamp)) + SLOT]);
      await node.rpc("evm_mine", []);

      const schedule = await follow();
      const head = await block("latest");
      const number = hexToBigInt(head.number);
      expect(number, where).toBe(hexToBigInt(head0.number) + 1n);
      clock.set((Number(hexToBigInt(head.timestamp)) + 1) * 1000);
      const answer = await t.app.oracle.ask("base-fee", {});

      // The previous answer's projection against what the node made of this block.
      if (prev) {
        expect(number, where).toBe(prev.number + 1n);
        expect(BigInt(prev.answer.next_base_fee_wei as string), `${where}: next_base_fee_wei`).toBe(hexToBigInt(head.baseFeePerGas));
        expect(prev.answer.next_base_fee_gwei, where).toBe(formatGwei(hexToBigInt(head.baseFeePerGas)));
        const blobFee = (await feeHistory(number)).baseFeePerBlobGas?.[0];
        expect(blobFee, "anvil reports the blob base fee of its blocks").toBeDefined();
        expect(BigInt(prev.answer.next_blob_base_fee_wei as string), `${where}: next_blob_base_fee_wei`).toBe(hexToBigInt(blobFee!));
        const base = hexToBigInt(head.baseFeePerGas);
        const before = BigInt(prev.answer.base_fee_wei as string);
        if (base > before) moved.up++;
        else if (base < before) moved.down++;
        else moved.same++;
      }

      // The answer's head is the node's head.
      const history = await feeHistory(number);
      expect(answer, where).toMatchObject({ block: Number(number), block_timestamp: Number(hexToBigInt(head.timestamp)), chain_id: node.chainId });
      expect(BigInt(answer.base_fee_wei as string), where).toBe(hexToBigInt(head.baseFeePerGas));
      expect(answer.base_fee_gwei, where).toBe(formatGwei(hexToBigInt(head.baseFeePerGas)));
      const gasUsed = hexToBigInt(head.gasUsed);
      const gasLimit = hexToBigInt(head.gasLimit);
      expect(micro(answer.gas_used_ratio as string), `${where}: gas_used_ratio ${answer.gas_used_ratio} of ${gasUsed}/${gasLimit}`).toBe((gasUsed * 1_000_000n) / gasLimit);
      expect(Math.abs(Number(answer.gas_used_ratio) - history.gasUsedRatio[0]!), `${where}: against eth_feeHistory's gasUsedRatio`).toBeLessThan(1e-6);
      expect(BigInt(answer.blob_base_fee_wei as string), where).toBe(hexToBigInt(history.baseFeePerBlobGas![0]!));
      // The node's own projection (eth_feeHistory's extra entry) agrees before the block exists, and the follower saw so.
      expect(BigInt(answer.next_base_fee_wei as string), where).toBe(hexToBigInt(history.baseFeePerGas[1]!));
      expect(BigInt(answer.next_blob_base_fee_wei as string), where).toBe(hexToBigInt(history.baseFeePerBlobGas![1]!));
      expect(schedule, where).toBe("match");
      prev = { answer, number };
    }
    // Every transaction was valid: none is stuck behind a nonce gap.
    expect(hexToBigInt((await node.rpc<{ queued: Hex }>("txpool_status", [])).queued)).toBe(0n);
    // The load really moved the fee both ways (otherwise the comparisons above proved little).
    expect(moved.up, JSON.stringify(moved)).toBeGreaterThan(0);
    expect(moved.down, JSON.stringify(moved)).toBeGreaterThan(0);
  });

  it("anvil's blocks carry the blob fields, at zero blob load", async () => {
    const head = await block("latest");
    expect(head.blobGasUsed).toBeDefined();
    expect(head.excessBlobGas).toBeDefined();
    expect(hexToBigInt(head.blobGasUsed!)).toBe(0n);
    expect(hexToBigInt(head.excessBlobGas!)).toBe(0n);
  });
});
