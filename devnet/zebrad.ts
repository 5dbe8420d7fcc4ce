/**
 * A simulated zebrad on loopback for the devnet and tests: the JSON-RPC
 * methods Vigil reads for Zcash chain facts (getblockchaininfo, getinfo,
 * getblock at verbosity 1 and 2, getbestblockhash, getblockcount,
 * getrawtransaction, getrawmempool, getmempoolinfo, z_gettreestate) in zebrad's own shapes,
 * over the devnet's testnet-style chain ("test") across NU6.3
 * (zcash-chain.ts: real transactions, value pools that move by what they do).
 * The simulated lightwalletd (lightwalletd.ts) serves the same chain object.
 *
 * Devnet-only endpoints (the controls `vigil devnet … zcash` uses):
 *   POST /devnet/zcash/send {address, amount_zatoshi, memo?}
 *   POST /devnet/zcash/mine {blocks}
 *   POST /devnet/zcash/mempool {count}       background transactions
 *   POST /devnet/zcash/reorg {depth, drop_txids?}
 *   POST /devnet/zcash/spend {wallet, txid, pool?, output_index?}
 *   GET  /devnet/zcash/wallets
 * Test hooks: mine, send, spend, reorg, addMempoolTxs, failNext. The chain
 * lives in memory only. The answers are zebrad-rpc.ts; this file serves them
 * with the controls.
 */
import type { Logger } from "pino";
import { systemClock, type Clock } from "../src/core/clock.js";
import { ServiceError } from "../src/core/errors.js";
import type { ZcashNetwork } from "../src/chains/zcash/network.js";
import { HttpReply, startJsonRpcServer, type PlainRoute } from "./jsonrpc-server.js";
import { parseZec } from "../src/core/money.js";
import { DEVNET_ZCASH_NETWORK, DevnetZcashChain, DevnetZcashError } from "./zcash-chain.js";
import { zebradMethods } from "./zebrad-rpc.js";
import { deriveDevnetZcashWallets, walletUfvk, type DevnetZcashWallet } from "./zcash-wallets.js";

export {
  DEVNET_ZCASH_DIFFICULTY,
  DEVNET_ZCASH_NETWORK,
  DEVNET_ZCASH_NU63_HEIGHT,
  DEVNET_ZCASH_START_HEIGHT,
  DEVNET_ZCASH_SUBSIDY,
  DevnetZcashChain,
  type DevnetZcashBlock,
  type DevnetZcashTx,
} from "./zcash-chain.js";

/** Wallet seed used when none is given (tests): fixed, so the wallets are the same on every run. */
export const DEFAULT_DEVNET_ZCASH_SEED = "5a".repeat(32);

export interface DevnetZebrad {
  url: string;
  network: ZcashNetwork;
  chain: DevnetZcashChain;
  /** The ready-made Zcash wallets (derived on first use). */
  wallets(): DevnetZcashWallet[];
  height(): number;
  mine(n?: number): string[];
  addMempoolTxs(count: number): string[];
  /** Makes the next `count` HTTP requests answer `status` (default 500), for retry tests. */
  failNext(count: number, status?: number): void;
  /** Requests served, by JSON-RPC method. */
  requestCounts(): Record<string, number>;
  close(): Promise<void>;
}

export interface StartDevnetZebradOptions {
  host?: string;
  port?: number;
  /** Mines a block every blockSeconds (timer unref'd); 0 disables the timer. */
  blockSeconds: number;
  /** The chain the node reports (default testnet, "test"); tests set another to check the network guard. */
  network?: ZcashNetwork;
  /** Blocks of history built at start (default 100; 10 or fewer leave the tip before NU6.3). */
  initialBlocks?: number;
  /** Serve this chain (shared with the lightwalletd simulator) instead of opening a new one. */
  chain?: DevnetZcashChain;
  /** 32-byte hex seed of the ready wallets (default DEFAULT_DEVNET_ZCASH_SEED). */
  walletSeed?: string;
  clock?: Clock;
  log?: Logger;
}

export async function startDevnetZebrad(opts: StartDevnetZebradOptions): Promise<DevnetZebrad> {
  const clock = opts.clock ?? systemClock;
  const network = opts.network ?? DEVNET_ZCASH_NETWORK;
  const ownChain = !opts.chain;
  const chain = opts.chain ?? new DevnetZcashChain(clock, opts.blockSeconds);
  if (ownChain) chain.open(opts.initialBlocks ?? 100);
  let wallets: DevnetZcashWallet[] | undefined;
  const getWallets = () => (wallets ??= deriveDevnetZcashWallets(opts.walletSeed ?? DEFAULT_DEVNET_ZCASH_SEED));
  const counts: Record<string, number> = {};
  const failures = { count: 0, status: 500 };

  const server = await startJsonRpcServer({
    host: opts.host,
    port: opts.port,
    maxBodyBytes: 256 * 1024,
    log: opts.log,
    rpc: {
      methods: { params: "positional", table: zebradMethods(chain, network) },
      unknownMethodMessage: (m) => `Method not found: ${m}`,
      onCall: (m) => {
        counts[m] = (counts[m] ?? 0) + 1;
      },
    },
    routes: devnetRoutes(chain, getWallets),
    intercept: () => {
      if (failures.count <= 0) return undefined;
      failures.count--;
      return { status: failures.status, body: { error: "simulated failure" } };
    },
  });

  opts.log?.info({ url: server.url, network, height: chain.tip().height }, "devnet zebrad listening");
  if (ownChain) chain.startTimer((e) => opts.log?.error({ err: e }, "devnet zebrad could not mine a block"));

  return {
    url: server.url,
    network,
    chain,
    wallets: getWallets,
    height: () => chain.tip().height,
    mine: (n) => chain.mine(n),
    addMempoolTxs: (n) => chain.addMempoolTxs(n),
    failNext: (count, status = 500) => {
      failures.count = count;
      failures.status = status;
    },
    requestCounts: () => ({ ...counts }),
    close: async () => {
      if (ownChain) chain.stopTimer();
      await server.close().catch(() => undefined);
    },
  };
}

const refuse = (code: string, message: string) => new HttpReply(400, { error: { code, message } });

/** Runs a control; a refused request (bad address, amount, note…) is a 400 with its code. */
function control<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof DevnetZcashError) throw refuse(e.code, e.message);
    if (e instanceof ServiceError) throw refuse(e.code, e.message);
    if (e instanceof RangeError) throw refuse("invalid_amount", e.message);
    throw e;
  }
}

const count = (v: unknown, name: string, max = 1000): number => {
  const n = v === undefined ? 1 : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > max) throw refuse(`invalid_${name}`, `${name} must be 1..${max}`);
  return n;
};

/** The devnet-only control endpoints on the zebrad simulator's server. */
function devnetRoutes(chain: DevnetZcashChain, wallets: () => DevnetZcashWallet[]): Record<string, PlainRoute> {
  return {
    "GET /devnet/zcash/wallets": () => ({ network: DEVNET_ZCASH_NETWORK, wallets: wallets() }),
    "POST /devnet/zcash/mine": (body) => {
      const hashes = chain.mine(count(body.blocks, "blocks"));
      return { height: chain.tip().height, hashes };
    },
    "POST /devnet/zcash/mempool": (body) => ({ txids: chain.addMempoolTxs(count(body.count, "count")) }),
    "POST /devnet/zcash/send": (body) =>
      control(() => {
        const address = typeof body.address === "string" ? body.address.trim() : "";
        const raw = body.amount_zatoshi ?? (typeof body.amount_zec === "string" ? parseZec(body.amount_zec).toString() : undefined);
        const amount = typeof raw === "string" && /^\d{1,20}$/.test(raw) ? BigInt(raw) : typeof raw === "number" && Number.isSafeInteger(raw) ? BigInt(raw) : -1n;
        if (body.memo !== undefined && typeof body.memo !== "string") throw refuse("invalid_memo", "memo must be a string");
        return chain.send(address, amount, body.memo as string | undefined);
      }),
    "POST /devnet/zcash/reorg": (body) =>
      control(() => {
        const drop = body.drop_txids;
        if (drop !== undefined && !(Array.isArray(drop) && drop.every((t) => typeof t === "string"))) throw refuse("invalid_drop_txids", "drop_txids must be a list of txids");
        return chain.reorg(typeof body.depth === "number" ? body.depth : NaN, drop as string[] | undefined);
      }),
    "POST /devnet/zcash/spend": (body) =>
      control(() => {
        const w = wallets().find((x) => x.label === body.wallet);
        if (!w) throw refuse("unknown_wallet", `wallet must be one of ${wallets().map((x) => x.label).join(", ")}`);
        if (typeof body.txid !== "string" || !/^[0-9a-fA-F]{64}$/.test(body.txid)) throw refuse("invalid_txid", "txid must be 32 bytes of hex");
        const pool = body.pool;
        if (pool !== undefined && pool !== "sapling" && pool !== "orchard" && pool !== "ironwood") throw refuse("invalid_pool", "pool must be sapling, orchard or ironwood");
        const idx = body.output_index;
        if (idx !== undefined && !(typeof idx === "number" && Number.isInteger(idx) && idx >= 0)) throw refuse("invalid_output_index", "output_index must be a non-negative integer");
        return chain.spend(walletUfvk(w), body.txid, { pool: pool as "sapling" | "orchard" | "ironwood" | undefined, outputIndex: idx as number | undefined });
      }),
  };
}
