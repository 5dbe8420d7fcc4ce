/**
 * A simulated zebrad on loopback for the devnet and tests: the JSON-RPC
 * methods Vigil reads for Zcash chain facts (getblockchaininfo, getinfo,
 * getblock at verbosity 1 and 2, getbestblockhash, getblockcount,
 * getrawmempool, getmempoolinfo) in zebrad's own shapes, over its own
 * testnet-style chain ("test") past NU6.3.
 *
 * The chain: it starts at the testnet NU6.3 activation height with a
 * history of `initialBlocks` blocks and value pools of mainnet-like size;
 * a block is mined every `blockSeconds` (timer unref'd; 0 = by hand). Each
 * block pays the subsidy (12 % to the lockbox, the rest transparent), moves
 * value from Orchard to Ironwood in ZIP 318-style fixed denominations, and
 * shields a little transparent value into Ironwood, so the migration readout
 * climbs block by block while the supply grows by the subsidy only. A
 * mempool gains 1–5 transactions after each block and empties into the next.
 * Deterministic: every choice comes from a PRNG seeded by the height.
 *
 * Devnet-only: POST /devnet/zcash/mine {blocks}, POST /devnet/zcash/mempool
 * {count}. Test hooks: mine, addMempoolTxs, failNext. The chain lives in
 * memory only (facts need no history across restarts).
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { systemClock, type Clock } from "../core/clock.js";
import { formatZec } from "../core/money.js";
import type { ZcashNetwork } from "../chains/zcash/network.js";
import { ZCASH_POOLS, ZEBRAD_CHAIN, type ZcashPool } from "../chains/zcash/zebrad.js";
import { HttpReply, JsonRpcError, startJsonRpcServer } from "./jsonrpc-server.js";
import { seededRandom } from "./seeded-random.js";

export const DEVNET_ZCASH_NETWORK: ZcashNetwork = "testnet";
/** NU6.3 (Ironwood) activation on testnet; the devnet chain's history starts here. */
export const DEVNET_ZCASH_START_HEIGHT = 4_134_000;
/** Block subsidy after the 2024 halving, zatoshi. */
export const DEVNET_ZCASH_SUBSIDY = 156_250_000n;
export const DEVNET_ZCASH_DIFFICULTY = 1.0203;
const ZAT = 100_000_000n;
/** Header and coinbase of an otherwise empty block, bytes. */
const EMPTY_BLOCK_BYTES = 1_800;

/** Testnet network upgrades (research zcash.md §5.4): branch id → name, activation height. */
const UPGRADES: readonly [string, string, number][] = [
  ["76b809bb", "Sapling", 280_000],
  ["e9ff75a6", "Canopy", 1_028_500],
  ["c2d6d0b4", "NU5", 1_842_420],
  ["c8e71055", "NU6", 2_976_000],
  ["4dec4df0", "NU6.1", 3_536_500],
  ["5437f330", "NU6.2", 4_052_000],
  ["37a5165b", "NU6.3", 4_134_000],
];

/** Value pools at the start of the devnet chain, ZEC (about mainnet's proportions). */
const INITIAL_POOLS: Record<ZcashPool, bigint> = {
  transparent: 11_824_310n * ZAT + 12_500_000n,
  sprout: 25_412n * ZAT + 4_000_000n,
  sapling: 1_046_885n * ZAT + 77_000_000n,
  orchard: 3_911_204n * ZAT + 31_000_000n,
  lockbox: 289_687n * ZAT + 50_000_000n,
  ironwood: 0n,
};

/** ZIP 318-style fixed migration denominations (zatoshi) and their weights. */
const DENOMINATIONS: readonly [bigint, number][] = [
  [ZAT / 100n, 2],
  [ZAT / 10n, 4],
  [ZAT, 6],
  [10n * ZAT, 5],
  [100n * ZAT, 3],
  [1_000n * ZAT, 1],
];

export interface DevnetZcashTx {
  txid: string;
  size: number;
  time: number;
}

export interface DevnetZcashBlock {
  height: number;
  hash: string;
  previousHash: string;
  time: number;
  size: number;
  txs: DevnetZcashTx[];
  pools: Record<ZcashPool, bigint>;
  deltas: Record<ZcashPool, bigint>;
}


const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");

/** The devnet's Zcash chain: blocks, value pools, mempool. */
export class DevnetZcashChain {
  readonly blocks: DevnetZcashBlock[] = [];
  mempool: DevnetZcashTx[] = [];
  private txCounter = 0;

  constructor(
    private readonly clock: Clock,
    private readonly blockSeconds: number,
  ) {}

  /** Builds `n` blocks of history ending now, spaced blockSeconds (1 s when mining by hand). */
  open(n: number): void {
    const spacing = Math.max(this.blockSeconds, 1);
    const now = Math.floor(this.clock.now() / 1000);
    for (let i = n - 1; i >= 0; i--) this.build(now - i * spacing);
    this.arrive(3);
  }

  tip(): DevnetZcashBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  byHeight(h: number): DevnetZcashBlock | undefined {
    const first = this.blocks[0]?.height ?? 0;
    return this.blocks[h - first];
  }

  byHash(hash: string): DevnetZcashBlock | undefined {
    return this.blocks.find((b) => b.hash === hash);
  }

  /** Mines n blocks now: the first takes the whole mempool; new transactions arrive after each. */
  mine(n = 1): string[] {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const now = Math.max(Math.floor(this.clock.now() / 1000), this.tip().time + 1);
      out.push(this.build(now).hash);
      this.arrive(1 + Math.floor(seededRandom(this.tip().height ^ 0x5eed)() * 5));
    }
    return out;
  }

  /** Puts `count` transactions in the mempool; returns their txids. */
  addMempoolTxs(count: number): string[] {
    return this.arrive(count).map((t) => t.txid);
  }

  private arrive(count: number): DevnetZcashTx[] {
    const added: DevnetZcashTx[] = [];
    const rand = seededRandom(this.txCounter * 7919 + (this.blocks.length ? this.tip().height : 0));
    for (let i = 0; i < count; i++) {
      const txid = sha256hex(`devnet-zcash-tx:${this.txCounter++}:${this.blocks.length}`);
      // A v6 transaction with one or two actions is about 2.5–9 kB (proofs dominate).
      const tx = { txid, size: 2_400 + Math.floor(rand() * 6_600), time: Math.floor(this.clock.now() / 1000) };
      this.mempool.push(tx);
      added.push(tx);
    }
    return added;
  }

  private build(time: number): DevnetZcashBlock {
    const prev = this.blocks[this.blocks.length - 1];
    const height = prev ? prev.height + 1 : DEVNET_ZCASH_START_HEIGHT;
    const pools = { ...(prev ? prev.pools : INITIAL_POOLS) };
    const before = { ...pools };
    const rand = seededRandom(height);
    // Subsidy: 12 % to the lockbox (NU6), the rest (miner and the grant slice) transparent.
    const lockbox = (DEVNET_ZCASH_SUBSIDY * 12n) / 100n;
    pools.lockbox += lockbox;
    pools.transparent += DEVNET_ZCASH_SUBSIDY - lockbox;
    // Migration Orchard → Ironwood in fixed denominations, 0..3 per block.
    const moves = Math.floor(rand() * 4);
    const totalWeight = DENOMINATIONS.reduce((s, [, w]) => s + w, 0);
    for (let i = 0; i < moves; i++) {
      let pick = rand() * totalWeight;
      let amount = DENOMINATIONS[0]![0];
      for (const [d, w] of DENOMINATIONS) {
        if (pick < w) {
          amount = d;
          break;
        }
        pick -= w;
      }
      if (amount > pools.orchard) amount = pools.orchard;
      pools.orchard -= amount;
      pools.ironwood += amount;
    }
    // Shielding: some transparent value enters Ironwood (new shielded value can no longer enter Orchard).
    if (rand() < 0.5) {
      const amount = BigInt(Math.floor(rand() * 50)) * ZAT / 10n;
      const moved = amount > pools.transparent ? pools.transparent : amount;
      pools.transparent -= moved;
      pools.ironwood += moved;
    }
    const mined = prev ? this.mempool.splice(0, 50) : [];
    const coinbase: DevnetZcashTx = { txid: sha256hex(`devnet-zcash-coinbase:${height}`), size: 0, time };
    const size = EMPTY_BLOCK_BYTES + mined.reduce((s, t) => s + t.size, 0);
    const previousHash = prev ? prev.hash : "0".repeat(64);
    const hash = sha256hex(`devnet-zcash-block:${height}:${previousHash}:${time}`);
    const deltas = {} as Record<ZcashPool, bigint>;
    for (const p of ZCASH_POOLS) deltas[p] = pools[p] - before[p];
    const block: DevnetZcashBlock = { height, hash, previousHash, time, size, txs: [coinbase, ...mined], pools, deltas };
    this.blocks.push(block);
    return block;
  }
}

export interface DevnetZebrad {
  url: string;
  network: ZcashNetwork;
  chain: DevnetZcashChain;
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
  /** Blocks of history built at start (default 100). */
  initialBlocks?: number;
  clock?: Clock;
  log?: Logger;
}

const poolList = (b: DevnetZcashBlock, withDelta: boolean) =>
  ZCASH_POOLS.map((id) => ({
    id,
    chainValue: Number(formatZec(b.pools[id])),
    chainValueZat: Number(b.pools[id]),
    monitored: true,
    ...(withDelta ? { valueDelta: Number(formatZec(b.deltas[id])), valueDeltaZat: Number(b.deltas[id]) } : {}),
  }));

const supply = (b: DevnetZcashBlock) => {
  const total = ZCASH_POOLS.reduce((s, p) => s + b.pools[p], 0n);
  return { chainValue: Number(formatZec(total)), chainValueZat: Number(total), monitored: true };
};

export async function startDevnetZebrad(opts: StartDevnetZebradOptions): Promise<DevnetZebrad> {
  const clock = opts.clock ?? systemClock;
  const network = opts.network ?? DEVNET_ZCASH_NETWORK;
  const chain = new DevnetZcashChain(clock, opts.blockSeconds);
  chain.open(opts.initialBlocks ?? 100);
  const counts: Record<string, number> = {};
  let failures = { count: 0, status: 500 };

  const nextUpgrade = (h: number) => [...UPGRADES].reverse().find(([, , at]) => at <= h)?.[0] ?? "00000000";

  const findBlock = (ref: unknown): DevnetZcashBlock => {
    const s = typeof ref === "number" ? String(ref) : typeof ref === "string" ? ref : "";
    let b: DevnetZcashBlock | undefined;
    if (/^\d{1,10}$/.test(s)) b = chain.byHeight(Number(s));
    else if (/^[0-9a-fA-F]{64}$/.test(s)) b = chain.byHash(s.toLowerCase());
    else throw new JsonRpcError(-8, "invalid block hash or height");
    if (!b) throw new JsonRpcError(-8, "block height not in best chain");
    return b;
  };

  const blockAnswer = (b: DevnetZcashBlock, verbosity: number) => {
    const tip = chain.tip();
    const next = chain.byHeight(b.height + 1);
    return {
      hash: b.hash,
      confirmations: tip.height - b.height + 1,
      size: b.size,
      height: b.height,
      version: 4,
      merkleroot: sha256hex(`merkle:${b.hash}`),
      blockcommitments: sha256hex(`commitments:${b.hash}`),
      finalsaplingroot: sha256hex(`sapling:${b.hash}`),
      tx: verbosity >= 2 ? b.txs.map((t) => ({ txid: t.txid, size: t.size, height: b.height })) : b.txs.map((t) => t.txid),
      time: b.time,
      nonce: sha256hex(`nonce:${b.hash}`),
      solution: "00",
      bits: "2007ffff",
      difficulty: DEVNET_ZCASH_DIFFICULTY,
      chainSupply: supply(b),
      valuePools: poolList(b, true),
      trees: {},
      ...(b.height > DEVNET_ZCASH_START_HEIGHT ? { previousblockhash: b.previousHash } : {}),
      ...(next ? { nextblockhash: next.hash } : {}),
    };
  };

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getblockchaininfo: () => {
      const tip = chain.tip();
      return {
        chain: ZEBRAD_CHAIN[network],
        blocks: tip.height,
        headers: tip.height,
        difficulty: DEVNET_ZCASH_DIFFICULTY,
        verificationprogress: 1.0,
        chainwork: 0,
        pruned: false,
        size_on_disk: 1_000_000 + chain.blocks.length * 4_000,
        commitments: 0,
        bestblockhash: tip.hash,
        estimatedheight: tip.height,
        chainSupply: supply(tip),
        valuePools: poolList(tip, false),
        upgrades: Object.fromEntries(
          UPGRADES.map(([id, name, at]) => [id, { name, activationheight: at, status: at <= tip.height ? "active" : "pending" }]),
        ),
        consensus: { chaintip: nextUpgrade(tip.height), nextblock: nextUpgrade(tip.height + 1) },
      };
    },
    getinfo: () => ({
      version: 6_000_000,
      build: "v6.0.0",
      subversion: "/Zebra:6.0.0/",
      protocolversion: 170_140,
      blocks: chain.tip().height,
      connections: 8,
      proxy: "",
      difficulty: DEVNET_ZCASH_DIFFICULTY,
      testnet: network !== "mainnet",
      paytxfee: 0,
      relayfee: 0.000001,
      errors: "",
      errors_timestamp: "",
    }),
    getbestblockhash: () => chain.tip().hash,
    getblockcount: () => chain.tip().height,
    getblock: (params) => {
      const verbosity = params[1] === undefined ? 1 : params[1];
      if (verbosity !== 1 && verbosity !== 2) throw new JsonRpcError(-32602, "this simulator serves verbosity 1 and 2 only");
      return blockAnswer(findBlock(params[0]), verbosity);
    },
    getrawmempool: (params) => {
      if (params[0] === true) {
        return Object.fromEntries(
          chain.mempool.map((t) => [t.txid, { size: t.size, fee: 0.0001, modifiedfee: 0.0001, time: t.time, height: chain.tip().height, descendantcount: 1, descendantsize: t.size, descendantfees: 10_000, depends: [] }]),
        );
      }
      return chain.mempool.map((t) => t.txid);
    },
    getmempoolinfo: () => {
      const bytes = chain.mempool.reduce((s, t) => s + t.size, 0);
      return { size: chain.mempool.length, bytes, usage: bytes + chain.mempool.length * 320, fullyNotified: true };
    },
  };

  const server = await startJsonRpcServer({
    host: opts.host,
    port: opts.port,
    maxBodyBytes: 256 * 1024,
    log: opts.log,
    rpc: {
      methods: { params: "positional", table: methods },
      unknownMethodMessage: (m) => `Method not found: ${m}`,
      onCall: (m) => {
        counts[m] = (counts[m] ?? 0) + 1;
      },
    },
    routes: {
      "POST /devnet/zcash/mine": (body) => {
        const n = body.blocks === undefined ? 1 : body.blocks;
        if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 1000) {
          throw new HttpReply(400, { error: { code: "invalid_blocks", message: "blocks must be 1..1000" } });
        }
        const hashes = chain.mine(n);
        return { height: chain.tip().height, hashes };
      },
      "POST /devnet/zcash/mempool": (body) => {
        const n = body.count === undefined ? 1 : body.count;
        if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 1000) {
          throw new HttpReply(400, { error: { code: "invalid_count", message: "count must be 1..1000" } });
        }
        return { txids: chain.addMempoolTxs(n) };
      },
    },
    intercept: () => {
      if (failures.count <= 0) return undefined;
      failures.count--;
      return { status: failures.status, body: { error: "simulated failure" } };
    },
  });

  opts.log?.info({ url: server.url, network, height: chain.tip().height }, "devnet zebrad listening");
  const timer = opts.blockSeconds > 0 ? setInterval(() => chain.mine(1), opts.blockSeconds * 1000) : undefined;
  timer?.unref();

  return {
    url: server.url,
    network,
    chain,
    height: () => chain.tip().height,
    mine: (n) => chain.mine(n),
    addMempoolTxs: (n) => chain.addMempoolTxs(n),
    failNext: (count, status = 500) => {
      failures = { count, status };
    },
    requestCounts: () => ({ ...counts }),
    close: async () => {
      if (timer) clearInterval(timer);
      await server.close();
    },
  };
}
