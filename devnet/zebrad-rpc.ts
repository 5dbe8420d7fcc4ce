/**
 * The zebrad simulator's JSON-RPC answers (zebrad.ts serves them), in
 * zebrad's own shapes over the devnet's Zcash chain: one named function per
 * method group — chain info, node info, blocks, transactions, the mempool,
 * tree states.
 */
import { createHash } from "node:crypto";
import { formatZec } from "../src/core/money.js";
import { bytesToHex } from "../src/chains/zcash/bytes.js";
import type { CommitmentTree } from "../src/chains/zcash/merkle.js";
import type { ZcashNetwork } from "../src/chains/zcash/network.js";
import { ZCASH_POOLS, ZEBRAD_CHAIN } from "../src/chains/zcash/zebrad.js";
import { JsonRpcError } from "./jsonrpc-server.js";
import {
  DEVNET_ZCASH_DIFFICULTY,
  DEVNET_ZCASH_NU63_HEIGHT,
  DEVNET_ZCASH_START_HEIGHT,
  DEVNET_ZCASH_UPGRADES,
  type DevnetZcashBlock,
  type DevnetZcashChain,
} from "./zcash-chain.js";

const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");
const displayRoot = (root: Uint8Array) => bytesToHex(Uint8Array.from(root).reverse());

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

const nextUpgrade = (h: number) => [...DEVNET_ZCASH_UPGRADES].reverse().find(([, , at]) => at <= h)?.[0] ?? "00000000";

/** Every method the simulator answers. */
export function zebradMethods(chain: DevnetZcashChain, network: ZcashNetwork): Record<string, (params: unknown[]) => unknown> {
  return {
    getblockchaininfo: () => blockchainInfo(chain, network),
    getinfo: () => nodeInfo(chain, network),
    getbestblockhash: () => chain.tip().hash,
    getblockcount: () => chain.tip().height,
    getblock: (params) => {
      const verbosity = params[1] === undefined ? 1 : params[1];
      if (verbosity !== 1 && verbosity !== 2) throw new JsonRpcError(-32602, "this simulator serves verbosity 1 and 2 only");
      return blockAnswer(chain, findBlock(chain, params[0]), verbosity);
    },
    getrawtransaction: (params) => rawTransaction(chain, params),
    getrawmempool: (params) => rawMempool(chain, params),
    z_gettreestate: (params) => treeState(chain, params[0]),
    getmempoolinfo: () => {
      const bytes = chain.mempool.reduce((s, t) => s + t.size, 0);
      return { size: chain.mempool.length, bytes, usage: bytes + chain.mempool.length * 320, fullyNotified: true };
    },
  };
}

function blockchainInfo(chain: DevnetZcashChain, network: ZcashNetwork) {
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
      DEVNET_ZCASH_UPGRADES.map(([id, name, at]) => [id, { name, activationheight: at, status: at <= tip.height ? "active" : "pending" }]),
    ),
    consensus: { chaintip: nextUpgrade(tip.height), nextblock: nextUpgrade(tip.height + 1) },
  };
}

function nodeInfo(chain: DevnetZcashChain, network: ZcashNetwork) {
  return {
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
  };
}

/** A block by height or hash, as getblock and z_gettreestate take it. */
function findBlock(chain: DevnetZcashChain, ref: unknown): DevnetZcashBlock {
  const s = typeof ref === "number" ? String(ref) : typeof ref === "string" ? ref : "";
  let b: DevnetZcashBlock | undefined;
  if (/^\d{1,10}$/.test(s)) b = chain.byHeight(Number(s));
  else if (/^[0-9a-fA-F]{64}$/.test(s)) b = chain.byHash(s.toLowerCase());
  else throw new JsonRpcError(-8, "invalid block hash or height");
  if (!b) throw new JsonRpcError(-8, "block height not in best chain");
  return b;
}

function blockAnswer(chain: DevnetZcashChain, b: DevnetZcashBlock, verbosity: number) {
  const tip = chain.tip();
  const next = chain.byHeight(b.height + 1);
  return {
    hash: b.hash,
    confirmations: tip.height - b.height + 1,
    size: b.size,
    height: b.height,
    version: b.height >= DEVNET_ZCASH_NU63_HEIGHT ? 5 : 4,
    merkleroot: sha256hex(`merkle:${b.hash}`),
    blockcommitments: sha256hex(`commitments:${b.hash}`),
    // The Sapling root in display order (byte-reversed), as zebrad and zcashd print it.
    finalsaplingroot: displayRoot(b.commitmentTrees.sapling.root()),
    tx: verbosity >= 2 ? b.txs.map((t) => ({ txid: t.txid, hex: bytesToHex(t.raw), size: t.size, height: b.height })) : b.txs.map((t) => t.txid),
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
}

/** getrawtransaction: the hex, or (verbose) the transaction with its block. */
function rawTransaction(chain: DevnetZcashChain, params: unknown[]) {
  const id = typeof params[0] === "string" ? params[0].toLowerCase() : "";
  if (!/^[0-9a-f]{64}$/.test(id)) throw new JsonRpcError(-8, "txid must be 32 bytes of hex");
  const found = chain.findTx(id);
  if (!found || found.orphaned) throw new JsonRpcError(-5, "No such mempool or main chain transaction");
  const hex = bytesToHex(found.tx.raw);
  if (!params[1]) return hex;
  const tip = chain.tip();
  return {
    hex,
    txid: found.tx.txid,
    size: found.tx.size,
    version: found.tx.parsed.version,
    expiryheight: found.tx.parsed.expiryHeight,
    ...(found.block
      ? { height: found.block.height, confirmations: tip.height - found.block.height + 1, blockhash: found.block.hash, blocktime: found.block.time }
      : { height: -1, confirmations: 0 }),
  };
}

/** getrawmempool: the txids, or (verbose) each with its size, fee and time. */
function rawMempool(chain: DevnetZcashChain, params: unknown[]) {
  if (params[0] === true) {
    return Object.fromEntries(
      chain.mempool.map((t) => [
        t.txid,
        { size: t.size, fee: Number(formatZec(t.fee)), modifiedfee: Number(formatZec(t.fee)), time: t.time, height: chain.tip().height, descendantcount: 1, descendantsize: t.size, descendantfees: Number(t.fee), depends: [] },
      ]),
    );
  }
  return chain.mempool.map((t) => t.txid);
}

/** z_gettreestate of a block, or of the block before the chain's first (by its hash). */
function treeState(chain: DevnetZcashChain, ref: unknown) {
  const s = typeof ref === "string" && ref.toLowerCase() === chain.blocks[0]!.previousHash ? chain.treeStateAt(chain.blocks[0]!.height - 1)! : chain.treeStateAt(findBlock(chain, ref).height)!;
  // finalState is the legacy serialized tree; finalRoot is display order for Sapling (like finalsaplingroot) and the plain
  // little-endian bytes for Orchard-protocol trees, as Zebra reports them. Ironwood appears from NU6.3 on.
  const pool = (t: CommitmentTree, reversed: boolean) => ({ commitments: { finalState: t.toHex(), finalRoot: reversed ? displayRoot(t.root()) : bytesToHex(t.root()) } });
  return {
    hash: s.hash,
    height: s.height,
    time: s.time,
    sapling: pool(s.trees.sapling, true),
    orchard: pool(s.trees.orchard, false),
    ...(s.height >= DEVNET_ZCASH_NU63_HEIGHT ? { ironwood: pool(s.trees.ironwood, false) } : {}),
  };
}
