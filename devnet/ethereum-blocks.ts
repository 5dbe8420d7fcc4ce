/**
 * The blocks of the devnet's Ethereum L1 (ethereum.ts), one every
 * `blockSeconds`, with realistic fee dynamics:
 *   - gas demand reacts to price (fuller blocks when the base fee is below
 *     its reference, emptier above) plus noise and occasional bursts, and the
 *     base fee follows EIP-1559 from the chain's own blocks;
 *   - blob demand does the same around the target, and the excess blob gas
 *     follows EIP-4844 with EIP-7918's reserve price under the newest
 *     schedule (BPO2 from genesis); the genesis excess puts the blob fee
 *     near its reserve floor as on mainnet.
 * Randomness is seeded, so a devnet's history is reproducible.
 *
 * MEV-Boost: the first block of a slot whose relay auction (relays.ts) has a
 * winner is that auction's block: the winner's coinbase and extra-data tag,
 * a last transaction from the coinbase paying the proposer's fee recipient
 * (or the fee recipient as coinbase, earning the bid as fees), and the
 * auction's withdrawal to the fee recipient if any. A block records the wei
 * it credits to addresses, from which eth_getBalance answers per block.
 *
 * The chain is a plain state object (`L1Blocks`); producing, mining, a reorg
 * and catching up with the clock are functions over it, and what the rest of
 * the node does with a new block is its `onBlock` hook.
 */
import { keccak256, toHex } from "viem";
import { blobParamsAt, FORK_SCHEDULES, GAS_PER_BLOB, nextBaseFee, nextExcessBlobGas, type BlobParams } from "../src/chains/ethereum/fees.js";
import { BEACON_GENESIS_S, SLOT_SECONDS } from "../src/chains/ethereum/relays.js";
import { JsonRpcError } from "./jsonrpc-server.js";
import { auctionAt, type SlotAuction } from "./relays.js";
import { seededRandom } from "./seeded-random.js";

export const DEVNET_ETH_CHAIN_ID = 1337;
/** Blocks of a catch-up after a jump in time that carry lending activity (the older ones are quiet). */
const LENDING_CATCH_UP_BLOCKS = 300;
export const SCHEDULE = FORK_SCHEDULES[DEVNET_ETH_CHAIN_ID]!;
const GAS_LIMIT = 45_000_000n;
/** Base fee the demand model gravitates to (wei). */
const REFERENCE_BASE_FEE = 2_000_000_000;
const GENESIS_BASE_FEE = 1_500_000_000n;
/** Puts the genesis blob fee near the EIP-7918 floor of the genesis base fee. */
const GENESIS_EXCESS_BLOB_GAS = 210_000_000n;
const FEE_RECIPIENTS = [
  "0x95222290dd7278aa3ddd389cc1e1d165cc4bafe5",
  "0x4838b106fce9647bdf1e7877bf73ce8b0bad5f97",
  "0x1f9090aae28b8a3dceadf281b0f12828e676c326",
];

export interface DevnetBlock {
  number: bigint;
  hash: string;
  parentHash: string;
  timestamp: number;
  baseFeePerGas: bigint;
  gasUsed: bigint;
  gasLimit: bigint;
  blobGasUsed: bigint;
  excessBlobGas: bigint;
  miner: string;
  /** The block's extra-data text (a builder's tag on MEV-Boost blocks). */
  extraData: string;
  /** The proposer payment of a MEV-Boost block (its only transaction), else empty. */
  transactions: DevnetPaymentTx[];
  withdrawals: { index: bigint; validatorIndex: bigint; address: string; amountGwei: bigint }[];
  /** Wei the block credits to addresses (payments, fees to a proposer coinbase, withdrawals). */
  credits: ReadonlyMap<string, bigint>;
}

export interface DevnetPaymentTx {
  hash: string;
  from: string;
  to: string;
  value: bigint;
}

/** The L1's chain and what producing its next block needs. */
export interface L1Blocks {
  readonly blockSeconds: number;
  readonly blocks: DevnetBlock[];
  readonly byHash: Map<string, DevnetBlock>;
  /** Slot → number of the MEV-Boost block of that slot. */
  readonly slotBlocks: Map<number, bigint>;
  readonly random: () => number;
  /** Full blocks left in the current burst of demand. */
  burst: number;
  /** Changes the hashes of blocks produced after a reorg, so the replacements differ. */
  fork: number;
  /** What the rest of the node does with a new block; a quiet block carries no lending activity. */
  readonly onBlock: (b: DevnetBlock, quiet: boolean) => void;
}

/** What a block holds beside its fee figures: miner, tag, the payment transaction, withdrawals, credits. */
type BlockContent = Pick<DevnetBlock, "miner" | "extraData" | "transactions" | "withdrawals" | "credits">;

export const hex = (v: bigint | number) => `0x${v.toString(16)}`;

export function createL1Blocks(blockSeconds: number, seed: number, onBlock: L1Blocks["onBlock"]): L1Blocks {
  return { blockSeconds, blocks: [], byHash: new Map(), slotBlocks: new Map(), random: seededRandom(seed), burst: 0, fork: 0, onBlock };
}

export const headOf = (c: L1Blocks): DevnetBlock => c.blocks[c.blocks.length - 1]!;

export const slotOf = (timestamp: number) => Math.floor((timestamp - BEACON_GENESIS_S) / SLOT_SECONDS);

/** What a slot's auction puts in its block. */
function mevContent(a: SlotAuction, number: bigint, fork: number): BlockContent {
  const coinbaseIsProposer = a.payment.kind === "coinbase_is_proposer";
  const credits = new Map<string, bigint>();
  const credit = (to: string, wei: bigint) => credits.set(to, (credits.get(to) ?? 0n) + wei);
  const transactions: DevnetPaymentTx[] = [];
  // A proposer coinbase earns the bid as the block's fees; otherwise the builder pays it in the last transaction.
  if (coinbaseIsProposer) credit(a.feeRecipient, a.payment.paid);
  else {
    transactions.push({ hash: keccak256(toHex(`devnet-payment:${a.slot}:${number}:${fork}`)), from: a.winner.coinbase, to: a.feeRecipient, value: a.payment.paid });
    credit(a.feeRecipient, a.payment.paid);
  }
  const withdrawals = a.payment.withdrawalGwei > 0n ? [{ index: number, validatorIndex: BigInt(a.slot % 1_000_000), address: a.feeRecipient, amountGwei: a.payment.withdrawalGwei }] : [];
  for (const w of withdrawals) credit(w.address, w.amountGwei * 1_000_000_000n);
  return { miner: coinbaseIsProposer ? a.feeRecipient : a.winner.coinbase, extraData: a.winner.extraData, transactions, withdrawals, credits };
}

/** A block outside MEV-Boost: a rotating fee recipient, the devnet's tag, nothing paid. */
function plainContent(number: bigint): BlockContent {
  return { miner: FEE_RECIPIENTS[Number(number % BigInt(FEE_RECIPIENTS.length))]!, extraData: "vigil devnet", transactions: [], withdrawals: [], credits: new Map<string, bigint>() };
}

/** The gas and blobs the next block uses: fuller blocks when gas is cheap, a burst of full blocks now and then (a mint, a liquidation cascade). */
function demand(c: L1Blocks, baseFeePerGas: bigint, params: BlobParams): { gasUsed: bigint; blobs: number } {
  const random = c.random;
  if (c.burst === 0 && random() < 0.02) c.burst = 3 + Math.floor(random() * 6);
  const pressure = Math.log(REFERENCE_BASE_FEE / Number(baseFeePerGas)) * 0.35;
  let utilisation = c.burst > 0 ? 0.97 + random() * 0.03 : 0.5 + pressure + (random() - 0.5) * 0.45;
  if (c.burst > 0) c.burst--;
  utilisation = Math.min(1, Math.max(0.05, utilisation));
  const gasUsed = (GAS_LIMIT * BigInt(Math.round(utilisation * 1_000_000))) / 1_000_000n;
  const target = Number(params.targetBlobs);
  const max = Number(params.maxBlobs);
  const blobs = Math.min(max, Math.max(0, Math.round(target * (0.55 + random() * 0.9))));
  return { gasUsed, blobs };
}

/** Produces the block at `timestamp` on the head and hands it to the node's hook. */
export function produceBlock(c: L1Blocks, timestamp: number, quiet = false): DevnetBlock {
  const parent = c.blocks[c.blocks.length - 1];
  const number = parent ? parent.number + 1n : 0n;
  const baseFeePerGas = parent ? nextBaseFee(parent) : GENESIS_BASE_FEE;
  const params = blobParamsAt(SCHEDULE, timestamp)!;
  const excessBlobGas = parent ? nextExcessBlobGas(parent, params) : GENESIS_EXCESS_BLOB_GAS;
  const { gasUsed, blobs } = demand(c, baseFeePerGas, params);
  // The first block of a slot with a MEV-Boost auction is that auction's block.
  const slot = slotOf(timestamp);
  const auction = c.slotBlocks.has(slot) ? null : auctionAt(slot);
  const content = auction ? mevContent(auction, number, c.fork) : plainContent(number);
  const body = `${number}:${parent?.hash ?? "genesis"}:${timestamp}:${gasUsed}:${blobs}:${c.fork}:${content.transactions.map((t) => t.hash).join(",")}`;
  const b: DevnetBlock = {
    number,
    hash: keccak256(toHex(body)),
    parentHash: parent?.hash ?? `0x${"0".repeat(64)}`,
    timestamp,
    baseFeePerGas,
    gasUsed,
    gasLimit: GAS_LIMIT,
    blobGasUsed: BigInt(blobs) * GAS_PER_BLOB,
    excessBlobGas,
    ...content,
  };
  c.blocks.push(b);
  c.byHash.set(b.hash, b);
  if (auction) c.slotBlocks.set(slot, number);
  c.onBlock(b, quiet);
  return b;
}

/** Produces `count` blocks, one slot apart after the head; returns the new head. */
export function mineBlocks(c: L1Blocks, count = 1): DevnetBlock {
  for (let i = 0; i < count; i++) produceBlock(c, headOf(c).timestamp + c.blockSeconds);
  return headOf(c);
}

/** Replaces the newest `depth` blocks by others and adds one more, so the head moves up by one. */
export function reorgBlocks(c: L1Blocks, depth: number): DevnetBlock {
  const keep = c.blocks.length - Math.min(depth, c.blocks.length - 1);
  for (const b of c.blocks.splice(keep)) {
    c.byHash.delete(b.hash);
    const slot = slotOf(b.timestamp);
    if (c.slotBlocks.get(slot) === b.number) c.slotBlocks.delete(slot);
  }
  c.fork++;
  return mineBlocks(c, depth + 1);
}

/**
 * Blocks one catch-up produces at most. After a longer jump in time (a machine
 * that slept, a test that moves the clock by days) the slots before the newest
 * ones pass without a block, as a slot does on mainnet when nobody proposes:
 * producing every block of a two-month jump took over four minutes of one core,
 * synchronously, and 1.7 GB of memory.
 */
export const MAX_CATCH_UP_BLOCKS = 1_000;

/** Produces the blocks the clock has reached since the head: every one, or the newest MAX_CATCH_UP_BLOCKS after a long jump. */
export function catchUp(c: L1Blocks, nowMs: number): void {
  const nowS = Math.floor(nowMs / 1000);
  // After a jump in time (tests move the clock by days) the lending markets rest through all but the newest blocks, so catching up stays cheap.
  const quietBefore = nowS - LENDING_CATCH_UP_BLOCKS * c.blockSeconds;
  const head = headOf(c);
  // The newest block time the clock has reached, on the head's grid; the catch-up starts at most MAX_CATCH_UP_BLOCKS − 1 block times before it.
  const last = head.timestamp + Math.floor((nowS - head.timestamp) / c.blockSeconds) * c.blockSeconds;
  const first = Math.max(head.timestamp + c.blockSeconds, last - (MAX_CATCH_UP_BLOCKS - 1) * c.blockSeconds);
  for (let ts = first; ts <= last; ts += c.blockSeconds) {
    produceBlock(c, ts, ts < quietBefore);
  }
}

/** The block a JSON-RPC block tag names; null for a number outside the chain. */
export function lookupBlock(c: L1Blocks, tag: unknown): DevnetBlock | null {
  const head = headOf(c);
  if (tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") return head;
  if (tag === "earliest") return c.blocks[0]!;
  if (typeof tag !== "string" || !/^0x[0-9a-f]+$/i.test(tag)) throw new JsonRpcError(-32602, "invalid block tag");
  const n = BigInt(tag);
  const first = c.blocks[0]!.number;
  return n < first || n > head.number ? null : c.blocks[Number(n - first)]!;
}

/** A payment transaction as eth_getTransactionByHash and full blocks show it. */
export function txJson(b: DevnetBlock, t: DevnetPaymentTx, index: number) {
  return {
    hash: t.hash,
    blockHash: b.hash,
    blockNumber: hex(b.number),
    transactionIndex: hex(index),
    type: "0x2",
    chainId: hex(DEVNET_ETH_CHAIN_ID),
    from: t.from,
    to: t.to,
    value: hex(t.value),
    nonce: hex(b.number),
    gas: hex(21_000),
    maxFeePerGas: hex(b.baseFeePerGas),
    maxPriorityFeePerGas: "0x0",
    gasPrice: hex(b.baseFeePerGas),
    input: "0x",
    accessList: [],
    v: "0x0",
    yParity: "0x0",
    r: keccak256(toHex(`r:${t.hash}`)),
    s: keccak256(toHex(`s:${t.hash}`)),
  };
}

/** A block as eth_getBlockByNumber/-ByHash answer it (transactions as hashes, or whole when `full`). */
export function blockJson(b: DevnetBlock, full = false) {
  return {
    number: hex(b.number),
    hash: b.hash,
    parentHash: b.parentHash,
    timestamp: hex(b.timestamp),
    baseFeePerGas: hex(b.baseFeePerGas),
    gasUsed: hex(b.gasUsed),
    gasLimit: hex(b.gasLimit),
    blobGasUsed: hex(b.blobGasUsed),
    excessBlobGas: hex(b.excessBlobGas),
    miner: b.miner,
    difficulty: "0x0",
    extraData: toHex(b.extraData),
    nonce: "0x0000000000000000",
    sha3Uncles: "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
    transactions: full ? b.transactions.map((t, i) => txJson(b, t, i)) : b.transactions.map((t) => t.hash),
    uncles: [],
    withdrawals: b.withdrawals.map((w) => ({ index: hex(w.index), validatorIndex: hex(w.validatorIndex), address: w.address, amount: hex(w.amountGwei) })),
  };
}
