/**
 * A simulated monerod on loopback for the devnet and tests. It speaks the
 * same wire protocol as monerod v0.18 for what Vigil uses — JSON-RPC at
 * /json_rpc (get_info, get_block_count, get_last_block_header,
 * get_block_header_by_height/_by_hash, get_block_headers_range, get_block,
 * get_fee_estimate) and the JSON endpoints /get_info, /get_height,
 * /get_transactions, /get_transaction_pool, /get_transaction_pool_hashes —
 * including epee's habit of omitting empty arrays and u64s written as bare
 * integers. Blocks, coinbases and transfers are built by monero-sender.ts
 * with real sender-side cryptography, so a view-key scanner finds devnet
 * payments exactly as it would on mainnet.
 *
 * With carrotForkHeight the chain crosses the FCMP++/Carrot fork (v17) at
 * that height (monerod-chain.ts); Carrot transfers come from the miner wallet.
 *
 * Devnet-only endpoints: POST /devnet/send {address, amount_piconero, kind?},
 * POST /devnet/mine {blocks}, POST /devnet/reorg {depth}, GET /devnet/wallets.
 * Addresses use the Monero testnet prefixes (never mainnet). The chain lives
 * in memory and, unless persistChain is off, in
 * <dataDir>/devnet/monero-chain.jsonl; the ready wallets come from a seed
 * kept under <dataDir>/devnet/monero-wallets.json (created on first start).
 *
 * The parts: monerod-wallets.ts (the ready wallets), monerod-chain.ts (blocks,
 * pool, send/mine/reorg), monerod-chain-file.ts (the chain on disk),
 * monerod-rpc.ts (monerod's answers), monerod-client.ts (the CLI's side of
 * the devnet endpoints), jsonrpc-server.ts (HTTP). This file wires them.
 */
import path from "node:path";
import type { Logger } from "pino";
import { systemClock, type Clock } from "../src/core/clock.js";
import { formatXmr } from "../src/core/money.js";
import { stringifyJsonLossless } from "../src/chains/monero/daemon-client.js";
import type { MoneroNetwork } from "../src/chains/monero/types.js";
import { HttpReply, startJsonRpcServer, type PlainRoute } from "./jsonrpc-server.js";
import { DevnetMoneroChain, DEVNET_TX_FEE, type DevnetTxKind } from "./monerod-chain.js";
import { monerodProtocol } from "./monerod-rpc.js";
import { DEVNET_MONERO_NETWORK, deriveDevnetWallets, loadOrCreateSeed, type DevnetMoneroWallet } from "./monerod-wallets.js";

export { DEVNET_BLOCK_REWARD, DEVNET_DIFFICULTY, DEVNET_FEES, DEVNET_QUANTIZATION_MASK } from "./monerod-chain.js";
export { DEVNET_MONERO_NETWORK, deriveDevnetWallets, type DevnetMoneroWallet } from "./monerod-wallets.js";
export { devnetMoneroMine, devnetMoneroSend, devnetMoneroWallets, parseXmr, formatXmr, type DevnetSendResult } from "./monerod-client.js";

const MAX_BODY_BYTES = 1024 * 1024;

export interface DevnetMonerod {
  url: string;
  network: MoneroNetwork;
  wallets: DevnetMoneroWallet[];
  /** Height of the newest block. */
  height(): number;
  /** Mines n blocks (with the pool's transactions in the first); returns their hashes. */
  mine(n?: number): string[];
  /** Builds a transfer to `address` and puts it in the pool; returns the txid. Kind: by the next block's version unless given. */
  send(address: string, piconero: bigint, kind?: DevnetTxKind): string;
  /** The fork version of the block at `height` (16, or 17 from carrotForkHeight). */
  hfVersionAt(height: number): number;
  /**
   * Replaces the newest `depth` blocks with empty ones. Their transfers are
   * dropped (default) or, with keepTxs, returned to the pool as a real node
   * does with transactions of orphaned blocks. Returns those txids.
   */
  reorg(depth: number, opts?: { keepTxs?: boolean }): string[];
  /** Requests served, by JSON-RPC method or path (for tests that count fetches). */
  requestCounts(): Record<string, number>;
  resetRequestCounts(): void;
  /** Makes the next `count` HTTP requests answer `status` (default 500), for retry tests. */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

export interface StartDevnetMonerodOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  dataDir: string;
  /** Mines a block every blockSeconds (timer is unref'd); 0 disables the timer. */
  blockSeconds: number;
  log?: Logger;
  clock?: Clock;
  /** Blocks mined at start when there is no saved chain (default 1, the genesis). */
  initialBlocks?: number;
  /**
   * Keep the chain in <dataDir>/devnet/monero-chain.jsonl and reload it on the
   * next start (default true), so watches stored by a previous run still
   * match the chain. The pool is not kept.
   */
  persistChain?: boolean;
  /** First block of fork v17 (FCMP++/Carrot); absent: no fork (DEVNET_MONERO_CARROT_HEIGHT). */
  carrotForkHeight?: number;
}

export async function startDevnetMonerod(opts: StartDevnetMonerodOptions): Promise<DevnetMonerod> {
  const clock = opts.clock ?? systemClock;
  const network = DEVNET_MONERO_NETWORK;
  const wallets = deriveDevnetWallets(loadOrCreateSeed(opts.dataDir).seed, network);
  const miner = wallets.find((w) => w.label === "miner")!;
  const chain = new DevnetMoneroChain({
    network,
    minerAddress: miner.address,
    clock,
    log: opts.log,
    chainFile: opts.persistChain ?? true ? path.join(opts.dataDir, "devnet", "monero-chain.jsonl") : undefined,
    ...(opts.carrotForkHeight !== undefined ? { carrotForkHeight: opts.carrotForkHeight } : {}),
    carrotSender: { address: miner.address, viewKey: miner.viewKey },
  });
  chain.open(opts.initialBlocks ?? 1);

  const counts: Record<string, number> = {};
  const count = (key: string) => {
    counts[key] = (counts[key] ?? 0) + 1;
  };
  const failures = { count: 0, status: 500 };
  const protocol = monerodProtocol(chain, { blockSeconds: opts.blockSeconds });
  const server = await startJsonRpcServer({
    host: opts.host,
    port: opts.port,
    maxBodyBytes: MAX_BODY_BYTES,
    // monerod writes u64 as bare integers.
    stringify: stringifyJsonLossless,
    log: opts.log,
    intercept: (_req) => {
      if (failures.count <= 0) return undefined;
      failures.count--;
      return { status: failures.status, body: { error: "injected failure" } };
    },
    rpc: {
      path: "/json_rpc",
      methods: { params: "named", table: protocol.methods },
      // monerod answers a request without an id as id "0".
      idWhenMissing: "0",
      onCall: (method) => count(method),
    },
    routes: countedRoutes({ ...protocol.routes, ...devnetControlRoutes(chain, wallets) }, count),
  });
  const url = server.url;
  const timer = opts.blockSeconds > 0 ? mineOnTimer(chain, opts.blockSeconds, opts.log) : undefined;
  opts.log?.info({ url, network, height: chain.height() }, "devnet monerod listening");

  return {
    url,
    network,
    wallets,
    height: () => chain.height(),
    mine: (n) => chain.mine(n),
    send: (address, piconero, kind) => chain.send(address, piconero, kind),
    hfVersionAt: (height) => chain.hfVersionAt(height),
    reorg: (depth, ropts) => chain.reorg(depth, ropts),
    requestCounts: () => ({ ...counts }),
    resetRequestCounts: () => {
      for (const k of Object.keys(counts)) delete counts[k];
    },
    failNext: (n: number, status = 500) => {
      failures.count = n;
      failures.status = status;
    },
    close: async () => {
      if (timer) clearInterval(timer);
      // Closing twice (a test and its teardown) is not an error.
      await server.close().catch(() => undefined);
    },
  };
}

/** The devnet-only endpoints: the ready wallets, send, mine, reorg. */
function devnetControlRoutes(chain: DevnetMoneroChain, wallets: DevnetMoneroWallet[]): Record<string, PlainRoute> {
  return {
    "GET /devnet/wallets": () => ({ network: chain.network, wallets }),
    "POST /devnet/send": (body) => {
      const address = typeof body.address === "string" ? body.address.trim() : "";
      const raw = body.amount_piconero;
      const amount =
        typeof raw === "string" && /^\d{1,20}$/.test(raw) ? BigInt(raw) : typeof raw === "number" && Number.isSafeInteger(raw) ? BigInt(raw) : -1n;
      if (body.kind !== undefined && body.kind !== "legacy" && body.kind !== "carrot") {
        throw new HttpReply(400, { error: { code: "invalid_kind", message: 'kind must be "legacy" or "carrot"' } });
      }
      const kind = (body.kind as DevnetTxKind | undefined) ?? chain.defaultKind();
      const txid = chain.send(address, amount, kind);
      return { txid, address, amount_piconero: amount.toString(), amount_xmr: formatXmr(amount), fee_piconero: DEVNET_TX_FEE.toString(), kind };
    },
    "POST /devnet/mine": (body) => {
      const n = body.blocks === undefined ? 1 : body.blocks;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 1000) {
        throw new HttpReply(400, { error: { code: "invalid_blocks", message: "blocks must be 1..1000" } });
      }
      const hashes = chain.mine(n);
      return { height: chain.height(), hashes };
    },
    "POST /devnet/reorg": (body) => {
      const keepTxs = body.keep_txs === true;
      const moved = chain.reorg(typeof body.depth === "number" ? body.depth : NaN, { keepTxs });
      return { height: chain.height(), [keepTxs ? "returned_to_pool_txids" : "dropped_txids"]: moved };
    },
  };
}

/** Every plain endpoint counted by its path (JSON-RPC calls are counted by method). */
function countedRoutes(routes: Record<string, PlainRoute>, count: (key: string) => void): Record<string, PlainRoute> {
  return Object.fromEntries(
    Object.entries(routes).map(([key, route]): [string, PlainRoute] => [
      key,
      (body, url) => {
        count(url.pathname);
        return route(body, url);
      },
    ]),
  );
}

/** A block every `blockSeconds` (the timer does not hold the process open); a failure is logged, the timer goes on. */
function mineOnTimer(chain: DevnetMoneroChain, blockSeconds: number, log: Logger | undefined): NodeJS.Timeout {
  const timer = setInterval(() => {
    try {
      chain.mine(1);
    } catch (e) {
      log?.error({ err: e }, "devnet monerod could not mine a block");
    }
  }, blockSeconds * 1000);
  timer.unref();
  return timer;
}
