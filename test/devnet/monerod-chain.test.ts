/**
 * The devnet monerod's chain without its HTTP server: the invariants the
 * scanner relies on (strictly increasing timestamps, dense global output
 * indices that a reorg hands back, pool transactions mined once) and the
 * chain file round trip.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { DevnetMoneroChain, DEVNET_BLOCK_REWARD, DEVNET_TX_FEE } from "../../devnet/monerod-chain.js";
import { deriveDevnetWallets } from "../../devnet/monerod-wallets.js";
import { HttpReply } from "../../devnet/jsonrpc-server.js";
import { tempDir } from "../helpers/app.js";

const [alice, , , miner] = deriveDevnetWallets("11".repeat(32));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function chainAt(clock: ManualClock, chainFile?: string): DevnetMoneroChain {
  const chain = new DevnetMoneroChain({ network: "testnet", minerAddress: miner!.address, clock, chainFile });
  chain.open();
  return chain;
}

/** Global output indices of every transaction in the chain, in chain order. */
const outputIndices = (chain: DevnetMoneroChain) =>
  chain.blocks.flatMap((b) => [b.minerTx, ...b.txs]).flatMap((t) => chain.txIndex.get(t.txid)!.outputIndices);

describe("the devnet Monero chain", () => {
  it("starts at a genesis and stamps blocks with strictly increasing times under a frozen clock", () => {
    const chain = chainAt(new ManualClock());
    expect(chain.height()).toBe(0);
    chain.mine(3);
    const times = chain.blocks.map((b) => b.timestamp);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    expect(chain.blocks[1]!.built.json.prev_id).toBe(chain.blocks[0]!.built.hash);
  });

  it("mines a pooled transfer once, pays its fee to the miner, and keeps global output indices dense", () => {
    const chain = chainAt(new ManualClock());
    const txid = chain.send(alice!.address, 1_000_000_000_000n);
    expect(chain.pool.map((t) => t.txid)).toEqual([txid]);
    chain.mine(2);
    expect(chain.pool).toEqual([]);
    expect(chain.txIndex.get(txid)!.height).toBe(1);
    expect(chain.blocks[1]!.reward).toBe(DEVNET_BLOCK_REWARD + DEVNET_TX_FEE);
    expect(chain.blocks[2]!.txs).toEqual([]);
    const indices = outputIndices(chain);
    expect(indices).toEqual(indices.map((_, i) => BigInt(i)));
  });

  it("a reorg hands back the removed outputs' indices and, with keepTxs, returns transfers to the pool", () => {
    const chain = chainAt(new ManualClock());
    const txid = chain.send(alice!.address, 5n);
    chain.mine(1);
    const before = chain.blocks[1]!.built.hash;
    expect(chain.reorg(1, { keepTxs: true })).toEqual([txid]);
    expect(chain.height()).toBe(1);
    expect(chain.blocks[1]!.built.hash).not.toBe(before);
    expect(chain.pool.map((t) => t.txid)).toEqual([txid]);
    expect(chain.txIndex.get(txid)).toMatchObject({ height: null, outputIndices: [] });
    chain.mine(1);
    expect(chain.txIndex.get(txid)!.height).toBe(2);
    const indices = outputIndices(chain);
    expect(indices).toEqual(indices.map((_, i) => BigInt(i)));
    expect(chain.reorg(1)).toEqual([txid]);
    expect(chain.txIndex.has(txid)).toBe(false);
  });

  it("refuses what a real wallet could not do, as the endpoint's 400 answers", () => {
    const chain = chainAt(new ManualClock());
    const refused = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(HttpReply);
        return (e as HttpReply).body as { error: { code: string } };
      }
      throw new Error("expected a refusal");
    };
    expect(refused(() => chain.reorg(1)).error.code).toBe("invalid_depth");
    expect(refused(() => chain.send(alice!.address, 0n)).error.code).toBe("invalid_amount");
    expect(refused(() => chain.send("not-an-address", 1n)).error.code).toBe("invalid_address");
    const [mainnetWallet] = deriveDevnetWallets("11".repeat(32), "mainnet");
    expect(refused(() => chain.send(mainnetWallet!.address, 1n)).error.code).toBe("invalid_address");
  });

  it("keeps its chain file in step, through a reorg, and reloads the same blocks", () => {
    const dir = tempDir("vigil-monerod-chain-");
    dirs.push(dir);
    const file = path.join(dir, "devnet", "monero-chain.jsonl");
    const clock = new ManualClock();
    const first = chainAt(clock, file);
    first.send(alice!.address, 7n);
    first.mine(3);
    first.reorg(2, { keepTxs: false });
    const again = chainAt(clock, file);
    expect(again.blocks.map((b) => b.built.hash)).toEqual(first.blocks.map((b) => b.built.hash));
    expect(outputIndices(again)).toEqual(outputIndices(first));
    fs.writeFileSync(file, "damaged\n");
    const fresh = chainAt(clock, file);
    expect(fresh.height()).toBe(0);
    expect(fresh.blocks[0]!.built.hash).not.toBe(first.blocks[0]!.built.hash);
  });
});
