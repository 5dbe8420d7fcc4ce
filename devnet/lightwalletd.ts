/**
 * A simulated lightwalletd on loopback (gRPC, plaintext) serving the devnet's
 * Zcash chain (zcash-chain.ts), the same chain object the zebrad simulator
 * serves: GetLatestBlock, GetBlock (every pool, transparent included),
 * GetBlockRange (inclusive, descending when start > end, pool filtering: no
 * poolTypes = Sapling + Orchard + Ironwood; a transaction with nothing left
 * is omitted), GetTransaction (height 0 in the mempool, 2^64−1 for a
 * transaction a reorg left out), SendTransaction (into the mempool),
 * GetMempoolTx, GetTreeState / GetLatestTreeState and GetLightdInfo.
 *
 * Tree states carry the block's network, height, hash and time and the
 * three serialized note commitment trees at the end of that block (the
 * legacy CommitmentTree encoding, hex; "000000" for an empty tree), also for
 * the height just before the first block (the state the chain started from).
 *
 * Test hooks: failNext(count, code) answers the next calls with a gRPC error
 * (default UNAVAILABLE), delayNext(count, ms) holds them back (deadline tests).
 */
import * as grpc from "@grpc/grpc-js";
import type { Logger } from "pino";
import { bytesToHex } from "../src/chains/zcash/bytes.js";
import type { CompactBlock, CompactTx, PoolType } from "../src/chains/zcash/compact.js";
import { compactTxStreamerService, IRONWOOD_PROTOCOL_VERSION, NU6_3_BRANCH_ID } from "../src/chains/zcash/lightwalletd.js";
import { compactBlock, compactTx, DEVNET_ZCASH_NU63_HEIGHT, DEVNET_ZCASH_UPGRADES, type DevnetZcashBlock, type DevnetZcashChain } from "./zcash-chain.js";

export interface DevnetLightwalletd {
  url: string;
  chain: DevnetZcashChain;
  /** The next `count` calls fail with `code` (default UNAVAILABLE). */
  failNext(count: number, code?: grpc.status): void;
  /** The next `count` calls wait `ms` before answering. */
  delayNext(count: number, ms: number): void;
  /** Calls served, by method. */
  requestCounts(): Record<string, number>;
  close(): Promise<void>;
}

export interface StartDevnetLightwalletdOptions {
  chain: DevnetZcashChain;
  host?: string;
  port?: number;
  /** LightdInfo.chainName (default "test"); tests set another to check the network guard. */
  chainName?: string;
  /** LightdInfo.lightwalletProtocolVersion (default IRONWOOD_PROTOCOL_VERSION). */
  protocolVersion?: string;
  log?: Logger;
}

const POOL_NAMES: Record<string, PoolType> = { TRANSPARENT: "transparent", SAPLING: "sapling", ORCHARD: "orchard", IRONWOOD: "ironwood" };
const FORK_HEIGHT = "18446744073709551615";

class CallError extends Error {
  constructor(
    readonly code: grpc.status,
    readonly details: string,
  ) {
    super(details);
  }
}

const wireTx = (t: CompactTx) => ({
  index: String(t.index),
  txid: Buffer.from(t.txid),
  fee: t.fee,
  spends: t.spends.map((s) => ({ nf: Buffer.from(s.nf) })),
  outputs: t.outputs.map((o) => ({ cmu: Buffer.from(o.cmu), ephemeralKey: Buffer.from(o.ephemeralKey), ciphertext: Buffer.from(o.ciphertext) })),
  actions: t.actions.map(wireAction),
  ironwoodActions: t.ironwoodActions.map(wireAction),
  vin: t.vin.map((i) => ({ prevoutTxid: Buffer.from(i.prevoutTxid), prevoutIndex: i.prevoutIndex })),
  vout: t.vout.map((o) => ({ value: o.value.toString(), scriptPubKey: Buffer.from(o.scriptPubKey) })),
});

function wireAction(a: CompactTx["actions"][number]) {
  return { nullifier: Buffer.from(a.nullifier), cmx: Buffer.from(a.cmx), ephemeralKey: Buffer.from(a.ephemeralKey), ciphertext: Buffer.from(a.ciphertext) };
}

const wireBlock = (b: CompactBlock) => ({
  height: String(b.height),
  hash: Buffer.from(b.hash),
  prevHash: Buffer.from(b.prevHash),
  time: b.time,
  header: Buffer.alloc(0),
  vtx: b.vtx.map(wireTx),
  chainMetadata: b.chainMetadata,
});

function poolsOf(raw: unknown): PoolType[] {
  const list = Array.isArray(raw) ? raw : [];
  return list.map((p) => {
    const pool = POOL_NAMES[String(p)];
    if (!pool) throw new CallError(grpc.status.INVALID_ARGUMENT, `invalid pool type ${String(p)}`);
    return pool;
  });
}

/** The simulator's state: the chain it serves, what it reports, its request counts and the tests' injected failures and delays. */
interface LightwalletdState {
  chain: DevnetZcashChain;
  chainName: string;
  protocolVersion: string;
  counts: Record<string, number>;
  failures: { count: number; code: grpc.status };
  delays: { count: number; ms: number };
  log: Logger | undefined;
}

type BlockId = { height?: unknown; hash?: unknown } | undefined;

export async function startDevnetLightwalletd(opts: StartDevnetLightwalletdOptions): Promise<DevnetLightwalletd> {
  const s: LightwalletdState = {
    chain: opts.chain,
    chainName: opts.chainName ?? "test",
    protocolVersion: opts.protocolVersion ?? IRONWOOD_PROTOCOL_VERSION,
    counts: {},
    failures: { count: 0, code: grpc.status.UNAVAILABLE },
    delays: { count: 0, ms: 0 },
    log: opts.log,
  };
  const server = new grpc.Server();
  server.addService(compactTxStreamerService(), lightwalletdService(s));
  const host = opts.host ?? "127.0.0.1";
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host.includes(":") ? `[${host}]` : host}:${opts.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  opts.log?.info({ url, chainName: s.chainName, protocolVersion: s.protocolVersion }, "devnet lightwalletd listening");
  let closed = false;

  return {
    url,
    chain: s.chain,
    failNext: (n, code = grpc.status.UNAVAILABLE) => {
      s.failures = { count: n, code };
    },
    delayNext: (n, ms) => {
      s.delays = { count: n, ms };
    },
    requestCounts: () => ({ ...s.counts }),
    close: async () => {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 2_000).unref();
      });
    },
  };
}

/** The CompactTxStreamer methods, each counted and open to injected failures and delays. */
function lightwalletdService(s: LightwalletdState): grpc.UntypedServiceImplementation {
  const { chain } = s;
  return {
    GetLatestBlock: unary(s, "GetLatestBlock", () => ({ height: String(chain.tip().height), hash: Buffer.from(chain.tip().hash, "hex").reverse() })),
    GetBlock: unary(s, "GetBlock", (req) => wireBlock(compactBlock(blockAt(chain, req), ["transparent", "sapling", "orchard", "ironwood"]))),
    GetBlockRange: streaming(s, "GetBlockRange", (req) => blockRange(chain, req)),
    GetTransaction: unary(s, "GetTransaction", (req) => getTransaction(chain, req)),
    SendTransaction: unary(s, "SendTransaction", (req) => sendTransaction(chain, req)),
    GetMempoolTx: streaming(s, "GetMempoolTx", (req) => mempoolTxs(chain, req)),
    GetTreeState: unary(s, "GetTreeState", (req) => treeState(s, req)),
    GetLatestTreeState: unary(s, "GetLatestTreeState", () => treeState(s, { height: chain.tip().height })),
    GetLightdInfo: unary(s, "GetLightdInfo", () => lightdInfo(s)),
  };
}

/** Counting, then an injected delay, then an injected failure. */
async function beforeCall(s: LightwalletdState, method: string): Promise<void> {
  s.counts[method] = (s.counts[method] ?? 0) + 1;
  if (s.delays.count > 0) {
    s.delays.count--;
    await new Promise((r) => setTimeout(r, s.delays.ms));
  }
  if (s.failures.count > 0) {
    s.failures.count--;
    throw new CallError(s.failures.code, "injected failure");
  }
}

/** A handler's error as a gRPC status: a CallError as it says, anything else INTERNAL (and logged). */
function grpcStatus(s: LightwalletdState, e: unknown): grpc.ServiceError {
  if (e instanceof CallError) return Object.assign(new Error(e.details), { code: e.code, details: e.details, metadata: new grpc.Metadata() });
  s.log?.error({ err: e }, "devnet lightwalletd call failed");
  return Object.assign(new Error("internal error"), { code: grpc.status.INTERNAL, details: "internal error", metadata: new grpc.Metadata() });
}

function unary(s: LightwalletdState, method: string, f: (req: any) => unknown): grpc.handleUnaryCall<any, any> {
  return (call, callback) => {
    beforeCall(s, method)
      .then(() => f(call.request))
      .then(
        (r) => callback(null, r),
        (e) => callback(grpcStatus(s, e)),
      );
  };
}

function streaming(s: LightwalletdState, method: string, f: (req: any) => unknown[]): grpc.handleServerStreamingCall<any, any> {
  return (call) => {
    beforeCall(s, method)
      .then(() => f(call.request))
      .then(
        (items) => {
          for (const item of items) call.write(item);
          call.end();
        },
        (e) => call.emit("error", grpcStatus(s, e)),
      );
  };
}

/** A block by its id: the hash (byte-reversed on the wire) when given, else the height. */
function blockAt(chain: DevnetZcashChain, id: BlockId): DevnetZcashBlock {
  const hash = id?.hash instanceof Uint8Array && id.hash.length > 0 ? bytesToHex(Uint8Array.from(id.hash).reverse()) : undefined;
  if (hash) {
    const b = chain.byHash(hash);
    if (!b) throw new CallError(grpc.status.NOT_FOUND, `block ${hash} is not in the best chain`);
    return b;
  }
  const h = Number(id?.height ?? 0);
  if (h > chain.tip().height) throw new CallError(grpc.status.OUT_OF_RANGE, `height ${h} is greater than the best chain tip ${chain.tip().height}`);
  const b = chain.byHeight(h);
  if (!b) throw new CallError(grpc.status.NOT_FOUND, `height ${h} is below the first block ${chain.blocks[0]!.height}`);
  return b;
}

/** GetBlockRange: inclusive, descending when start > end, filtered to the asked pools. */
function blockRange(chain: DevnetZcashChain, req: { poolTypes?: unknown; start?: BlockId; end?: BlockId }): unknown[] {
  const pools = poolsOf(req.poolTypes);
  const start = blockAt(chain, { height: req.start?.height }).height;
  const end = blockAt(chain, { height: req.end?.height }).height;
  const step = end >= start ? 1 : -1;
  const out: unknown[] = [];
  for (let h = start; h !== end + step; h += step) out.push(wireBlock(compactBlock(chain.byHeight(h)!, pools)));
  return out;
}

/** GetTransaction: height 0 in the mempool, 2^64−1 for a transaction a reorg left out. */
function getTransaction(chain: DevnetZcashChain, req: { hash?: unknown }) {
  const hash = req.hash instanceof Uint8Array ? req.hash : new Uint8Array(0);
  if (hash.length !== 32) throw new CallError(grpc.status.INVALID_ARGUMENT, "GetTransaction needs the 32-byte txid in hash");
  const found = chain.findTx(bytesToHex(Uint8Array.from(hash).reverse()));
  if (!found) throw new CallError(grpc.status.NOT_FOUND, "transaction not found");
  return { data: Buffer.from(found.tx.raw), height: found.block ? String(found.block.height) : found.orphaned ? FORK_HEIGHT : "0" };
}

/** SendTransaction into the mempool; a refusal is an error code in the answer, as lightwalletd relays zebrad's. */
function sendTransaction(chain: DevnetZcashChain, req: { data?: unknown }) {
  const data = req.data instanceof Uint8Array ? new Uint8Array(req.data) : new Uint8Array(0);
  try {
    return { errorCode: 0, errorMessage: chain.submit(data).txid };
  } catch (e) {
    const known = e instanceof Error && /already known/.test(e.message);
    return { errorCode: known ? -27 : -22, errorMessage: known ? "transaction already in the chain or the mempool" : `TX decode failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** GetMempoolTx: the mempool's transactions in the asked pools, less those whose txid ends in an excluded suffix. */
function mempoolTxs(chain: DevnetZcashChain, req: { poolTypes?: unknown; exclude_txid_suffixes?: unknown }): unknown[] {
  const pools = poolsOf(req.poolTypes);
  const exclude: Uint8Array[] = Array.isArray(req.exclude_txid_suffixes) ? req.exclude_txid_suffixes : [];
  return chain.mempool
    .map((t, i) => compactTx(t, i, pools))
    .filter((t): t is CompactTx => t !== null && !exclude.some((s) => s.length > 0 && Buffer.from(t.txid).subarray(32 - s.length).equals(Buffer.from(s))))
    .map(wireTx);
}

/** The tree states at the end of a block, or of the state before the first block. */
function treeState(s: LightwalletdState, id: BlockId) {
  const { chain } = s;
  const hash = id?.hash instanceof Uint8Array && id.hash.length > 0 ? bytesToHex(Uint8Array.from(id.hash).reverse()) : undefined;
  const before = chain.treeStateAt(chain.blocks[0]!.height - 1)!;
  const state = hash === before.hash || (!hash && Number(id?.height ?? 0) === before.height) ? before : chain.treeStateAt(blockAt(chain, id).height)!;
  return {
    network: s.chainName,
    height: String(state.height),
    hash: state.hash,
    time: state.time,
    saplingTree: state.trees.sapling.toHex(),
    orchardTree: state.trees.orchard.toHex(),
    ironwoodTree: state.trees.ironwood.toHex(),
  };
}

/** GetLightdInfo: the tip, the next block's consensus branch and upgrade, the protocol version. */
function lightdInfo(s: LightwalletdState) {
  const tip = s.chain.tip();
  const next = tip.height + 1;
  const upgrade = [...DEVNET_ZCASH_UPGRADES].reverse().find(([, , at]) => at <= next)!;
  return {
    version: "v0.4.18",
    vendor: "Vigil devnet",
    taddrSupport: true,
    chainName: s.chainName,
    saplingActivationHeight: "280000",
    consensusBranchId: next >= DEVNET_ZCASH_NU63_HEIGHT ? NU6_3_BRANCH_ID : upgrade[0],
    blockHeight: String(tip.height),
    gitCommit: "",
    branch: "devnet",
    buildDate: "",
    buildUser: "",
    estimatedHeight: String(tip.height),
    zcashdBuild: "v6.0.0",
    zcashdSubversion: "/Zebra:6.0.0/",
    donationAddress: "",
    upgradeName: upgrade[1],
    upgradeHeight: String(upgrade[2]),
    lightwalletProtocolVersion: s.protocolVersion,
  };
}
