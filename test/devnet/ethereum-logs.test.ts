/**
 * The devnet L1's one log book (devnet/ethereum-logs.ts), asked over a
 * real loopback socket with eth_getLogs: every block numbers the logs of all
 * the simulated contracts 0…n−1 in one sequence (Aave Pools, then Comets,
 * then Morpho Blue, then the token approvals of ethereum-activity.ts), and the filter is applied once for all of them — an
 * address or a list of addresses, topics by position as a value, an OR-list
 * or null, and the block range. The book itself: what a contract emits
 * between sealed blocks waits for the next one; a block sealed again (a
 * reorg) replaces its logs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hex, keccak256, concat } from "viem";
import { LENDING_MARKETS } from "../../src/chains/ethereum/lending.js";
import { COMET_TOPIC_SUPPLY_COLLATERAL, COMET_TOPIC_WITHDRAW } from "../../src/chains/ethereum/comet.js";
import { MORPHO_BLUE } from "../../src/chains/ethereum/morpho.js";
import { ASSETS } from "../../src/chains/ethereum/flashloans.js";
import { APPROVAL_TOPIC } from "../../src/chains/ethereum/approvals.js";
import { startDevnetEthereum, type DevnetEthereum } from "../../devnet/ethereum.js";
import { createLogBook } from "../../devnet/ethereum-logs.js";

interface Log {
  address: string;
  topics: string[];
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
}

let sim: DevnetEthereum;
let all: Log[];
let from: string;
let to: string;
const pool = (id: string) => LENDING_MARKETS.find((m) => m.id === id)!.pool;
const AAVE = pool("aave-v3-core");
const USDT_COMET = pool("compound-v3-usdt");

async function getLogs(filter: Record<string, unknown>): Promise<Log[]> {
  const r = await fetch(sim.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getLogs", params: [{ fromBlock: from, toBlock: to, ...filter }] }),
  });
  const body = (await r.json()) as { result?: Log[]; error?: unknown };
  if (!body.result) throw new Error(`eth_getLogs failed: ${JSON.stringify(body.error)}`);
  return body.result;
}
const key = (l: Log) => `${l.blockNumber}:${l.logIndex}`;
const keys = (ls: Log[]) => ls.map(key);

beforeAll(async () => {
  sim = await startDevnetEthereum({ autoMine: false, history: 120, seed: 77 });
  from = `0x${(sim.head().number - 100n).toString(16)}`;
  to = `0x${sim.head().number.toString(16)}`;
  all = await getLogs({});
});

afterAll(async () => {
  await sim.close();
});

describe("devnet L1 log book over eth_getLogs", () => {
  it("numbers each block's logs once across the simulated contracts: Pools, then Comets, then Morpho, then the token approvals", () => {
    const byBlock = new Map<string, Log[]>();
    for (const l of all) byBlock.set(l.blockNumber, [...(byBlock.get(l.blockNumber) ?? []), l]);
    const rank = (a: string) =>
      a === MORPHO_BLUE ? 2 : LENDING_MARKETS.some((m) => m.pool === a) ? (LENDING_MARKETS.find((m) => m.pool === a)!.protocol === "compound" ? 1 : 0) : 3;
    let lendingBlocks = 0;
    let mixed = 0;
    let withApprovalsAfterLending = 0;
    for (const logs of byBlock.values()) {
      // One sequence per block, whoever emitted: 0…n−1, each log its own transaction slot.
      expect(logs.map((l) => Number(l.logIndex))).toEqual(logs.map((_, i) => i));
      const lending = logs.filter((l) => rank(l.address) < 3);
      expect(lending.map((l) => l.transactionIndex)).toEqual(lending.map((l) => l.logIndex));
      expect(new Set(logs.map((l) => l.transactionIndex)).size).toBe(logs.length);
      const ranks = logs.map((l) => rank(l.address));
      expect(ranks).toEqual([...ranks].sort());
      if (lending.length > 0) lendingBlocks++;
      if (new Set(ranks.filter((r) => r < 3)).size === 3) mixed++;
      if (lending.length > 0 && ranks.includes(3)) withApprovalsAfterLending++;
    }
    expect(lendingBlocks).toBeGreaterThan(50);
    // Blocks with events of all three kinds of lending contract, and blocks with lending events and approvals, exist: the shared numbering is exercised.
    expect(mixed).toBeGreaterThan(0);
    expect(withApprovalsAfterLending).toBeGreaterThan(0);
    // The new Comet (cUSDTv3) is among the contracts with events.
    expect(all.some((l) => l.address === USDT_COMET)).toBe(true);
  });

  it("gives an approval the same log and transaction index in eth_getLogs and in its block's receipts", async () => {
    const approval = all.find((l) => l.topics[0] === APPROVAL_TOPIC && all.some((x) => x.blockNumber === l.blockNumber && x.topics[0] !== APPROVAL_TOPIC))!;
    expect(approval).toBeDefined();
    const r = await fetch(sim.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockReceipts", params: [approval.blockNumber] }),
    });
    const receipts = ((await r.json()) as { result: { transactionHash: string; transactionIndex: string }[] }).result;
    const receipt = receipts.find((x) => x.transactionHash === approval.transactionHash)!;
    expect(receipt.transactionIndex).toBe(approval.transactionIndex);
    // It comes after the block's book logs, so its indexes are above 0.
    expect(Number(approval.logIndex)).toBeGreaterThan(0);
  });

  it("filters by one address or a list of addresses", async () => {
    const one = await getLogs({ address: USDT_COMET });
    expect(one.length).toBeGreaterThan(0);
    expect(keys(one)).toEqual(keys(all.filter((l) => l.address === USDT_COMET)));
    const two = await getLogs({ address: [AAVE, MORPHO_BLUE.toUpperCase().replace("0X", "0x")] });
    expect(keys(two)).toEqual(keys(all.filter((l) => l.address === AAVE || l.address === MORPHO_BLUE)));
    expect(new Set(two.map((l) => l.address))).toEqual(new Set([AAVE, MORPHO_BLUE]));
    // The token Approval logs (ethereum-activity.ts) pass the same filter: a token's address gives its approvals only.
    const weth = await getLogs({ address: ASSETS.WETH!.address });
    expect(weth.length).toBeGreaterThan(0);
    expect(weth.every((l) => l.address === ASSETS.WETH!.address && l.topics[0] === APPROVAL_TOPIC)).toBe(true);
    expect(keys(weth)).toEqual(keys(all.filter((l) => l.address === ASSETS.WETH!.address)));
  });

  it("filters topics by position: a value, an OR-list, null for any; a log without that position does not match", async () => {
    const withdraws = all.filter((l) => l.topics[0] === COMET_TOPIC_WITHDRAW);
    expect(withdraws.length).toBeGreaterThan(1);
    // Position 1 only (the account), any event.
    const account = withdraws[0]!.topics[1]!;
    const byAccount = await getLogs({ topics: [null, account] });
    expect(keys(byAccount)).toEqual(keys(all.filter((l) => l.topics[1] === account)));
    expect(byAccount.length).toBeGreaterThanOrEqual(2);
    // An OR-list in position 0 and a value in position 1.
    const either = await getLogs({ topics: [[COMET_TOPIC_WITHDRAW, COMET_TOPIC_SUPPLY_COLLATERAL], account] });
    expect(keys(either)).toEqual(keys(all.filter((l) => (l.topics[0] === COMET_TOPIC_WITHDRAW || l.topics[0] === COMET_TOPIC_SUPPLY_COLLATERAL) && l.topics[1] === account)));
    expect(new Set(either.map((l) => l.topics[0]))).toEqual(new Set([COMET_TOPIC_WITHDRAW, COMET_TOPIC_SUPPLY_COLLATERAL]));
    // Withdraw has three topics, SupplyCollateral four: asking for any value in position 3 leaves only the latter.
    const fourth = await getLogs({ topics: [[COMET_TOPIC_WITHDRAW, COMET_TOPIC_SUPPLY_COLLATERAL], null, null, either.find((l) => l.topics[3])!.topics[3]] });
    expect(fourth.length).toBeGreaterThan(0);
    expect(fourth.every((l) => l.topics[0] === COMET_TOPIC_SUPPLY_COLLATERAL)).toBe(true);
    // An address and topics together; a topic nobody emits.
    const both = await getLogs({ address: [USDT_COMET], topics: [COMET_TOPIC_WITHDRAW] });
    expect(keys(both)).toEqual(keys(all.filter((l) => l.address === USDT_COMET && l.topics[0] === COMET_TOPIC_WITHDRAW)));
    expect(await getLogs({ topics: [`0x${"ab".repeat(32)}`] })).toEqual([]);
  });

  it("filters by block range", async () => {
    const mid = BigInt(from) + 40n;
    const r = await fetch(sim.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getLogs", params: [{ fromBlock: `0x${mid.toString(16)}`, toBlock: `0x${(mid + 9n).toString(16)}`, address: AAVE }] }),
    });
    const got = ((await r.json()) as { result: Log[] }).result;
    expect(keys(got)).toEqual(keys(all.filter((l) => l.address === AAVE && BigInt(l.blockNumber) >= mid && BigInt(l.blockNumber) <= mid + 9n)));
    expect(got.length).toBeGreaterThan(0);
  });
});

describe("the log book itself", () => {
  const log = (address: string, n: number) => ({ address, topics: [`0x${n.toString(16).padStart(64, "0")}` as Hex], data: "0x" as Hex });
  const block = (n: bigint, tag = "") => ({ number: n, hash: keccak256(new TextEncoder().encode(`${n}${tag}`)) });
  const range = { from: 0n, to: 10n, addresses: null, topics: [] };

  it("orders by sink, keeps what was emitted before an unsealed block, replaces a block sealed again", () => {
    const book = createLogBook();
    const a = book.sink();
    const b = book.sink();
    b(log("0xb", 1));
    a(log("0xa", 2));
    a({ ...log("0xa", 3), tx: "0x01" });
    expect(book.seal(block(1n))).toBe(3);
    const sealed = book.query(range);
    expect(sealed.map((l) => [l.address, l.logIndex, l.transactionIndex])).toEqual([
      ["0xa", 0, 0],
      ["0xa", 1, 1],
      ["0xb", 2, 2],
    ]);
    // Without a salt: the log's place in its sink's queue (4 bytes); with one: that salt.
    expect(sealed[0]!.transactionHash).toBe(keccak256(concat([block(1n).hash, "0x00000000"])));
    expect(sealed[1]!.transactionHash).toBe(keccak256(concat([block(1n).hash, "0x01"])));
    expect(sealed[2]!.transactionHash).toBe(keccak256(concat([block(1n).hash, "0x00000000"])));

    // Block 2 is never sealed (a quiet block): what was emitted meanwhile goes into block 3.
    a(log("0xa", 4));
    expect(book.seal(block(3n))).toBe(1);
    expect(book.query({ ...range, from: 2n, to: 2n })).toEqual([]);
    expect(book.query({ ...range, from: 3n, to: 3n }).map((l) => l.topics[0])).toEqual([log("0xa", 4).topics[0]]);

    // A reorg seals block 3 again: its logs are the new ones only (here none).
    expect(book.seal(block(3n, "fork"))).toBe(0);
    expect(book.query({ ...range, from: 3n, to: 3n })).toEqual([]);
    expect(book.query(range)).toHaveLength(3);
  });
});
