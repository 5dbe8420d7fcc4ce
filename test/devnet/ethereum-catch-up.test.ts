/**
 * The devnet L1 catching up with the clock (devnet/ethereum-blocks.ts
 * `catchUp`): every block of a short gap, and only the newest
 * MAX_CATCH_UP_BLOCKS of a long one (the slots before pass without a block).
 * Producing every block of the 74 days the board test moves its clock took
 * over four minutes of one core, synchronously, from the devnet's one-second
 * timer: the test process stood still and the board test timed out.
 */
import { describe, expect, it } from "vitest";
import { catchUp, headOf, MAX_CATCH_UP_BLOCKS, produceBlock } from "../../devnet/ethereum-blocks.js";
import { createL1Node } from "../../devnet/ethereum-node.js";

const BLOCK_SECONDS = 12;

function chainAt(startS: number) {
  const node = createL1Node(1337, BLOCK_SECONDS);
  for (let i = 15; i >= 0; i--) produceBlock(node.chain, startS - i * BLOCK_SECONDS);
  return node.chain;
}

describe("devnet L1 catch-up", () => {
  const startS = 1_780_000_008;

  it("produces every block of a short gap, one per block time", () => {
    const c = chainAt(startS);
    const head = headOf(c);
    catchUp(c, (startS + 50 * BLOCK_SECONDS + 5) * 1000);
    const added = c.blocks.slice(c.blocks.indexOf(head) + 1);
    expect(added.map((b) => b.timestamp)).toEqual(Array.from({ length: 50 }, (_, i) => startS + (i + 1) * BLOCK_SECONDS));
  });

  it("after a jump of 74 days produces the newest MAX_CATCH_UP_BLOCKS blocks, contiguous in number, on the block-time grid, up to now", () => {
    const c = chainAt(startS);
    const head = headOf(c);
    const nowS = startS + 74 * 86_400 + 7;
    catchUp(c, nowS * 1000);
    const added = c.blocks.slice(c.blocks.indexOf(head) + 1);
    expect(added).toHaveLength(MAX_CATCH_UP_BLOCKS);
    expect(added.map((b) => b.number)).toEqual(added.map((_, i) => head.number + BigInt(i + 1)));
    for (const [i, b] of added.entries()) {
      expect((b.timestamp - startS) % BLOCK_SECONDS).toBe(0);
      if (i > 0) expect(b.timestamp - added[i - 1]!.timestamp).toBe(BLOCK_SECONDS);
      expect(b.parentHash).toBe(i === 0 ? head.hash : added[i - 1]!.hash);
    }
    // The newest block is the last block time the clock has reached; the next one is still due.
    expect(headOf(c).timestamp).toBeLessThanOrEqual(nowS);
    expect(headOf(c).timestamp + BLOCK_SECONDS).toBeGreaterThan(nowS);
    // Caught up: nothing more until the next block time.
    catchUp(c, nowS * 1000);
    expect(c.blocks.length).toBe(c.blocks.indexOf(head) + 1 + MAX_CATCH_UP_BLOCKS);
  });
});
