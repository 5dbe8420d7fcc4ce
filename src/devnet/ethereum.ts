/**
 * The devnet's Ethereum L1: a simulated execution JSON-RPC on loopback with
 * its own chain id (1337, a development chain, never mainnet's), producing a
 * block every `blockSeconds` with realistic fee dynamics:
 *   - gas demand reacts to price (fuller blocks when the base fee is below
 *     its reference, emptier above) plus noise and occasional bursts, and the
 *     base fee follows EIP-1559 from the chain's own blocks;
 *   - blob demand does the same around the target, and the excess blob gas
 *     follows EIP-4844 with EIP-7918's reserve price under the newest
 *     schedule (BPO2 from genesis); the genesis excess puts the blob fee
 *     near its reserve floor as on mainnet.
 * It serves what the service reads: eth_chainId, eth_blockNumber,
 * eth_getBlockByNumber/-ByHash, and eth_call for the flash-loan contracts at
 * their mainnet addresses (Aave's FLASHLOAN_PREMIUM_TOTAL and reserve flags,
 * token balances of the zero-fee providers, DssFlash's max()), the lending
 * markets of ethereum-lending.ts (Aave V3 Core and SparkLend positions, their
 * events through eth_getLogs, getUserAccountData, the Core oracle), the
 * Compound V3 Comets of ethereum-comet.ts and the Morpho Blue markets of
 * ethereum-morpho.ts (on the same prices; their events in one log book,
 * ethereum-logs.ts, which eth_getLogs filters once), and Multicall3
 * aggregate3 over all of these. Randomness is
 * seeded, so a devnet's history is reproducible. Test hooks: mine blocks on
 * demand, set balances and premiums, make the node fail.
 *
 * MEV-Boost: the first block of a slot whose relay auction (relays.ts) has a
 * winner is that auction's block: the winner's coinbase and extra-data tag,
 * a last transaction from the coinbase paying the proposer's fee recipient
 * (or the fee recipient as coinbase, earning the bid as fees), and the
 * auction's withdrawal to the fee recipient if any. Those credits make
 * eth_getBalance answer per block (the account's set balance plus what its
 * blocks paid it up to the asked block), so a balance difference across a
 * block is what that block paid; with `setStateHistory(n)` the node keeps
 * state for only the newest n blocks, as a pruned node does. The relays are
 * handed `mevBoost` and report these blocks.
 */
import { keccak256, toHex } from "viem";
import { blobBaseFee, nextBaseFee, nextExcessBlobGas, blobParamsAt, FORK_SCHEDULES, GAS_PER_BLOB } from "../chains/ethereum/fees.js";
import {
  AAVE_V3_CORE_DATA_PROVIDER,
  ASSETS,
  DSS_FLASH,
  FLASHLOAN_PROVIDERS,
  SELECTOR_BALANCE_OF,
  SELECTOR_DSS_FLASH_MAX,
  SELECTOR_FLASHLOAN_PREMIUM_TOTAL,
  SELECTOR_GET_FLASHLOAN_ENABLED,
  SELECTOR_GET_PAUSED,
} from "../chains/ethereum/flashloans.js";
import { JsonRpcError, startJsonRpcServer } from "./jsonrpc-server.js";
import { createDevnetLending, type DevnetLending } from "./ethereum-lending.js";
import { createDevnetComet, type DevnetComet } from "./ethereum-comet.js";
import { createDevnetMorpho, type DevnetMorpho } from "./ethereum-morpho.js";
import { createLogBook, logMatches, parseLogFilter } from "./ethereum-logs.js";
import { MULTICALL3 } from "../chains/ethereum/lending.js";
import { decodeFunctionData, encodeFunctionResult, parseAbi, type Hex } from "viem";
import { seededRandom } from "./seeded-random.js";
import { createDevnetAccounts, type DevnetAccounts } from "./ethereum-accounts.js";
import { createDevnetActivity } from "./ethereum-activity.js";
import { auctionAt, type DevnetMevChain, type SlotAuction } from "./relays.js";
import { BEACON_GENESIS_S, SLOT_SECONDS } from "../chains/ethereum/relays.js";

export const DEVNET_ETH_CHAIN_ID = 1337;
/** Blocks of a catch-up after a jump in time that carry lending activity (the older ones are quiet). */
const LENDING_CATCH_UP_BLOCKS = 300;
const SCHEDULE = FORK_SCHEDULES[DEVNET_ETH_CHAIN_ID]!;
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

export type FailureMode = null | "http503" | "garbage" | "hang";

export interface DevnetEthereum {
  url: string;
  chainId: number;
  head(): DevnetBlock;
  block(n: bigint): DevnetBlock | undefined;
  /** Produces `count` blocks now, one slot apart after the head. */
  mine(count?: number): DevnetBlock;
  /** Replaces the newest `depth` blocks by others (a reorg) and adds one more, so the head moves up by one. */
  reorg(depth: number): DevnetBlock;
  setBalance(symbol: string, holder: string, amount: bigint): void;
  setPremium(pool: string, bps: number): void;
  /** Adds this many wei to the next-block fees eth_feeHistory reports (a node on other fork rules). */
  setFeeHistorySkew(wei: bigint): void;
  /** Makes every request fail in the given way (null: healthy again). */
  setFailure(mode: FailureMode): void;
  /** Keeps account state for only the newest `blocks` blocks, as a pruned node (null: an archive node again). */
  setStateHistory(blocks: number | null): void;
  /** Rewrites a block's extra-data text (a builder whose tag names nobody known). */
  retag(blockHash: string, extraData: string): void;
  /** Makes eth_getBlockByHash answer the parent of the block asked for (a confused node or proxy); false: honest again. */
  setWrongBlockByHash(on: boolean): void;
  /** The chain as the devnet relays see it: each MEV-Boost slot's block. */
  mevBoost: DevnetMevChain;
  /** The simulated lending markets (Aave V3 Core, SparkLend): test hooks. */
  lending: DevnetLending;
  /** The simulated Compound V3 Comets (cUSDCv3, cWETHv3, cUSDTv3, cWstETHv3): test hooks. */
  comet: DevnetComet;
  /** The simulated Morpho Blue markets: test hooks. */
  morpho: DevnetMorpho;
  /** Nonces, ether balances, code, storage and known transactions (ethereum-accounts.ts). */
  accounts: DevnetAccounts;
  /** Requests answered per method (failures injected before dispatch are not counted). */
  calls: Map<string, number>;
  close(): Promise<void>;
}


const multicall3Abi = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
  "function getCurrentBlockTimestamp() view returns (uint256 timestamp)",
  "function getBlockNumber() view returns (uint256 blockNumber)",
]);

const hex = (v: bigint | number) => `0x${v.toString(16)}`;
const word = (v: bigint) => `0x${v.toString(16).padStart(64, "0")}`;

export async function startDevnetEthereum(opts: {
  host?: string;
  port?: number;
  blockSeconds?: number;
  /** Blocks produced at start (history), the last one about now. */
  history?: number;
  seed?: number;
  /** Produce blocks on a timer (default true); tests mine by hand. */
  autoMine?: boolean;
  now?: () => number;
}): Promise<DevnetEthereum> {
  const blockSeconds = opts.blockSeconds ?? 12;
  const now = opts.now ?? Date.now;
  const random = seededRandom(opts.seed ?? 1337);
  const history = opts.history ?? 256;
  const blocks: DevnetBlock[] = [];
  const byHash = new Map<string, DevnetBlock>();
  let burst = 0;
  /** Changes the hashes of blocks produced after a reorg, so the replacements differ. */
  let fork = 0;

  // One log book for the simulated contracts: a block's logs are the Pools', then the Comets', then Morpho's.
  const logBook = createLogBook();
  const lending = createDevnetLending({ seed: opts.seed ?? 1337, logs: logBook.sink() });
  const comet = createDevnetComet({ seed: opts.seed ?? 1337, logs: logBook.sink(), usdPrice: lending.price });
  const morpho = createDevnetMorpho({ seed: opts.seed ?? 1337, logs: logBook.sink(), usdPrice: lending.price });
  const premiums = new Map<string, bigint>();
  for (const p of FLASHLOAN_PROVIDERS) if (p.feeCall) premiums.set(p.feeCall.to, p.id === "sparklend" ? 0n : 5n);
  const balances = new Map<string, bigint>();
  const setBalance = (symbol: string, holder: string, amount: bigint) => {
    const asset = ASSETS[symbol.toUpperCase()];
    if (!asset) throw new Error(`unknown asset ${symbol}`);
    balances.set(`${asset.address}:${holder.toLowerCase()}`, amount);
  };
  const e18 = 10n ** 18n;
  const holders = Object.fromEntries(
    FLASHLOAN_PROVIDERS.filter((p) => p.liquidity.kind === "balance").map((p) => [p.id, (p.liquidity as { holder: string }).holder]),
  );
  // Zero-fee liquidity for the majors; GHO has none there, so only Aave lends it (at its premium).
  setBalance("WETH", holders["balancer-v2"]!, 4_200n * e18);
  setBalance("WETH", holders["balancer-v3"]!, 1_900n * e18);
  setBalance("WETH", holders["uniswap-v4"]!, 9_500n * e18);
  setBalance("WETH", holders["morpho-blue"]!, 31_000n * e18);
  setBalance("USDC", holders["balancer-v2"]!, 12_000_000n * 10n ** 6n);
  setBalance("USDC", holders["uniswap-v4"]!, 48_000_000n * 10n ** 6n);
  setBalance("USDC", holders["morpho-blue"]!, 310_000_000n * 10n ** 6n);
  setBalance("WBTC", holders["morpho-blue"]!, 4_100n * 10n ** 8n);
  setBalance("USDT", holders["uniswap-v4"]!, 22_000_000n * 10n ** 6n);
  setBalance("WSTETH", holders["balancer-v2"]!, 2_600n * e18);
  setBalance("WSTETH", holders["morpho-blue"]!, 51_000n * e18);

  const accounts = createDevnetAccounts();
  const activity = createDevnetActivity(accounts, logBook.count);

  /** Slot → number of the MEV-Boost block of that slot. */
  const slotBlocks = new Map<number, bigint>();
  const slotOf = (timestamp: number) => Math.floor((timestamp - BEACON_GENESIS_S) / SLOT_SECONDS);

  /** What a slot's auction puts in its block: miner, tag, the payment transaction, withdrawal, credits. */
  function mevContent(a: SlotAuction, number: bigint) {
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

  function produce(timestamp: number, quiet = false): DevnetBlock {
    const parent = blocks[blocks.length - 1];
    const number = parent ? parent.number + 1n : 0n;
    const baseFeePerGas = parent ? nextBaseFee(parent) : GENESIS_BASE_FEE;
    const params = blobParamsAt(SCHEDULE, timestamp)!;
    const excessBlobGas = parent ? nextExcessBlobGas(parent, params) : GENESIS_EXCESS_BLOB_GAS;
    // Demand: fuller blocks when gas is cheap, a burst of full blocks now and then (a mint, a liquidation cascade).
    if (burst === 0 && random() < 0.02) burst = 3 + Math.floor(random() * 6);
    const pressure = Math.log(REFERENCE_BASE_FEE / Number(baseFeePerGas)) * 0.35;
    let utilisation = burst > 0 ? 0.97 + random() * 0.03 : 0.5 + pressure + (random() - 0.5) * 0.45;
    if (burst > 0) burst--;
    utilisation = Math.min(1, Math.max(0.05, utilisation));
    const gasUsed = (GAS_LIMIT * BigInt(Math.round(utilisation * 1_000_000))) / 1_000_000n;
    const target = Number(params.targetBlobs);
    const max = Number(params.maxBlobs);
    const blobs = Math.min(max, Math.max(0, Math.round(target * (0.55 + random() * 0.9))));
    // The first block of a slot with a MEV-Boost auction is that auction's block.
    const slot = slotOf(timestamp);
    const auction = slotBlocks.has(slot) ? null : auctionAt(slot);
    const content = auction
      ? mevContent(auction, number)
      : { miner: FEE_RECIPIENTS[Number(number % BigInt(FEE_RECIPIENTS.length))]!, extraData: "vigil devnet", transactions: [], withdrawals: [], credits: new Map<string, bigint>() };
    const body = `${number}:${parent?.hash ?? "genesis"}:${timestamp}:${gasUsed}:${blobs}:${fork}:${content.transactions.map((t) => t.hash).join(",")}`;
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
    blocks.push(b);
    byHash.set(b.hash, b);
    if (auction) slotBlocks.set(slot, number);
    for (const t of b.transactions) accounts.markKnown(t.hash, txJson(b, t, 0));
    if (!quiet) {
      lending.onBlock();
      comet.onBlock();
      morpho.onBlock(b.timestamp);
      logBook.seal(b);
    }
    activity.record(b);
    return b;
  }

  function txJson(b: DevnetBlock, t: DevnetPaymentTx, index: number) {
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

  const startS = Math.floor(now() / 1000);
  for (let i = history - 1; i >= 0; i--) produce(startS - i * blockSeconds);

  const mine = (count = 1) => {
    for (let i = 0; i < count; i++) produce(blocks[blocks.length - 1]!.timestamp + blockSeconds);
    return blocks[blocks.length - 1]!;
  };
  const reorg = (depth: number) => {
    const keep = blocks.length - Math.min(depth, blocks.length - 1);
    for (const b of blocks.splice(keep)) {
      byHash.delete(b.hash);
      const slot = slotOf(b.timestamp);
      if (slotBlocks.get(slot) === b.number) slotBlocks.delete(slot);
    }
    fork++;
    return mine(depth + 1);
  };
  const catchUp = () => {
    const nowS = Math.floor(now() / 1000);
    // After a jump in time (tests move the clock by days) the lending markets rest through all but the newest blocks, so catching up stays cheap.
    const quietBefore = nowS - LENDING_CATCH_UP_BLOCKS * blockSeconds;
    while (blocks[blocks.length - 1]!.timestamp + blockSeconds <= nowS) {
      const ts = blocks[blocks.length - 1]!.timestamp + blockSeconds;
      produce(ts, ts < quietBefore);
    }
  };

  const blockJson = (b: DevnetBlock, full = false) => ({
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
  });

  /** An account's balance at block `n`: its set balance plus what blocks up to n credited it. */
  const balanceAt = (address: string, n: bigint): bigint => {
    let wei = BigInt(accounts.methods.eth_getBalance!([address]) as string);
    const who = address.toLowerCase();
    for (const b of blocks) {
      if (b.number > n) break;
      wei += b.credits.get(who) ?? 0n;
    }
    return wei;
  };
  let stateHistory: number | null = null;

  const lookup = (tag: unknown): DevnetBlock | null => {
    const head = blocks[blocks.length - 1]!;
    if (tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") return head;
    if (tag === "earliest") return blocks[0]!;
    if (typeof tag !== "string" || !/^0x[0-9a-f]+$/i.test(tag)) throw new JsonRpcError(-32602, "invalid block tag");
    const n = BigInt(tag);
    const first = blocks[0]!.number;
    return n < first || n > head.number ? null : blocks[Number(n - first)]!;
  };

  const ethCall = (params: unknown[]): string => {
    const call = params[0] as { to?: unknown; data?: unknown; input?: unknown } | undefined;
    const to = typeof call?.to === "string" ? call.to.toLowerCase() : "";
    const data = String(call?.data ?? call?.input ?? "0x").toLowerCase();
    if (to === MULTICALL3) return multicall(data);
    const lent = lending.call(to, data) ?? comet.call(to, data) ?? morpho.call(to, data);
    if (lent !== undefined) return lent;
    const selector = data.slice(0, 10);
    const arg = data.length >= 74 ? `0x${data.slice(34, 74)}` : "";
    const answered = activity.call(to, data);
    if (answered !== undefined) return answered;
    if (selector === SELECTOR_FLASHLOAN_PREMIUM_TOTAL && premiums.has(to)) return word(premiums.get(to)!);
    if (to === AAVE_V3_CORE_DATA_PROVIDER && selector === SELECTOR_GET_FLASHLOAN_ENABLED) {
      return word(Object.values(ASSETS).some((a) => a.address === arg) ? 1n : 0n);
    }
    if (to === AAVE_V3_CORE_DATA_PROVIDER && selector === SELECTOR_GET_PAUSED) return word(0n);
    if (to === DSS_FLASH && selector === SELECTOR_DSS_FLASH_MAX) return word(500_000_000n * e18);
    // ERC-20 decimals() of the catalogued tokens.
    if (selector === "0x313ce567") {
      const asset = Object.values(ASSETS).find((a) => a.address === to);
      if (asset) return word(BigInt(asset.decimals));
    }
    if (selector === SELECTOR_BALANCE_OF && Object.values(ASSETS).some((a) => a.address === to)) {
      return word(balances.get(`${to}:${arg}`) ?? 0n);
    }
    // No code at that address (or an unknown function): empty return data, as a node answers.
    return "0x";
  };

  /**
   * Multicall3 at its canonical address: aggregate3, each sub-call answered as its own eth_call (a sub-call to
   * Multicall3 itself included), and its block views, of the head block that eth_call runs against.
   */
  function multicall(data: string): string {
    let decoded;
    try {
      decoded = decodeFunctionData({ abi: multicall3Abi, data: data as Hex });
    } catch {
      throw new JsonRpcError(3, "execution reverted");
    }
    const head = blocks[blocks.length - 1]!;
    if (decoded.functionName === "getCurrentBlockTimestamp") return encodeFunctionResult({ abi: multicall3Abi, functionName: "getCurrentBlockTimestamp", result: BigInt(head.timestamp) });
    if (decoded.functionName === "getBlockNumber") return encodeFunctionResult({ abi: multicall3Abi, functionName: "getBlockNumber", result: head.number });
    const results = decoded.args[0].map((c) => {
      const returnData = ethCall([{ to: c.target, data: c.callData }]) as Hex;
      return { success: true, returnData };
    });
    return encodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", result: results });
  }

  /** eth_getLogs over the simulated contracts' log book; ranges above 5,000 blocks are refused as public nodes do. */
  const getLogs = (p: unknown[], filter: ReturnType<typeof parseLogFilter>) => {
    const f = (p[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown };
    const from = lookup(f.fromBlock ?? "latest");
    const to = lookup(f.toBlock ?? "latest");
    if (!from || !to) return [];
    if (to.number - from.number > 5_000n) throw new JsonRpcError(-32005, "query exceeds max block range 5000");
    return logBook.query({ from: from.number, to: to.number, ...filter }).map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      blockNumber: hex(l.blockNumber),
      blockHash: l.blockHash,
      transactionHash: l.transactionHash,
      transactionIndex: hex(l.transactionIndex),
      logIndex: hex(l.logIndex),
      removed: false,
    }));
  };

  let skew = 0n;
  const feeHistory = (p: unknown[]) => {
    const count = Number(BigInt(String(p[0])));
    const newest = lookup(p[1]);
    if (!newest || count < 1 || count > 1024) throw new JsonRpcError(-32602, "invalid fee history range");
    const first = blocks[0]!.number;
    const from = newest.number - BigInt(count) + 1n < first ? first : newest.number - BigInt(count) + 1n;
    const range = blocks.slice(Number(from - first), Number(newest.number - first) + 1);
    const childTs = newest.timestamp + blockSeconds;
    const childParams = blobParamsAt(SCHEDULE, childTs)!;
    const blobFee = (b: DevnetBlock) => blobBaseFee(b.excessBlobGas, blobParamsAt(SCHEDULE, b.timestamp)!);
    return {
      oldestBlock: hex(from),
      baseFeePerGas: [...range.map((b) => hex(b.baseFeePerGas)), hex(nextBaseFee(newest) + skew)],
      gasUsedRatio: range.map((b) => Number(b.gasUsed) / Number(b.gasLimit)),
      baseFeePerBlobGas: [...range.map((b) => hex(blobFee(b))), hex(blobBaseFee(nextExcessBlobGas(newest, childParams), childParams) + skew)],
      blobGasUsedRatio: range.map((b) => Number(b.blobGasUsed) / Number(BigInt(blobParamsAt(SCHEDULE, b.timestamp)!.maxBlobs) * GAS_PER_BLOB)),
    };
  };

  let failure: FailureMode = null;
  let wrongBlockByHash = false;
  const calls = new Map<string, number>();
  const server = await startJsonRpcServer({
    host: opts.host,
    port: opts.port ?? 0,
    maxBodyBytes: 1024 * 1024,
    intercept: () => {
      if (failure === "http503") return { status: 503, body: { error: "node unavailable" } };
      if (failure === "garbage") return { status: 200, body: "<html>gateway error</html>" };
      return undefined;
    },
    rpc: {
      maxBatch: 100,
      onCall: (method) => calls.set(method, (calls.get(method) ?? 0) + 1),
      run: async (call) => {
        // A hanging node answers after the client's deadline.
        if (failure === "hang") await new Promise((r) => setTimeout(r, 30_000).unref());
        return call();
      },
      methods: {
        params: "positional",
        table: {
          eth_chainId: () => hex(DEVNET_ETH_CHAIN_ID),
          net_version: () => String(DEVNET_ETH_CHAIN_ID),
          eth_blockNumber: () => hex(blocks[blocks.length - 1]!.number),
          eth_getBlockByNumber: (p) => {
            const b = lookup(p[0]);
            return b ? blockJson(b, p[1] === true) : null;
          },
          eth_getBlockByHash: (p) => {
            const asked = byHash.get(String(p[0]).toLowerCase());
            const b = asked && wrongBlockByHash ? byHash.get(asked.parentHash) : asked;
            return b ? blockJson(b, p[1] === true) : null;
          },
          eth_call: (p) => ethCall(p),
          eth_feeHistory: (p) => feeHistory(p),
          ...accounts.methods,
          ...activity.methods,
          eth_getBalance: (p) => {
            const b = lookup(p[1] ?? "latest");
            if (!b) throw new JsonRpcError(-32000, "header not found");
            const head = blocks[blocks.length - 1]!;
            // A pruned node keeps the state of its newest blocks only (geth's wording).
            if (stateHistory !== null && head.number - b.number >= BigInt(stateHistory)) {
              throw new JsonRpcError(-32000, `missing trie node ${keccak256(toHex(`state:${b.number}`))} (path ) state ${b.hash} is not available`);
            }
            return hex(balanceAt(String(p[0]), b.number));
          },
          // The simulated contracts' events and the approvals of the counter-MEV activity, under one filter, in block and log order.
          eth_getLogs: (p) => {
            type Log = { address: string; topics: string[]; blockNumber?: string; logIndex?: string };
            const n = (v: string | undefined) => BigInt(v ?? 0);
            const filter = parseLogFilter((p[0] ?? {}) as { address?: unknown; topics?: unknown });
            const approvals = (activity.methods.eth_getLogs(p) as Log[]).filter((l) => logMatches(l, filter));
            const all = [...(getLogs(p, filter) as Log[]), ...approvals];
            return all.sort((a, b) => Number(n(a.blockNumber) - n(b.blockNumber)) || Number(n(a.logIndex) - n(b.logIndex)));
          },
        },
      },
    },
  });

  const timer = opts.autoMine === false ? undefined : setInterval(catchUp, 1000);
  timer?.unref();

  return {
    url: server.url,
    chainId: DEVNET_ETH_CHAIN_ID,
    head: () => blocks[blocks.length - 1]!,
    block: (n) => blocks.find((b) => b.number === n),
    mine,
    reorg,
    setBalance,
    accounts,
    setFeeHistorySkew: (wei) => {
      skew = wei;
    },
    setPremium: (pool, bps) => premiums.set(pool.toLowerCase(), BigInt(bps)),
    setFailure: (mode) => {
      failure = mode;
    },
    setStateHistory: (n) => {
      stateHistory = n;
    },
    retag: (blockHash, extraData) => {
      const b = byHash.get(blockHash.toLowerCase());
      if (!b) throw new Error(`no devnet block ${blockHash}`);
      b.extraData = extraData;
    },
    setWrongBlockByHash: (on) => {
      wrongBlockByHash = on;
    },
    mevBoost: {
      firstSlot: () => slotOf(blocks[0]!.timestamp),
      blockOfSlot: (slot) => {
        if (opts.autoMine !== false) catchUp();
        const n = slotBlocks.get(slot);
        const b = n === undefined ? undefined : blocks[Number(n - blocks[0]!.number)];
        return b ? { number: b.number, hash: b.hash, parentHash: b.parentHash, gasUsed: b.gasUsed, gasLimit: b.gasLimit, txCount: b.transactions.length } : null;
      },
    },
    lending,
    comet,
    morpho,
    calls,
    close: async () => {
      if (timer) clearInterval(timer);
      await server.close();
    },
  };
}
