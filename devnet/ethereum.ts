/**
 * The devnet's Ethereum L1: a simulated execution JSON-RPC on loopback with
 * its own chain id (1337, a development chain, never mainnet's), producing a
 * block every `blockSeconds` with realistic fee and blob dynamics and
 * MEV-Boost blocks (ethereum-blocks.ts). It serves what the service reads
 * (ethereum-node.ts): eth_chainId, eth_blockNumber,
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
 * MEV-Boost blocks credit the proposer's fee recipient, which makes
 * eth_getBalance answer per block; with `setStateHistory(n)` the node keeps
 * state for only the newest n blocks, as a pruned node does. The relays are
 * handed `mevBoost` and report these blocks.
 */
import { catchUp, DEVNET_ETH_CHAIN_ID, headOf, mineBlocks, produceBlock, reorgBlocks, slotOf, type DevnetBlock } from "./ethereum-blocks.js";
import type { DevnetAccounts } from "./ethereum-accounts.js";
import type { DevnetComet } from "./ethereum-comet.js";
import type { DevnetLending } from "./ethereum-lending.js";
import type { DevnetMorpho } from "./ethereum-morpho.js";
import { createL1Node, l1Methods, setTokenBalance, type L1Node } from "./ethereum-node.js";
import { startJsonRpcServer, type JsonRpcServer } from "./jsonrpc-server.js";
import type { DevnetMevChain } from "./relays.js";

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

export interface DevnetEthereumOptions {
  host?: string;
  port?: number;
  blockSeconds?: number;
  /** Blocks produced at start (history), the last one about now. */
  history?: number;
  seed?: number;
  /** Produce blocks on a timer (default true); tests mine by hand. */
  autoMine?: boolean;
  now?: () => number;
}

export async function startDevnetEthereum(opts: DevnetEthereumOptions): Promise<DevnetEthereum> {
  const blockSeconds = opts.blockSeconds ?? 12;
  const now = opts.now ?? Date.now;
  const node = createL1Node(opts.seed ?? 1337, blockSeconds);
  const history = opts.history ?? 256;
  const startS = Math.floor(now() / 1000);
  for (let i = history - 1; i >= 0; i--) produceBlock(node.chain, startS - i * blockSeconds);
  const failure = { mode: null as FailureMode };
  const calls = new Map<string, number>();
  const server = await serveL1(node, opts, failure, calls);
  const timer = opts.autoMine === false ? undefined : setInterval(() => catchUp(node.chain, now()), 1000);
  timer?.unref();
  return devnetEthereumHandle(node, {
    server,
    timer,
    failure,
    calls,
    catchUpNow: () => {
      if (opts.autoMine !== false) catchUp(node.chain, now());
    },
  });
}

/** The node on the loopback JSON-RPC server, behind the failure the tests inject, counting requests per method. */
function serveL1(node: L1Node, opts: DevnetEthereumOptions, failure: { mode: FailureMode }, calls: Map<string, number>): Promise<JsonRpcServer> {
  return startJsonRpcServer({
    host: opts.host,
    port: opts.port ?? 0,
    maxBodyBytes: 1024 * 1024,
    intercept: () => {
      if (failure.mode === "http503") return { status: 503, body: { error: "node unavailable" } };
      if (failure.mode === "garbage") return { status: 200, body: "<html>gateway error</html>" };
      return undefined;
    },
    rpc: {
      maxBatch: 100,
      onCall: (method) => calls.set(method, (calls.get(method) ?? 0) + 1),
      run: async (call) => {
        // A hanging node answers after the client's deadline.
        if (failure.mode === "hang") await new Promise((r) => setTimeout(r, 30_000).unref());
        return call();
      },
      methods: { params: "positional", table: l1Methods(node) },
    },
  });
}

/** What the running node hands its owner: the test hooks over its state, the relays' view, closing. */
function devnetEthereumHandle(
  node: L1Node,
  run: { server: JsonRpcServer; timer: NodeJS.Timeout | undefined; failure: { mode: FailureMode }; calls: Map<string, number>; catchUpNow: () => void },
): DevnetEthereum {
  const { chain } = node;
  return {
    url: run.server.url,
    chainId: DEVNET_ETH_CHAIN_ID,
    head: () => headOf(chain),
    block: (n) => chain.blocks.find((b) => b.number === n),
    mine: (count) => mineBlocks(chain, count),
    reorg: (depth) => reorgBlocks(chain, depth),
    setBalance: (symbol, holder, amount) => setTokenBalance(node, symbol, holder, amount),
    accounts: node.accounts,
    setFeeHistorySkew: (wei) => {
      node.feeSkew = wei;
    },
    setPremium: (pool, bps) => node.premiums.set(pool.toLowerCase(), BigInt(bps)),
    setFailure: (mode) => {
      run.failure.mode = mode;
    },
    setStateHistory: (n) => {
      node.stateHistory = n;
    },
    retag: (blockHash, extraData) => retag(node, blockHash, extraData),
    setWrongBlockByHash: (on) => {
      node.wrongBlockByHash = on;
    },
    mevBoost: {
      firstSlot: () => slotOf(chain.blocks[0]!.timestamp),
      blockOfSlot: (slot) => {
        run.catchUpNow();
        const n = chain.slotBlocks.get(slot);
        const b = n === undefined ? undefined : chain.blocks[Number(n - chain.blocks[0]!.number)];
        return b ? { number: b.number, hash: b.hash, parentHash: b.parentHash, gasUsed: b.gasUsed, gasLimit: b.gasLimit, txCount: b.transactions.length } : null;
      },
    },
    lending: node.lending,
    comet: node.comet,
    morpho: node.morpho,
    calls: run.calls,
    close: async () => {
      if (run.timer) clearInterval(run.timer);
      await run.server.close();
    },
  };
}

function retag(node: L1Node, blockHash: string, extraData: string): void {
  const b = node.chain.byHash.get(blockHash.toLowerCase());
  if (!b) throw new Error(`no devnet block ${blockHash}`);
  b.extraData = extraData;
}
