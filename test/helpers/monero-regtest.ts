/**
 * Real Monero nodes for the real-node suites (test/real/monero-*.test.ts):
 * Debian's `monerod --regtest --offline --fixed-difficulty 1` and
 * `monero-wallet-rpc` as child processes on loopback ports the OS handed out,
 * data under os.tmpdir(), and Vigil (the real app on a test database, a
 * ManualClock, a webhook receiver, workers ticked by hand) pointed at them.
 *
 * The test's own view of the chain goes through a client of its own (below),
 * not through Vigil's daemon client: the figures Vigil is compared with are
 * read from the node and the wallet as they send them. Only the digest
 * arithmetic (src/core/upstream-auth.ts) is shared; a wrong digest would be a
 * 401 for both, never a false agreement.
 *
 * Facts from research/real-nodes.md: regtest addresses are mainnet-format;
 * the chain is wiped at start unless --keep-fakechain; `generateblocks` mines
 * at once; coinbase unlocks after 60 blocks; `/pop_blocks` returns the popped
 * blocks' transactions to the pool. Every child is tracked and killed by
 * `killAllNodes()` (afterAll) and, as a last resort, when the process exits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { Agent, request } from "undici";
import { z } from "zod";
import { loginAuth, type UpstreamAuth, type UpstreamCredentials } from "../../src/core/upstream-auth.js";
import { ManualClock } from "../../src/core/clock.js";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { createWatch, type CreateWatchInput } from "../../src/watch/service.js";
import { startWorkers, type Workers } from "../../src/workers.js";
import type { TickStats } from "../../src/watch/tick.js";
import { createApp } from "../../src/app.js";
import { silentLog, startTestApp, type TestApp } from "./app.js";
import { startReceiver, type Receiver } from "./receiver.js";
import { MONERO_WALLET_RPC, MONEROD } from "./real-nodes.js";
import { freePort } from "./ports.js";

// ---------------------------------------------------------------- processes

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

function nodeDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export { freePort };

interface Spawned {
  proc: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function spawnNode(bin: string, args: string[]): Spawned {
  const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.add(proc);
  let out = "";
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-8000);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) =>
    proc.once("exit", (code) => {
      children.delete(proc);
      resolve(code);
    }),
  );
  return { proc, output: () => out, exited };
}

/** Polls `ready` until it resolves, failing at once when the child exits and after `timeoutMs`. */
async function untilReady(child: Spawned, what: string, ready: () => Promise<unknown>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void child.exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`${what} exited during start-up:\n${child.output()}`);
    try {
      await ready();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${what} not ready in ${timeoutMs} ms (${(e as Error).message}):\n${child.output()}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }
}

/** SIGTERM (monerod saves its chain on it), SIGKILL if it lingers. */
async function stopChild(child: Spawned, graceMs = 20_000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill("SIGTERM");
  const timer = setTimeout(() => child.proc.kill("SIGKILL"), graceMs);
  await child.exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- RPC client of the test's own

/**
 * u64 figures (balances reach 2^53 on regtest) arrive as JSON numbers: every
 * integer literal of 16 digits or more is turned into a string before
 * JSON.parse, so `atomic` below reads it exactly.
 */
function parseExact(text: string): unknown {
  return JSON.parse(text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}

/** A piconero figure from the node or the wallet, exact. */
export const atomic = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform((v) => BigInt(v));

export class RpcError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * JSON-RPC 2.0 at /json_rpc and the plain JSON endpoints, with monerod's
 * digest login when given. One kept-alive connection: monerod keeps a digest
 * session per TCP connection.
 */
export class NodeRpc {
  private readonly auth: UpstreamAuth | undefined;
  private readonly agent = new Agent({ connections: 1, keepAliveTimeout: 10_000 });

  constructor(
    readonly base: string,
    login?: UpstreamCredentials,
  ) {
    this.auth = login ? loginAuth(login, new URL(base)) : undefined;
  }

  private async post(urlPath: string, body: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const auth = this.auth?.header("POST", urlPath);
      const r = await request(`${this.base}${urlPath}`, {
        method: "POST",
        dispatcher: this.agent,
        headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify(body),
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
      const text = await r.body.text();
      if (r.statusCode === 401 && attempt === 0 && this.auth?.challenge(r.headers["www-authenticate"])) continue;
      if (r.statusCode !== 200) throw new RpcError(`${urlPath}: HTTP ${r.statusCode} ${text.slice(0, 200)}`, r.statusCode);
      return parseExact(text);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  async rpc<T extends z.ZodType>(method: string, params: Record<string, unknown>, schema: T): Promise<z.infer<T>> {
    const reply = z
      .object({ result: z.unknown().optional(), error: z.object({ code: z.number(), message: z.string() }).optional() })
      .parse(await this.post("/json_rpc", { jsonrpc: "2.0", id: "0", method, params }));
    if (reply.error) throw new RpcError(`${method}: ${reply.error.message} (${reply.error.code})`, 200);
    return schema.parse(reply.result);
  }

  async other<T extends z.ZodType>(urlPath: string, body: Record<string, unknown>, schema: T): Promise<z.infer<T>> {
    const reply = await this.post(urlPath, body);
    const status = z.object({ status: z.string() }).parse(reply).status;
    if (status !== "OK") throw new RpcError(`${urlPath}: status ${status} ${JSON.stringify(reply).slice(0, 400)}`, 200);
    return schema.parse(reply);
  }
}

// ---------------------------------------------------------------- monerod

const nothing = z.unknown();

export const infoSchema = z.object({
  height: z.number().int(),
  target_height: z.number().int(),
  top_block_hash: z.string(),
  nettype: z.string(),
  restricted: z.boolean(),
  synchronized: z.boolean(),
  busy_syncing: z.boolean(),
  tx_pool_size: z.number().int(),
});

export const headerSchema = z.object({
  height: z.number().int(),
  hash: z.string(),
  timestamp: z.number().int(),
  difficulty: z.number().int(),
  block_size: z.number().int(),
  block_weight: z.number().int(),
  num_txes: z.number().int(),
  reward: atomic,
});

export interface MonerodOptions {
  /** `--rpc-login user:pass` (HTTP digest on every RPC port). */
  login?: UpstreamCredentials;
  /** A second, restricted RPC port (`--rpc-restricted-bind-port`): Vigil's door. */
  restrictedPort?: boolean;
}

/** One regtest monerod: the test mines and reorgs through `rpc` (the unrestricted port). */
export class RegtestDaemon {
  private child: Spawned | undefined;
  readonly rpc: NodeRpc;

  private constructor(
    readonly dataDir: string,
    readonly rpcPort: number,
    readonly p2pPort: number,
    readonly restrictedPort: number | undefined,
    readonly login: UpstreamCredentials | undefined,
  ) {
    this.rpc = new NodeRpc(`http://127.0.0.1:${rpcPort}`, login);
  }

  static async start(opts: MonerodOptions = {}): Promise<RegtestDaemon> {
    const dataDir = nodeDir("vigil-monerod-");
    const d = new RegtestDaemon(dataDir, await freePort(), await freePort(), opts.restrictedPort ? await freePort() : undefined, opts.login);
    await d.launch({ keep: false });
    return d;
  }

  /** The URL Vigil is given: the restricted port when there is one, with the login in it when there is one. */
  get vigilUrl(): string {
    const port = this.restrictedPort ?? this.rpcPort;
    const cred = this.login ? `${encodeURIComponent(this.login.user)}:${encodeURIComponent(this.login.pass)}@` : "";
    return `http://${cred}127.0.0.1:${port}`;
  }

  /** The address a wallet-rpc is given (`--daemon-address`). */
  get address(): string {
    return `127.0.0.1:${this.rpcPort}`;
  }

  private async launch(o: { keep: boolean; restrictedRpc?: boolean }): Promise<void> {
    const args = [
      "--regtest",
      "--offline",
      "--fixed-difficulty",
      "1",
      "--data-dir",
      this.dataDir,
      "--rpc-bind-ip",
      "127.0.0.1",
      "--rpc-bind-port",
      String(this.rpcPort),
      "--p2p-bind-ip",
      "127.0.0.1",
      "--p2p-bind-port",
      String(this.p2pPort),
      "--no-zmq",
      "--non-interactive",
      "--disable-rpc-ban",
      "--rpc-ssl",
      "disabled",
      "--log-level",
      "0",
    ];
    if (o.keep) args.push("--keep-fakechain");
    if (o.restrictedRpc) args.push("--restricted-rpc");
    if (this.restrictedPort !== undefined) args.push("--rpc-restricted-bind-port", String(this.restrictedPort));
    if (this.login) args.push("--rpc-login", `${this.login.user}:${this.login.pass}`);
    const child = spawnNode(MONEROD!, args);
    this.child = child;
    await untilReady(child, "monerod", () => this.info());
  }

  /** Stops the daemon (SIGTERM: it saves its chain) and waits for it to exit. */
  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child);
    this.child = undefined;
  }

  /** Starts it again on the same data dir and ports, chain kept (`--keep-fakechain`). */
  async restart(o: { restrictedRpc?: boolean } = {}): Promise<void> {
    await this.stop();
    await this.launch({ keep: true, ...o });
  }

  info() {
    return this.rpc.rpc("get_info", {}, infoSchema);
  }

  /** Height of the newest block (block count − 1). */
  async tip(): Promise<number> {
    return (await this.info()).height - 1;
  }

  async mine(blocks: number, to: string): Promise<number> {
    const r = await this.rpc.rpc("generateblocks", { amount_of_blocks: blocks, wallet_address: to }, z.object({ height: z.number().int() }));
    return r.height;
  }

  async popBlocks(n: number): Promise<number> {
    return (await this.rpc.other("/pop_blocks", { nblocks: n }, z.object({ height: z.number().int() }))).height;
  }

  async poolHashes(): Promise<string[]> {
    return (await this.rpc.other("/get_transaction_pool_hashes", {}, z.object({ tx_hashes: z.array(z.string()).default([]) }))).tx_hashes;
  }

  /** Each transaction's serialized blob (`as_hex`) and where it is: a height, or the pool. */
  async transactions(txids: string[]): Promise<{ txid: string; hex: string; inPool: boolean; height: number | undefined }[]> {
    const r = await this.rpc.other(
      "/get_transactions",
      { txs_hashes: txids, decode_as_json: false },
      z.object({
        txs: z
          .array(z.object({ tx_hash: z.string(), as_hex: z.string(), in_pool: z.boolean(), block_height: z.number().int().optional() }))
          .default([]),
      }),
    );
    return r.txs.map((t) => ({ txid: t.tx_hash, hex: t.as_hex, inPool: t.in_pool, height: t.in_pool ? undefined : t.block_height }));
  }

  /** Drops transactions from the pool (`flush_txpool`). */
  async flushPool(txids: string[]): Promise<void> {
    await this.rpc.rpc("flush_txpool", { txids }, nothing);
  }

  /** Submits serialized transactions (`/send_raw_transaction`), as a wallet re-broadcasting them would. */
  async submit(hexes: string[]): Promise<void> {
    for (const tx_as_hex of hexes) await this.rpc.other("/send_raw_transaction", { tx_as_hex, do_not_relay: false }, nothing);
  }

  /** A block's serialized blob and its coinbase transaction's hash. */
  async block(height: number): Promise<{ hex: string; minerTxid: string }> {
    const r = await this.rpc.rpc("get_block", { height }, z.object({ blob: z.string(), miner_tx_hash: z.string() }));
    return { hex: r.blob, minerTxid: r.miner_tx_hash };
  }

  /**
   * Mines one block at a time until none of `txids` is in the pool, then
   * `extra` more. A block after a pop may leave a just-relayed transaction
   * out. (A transaction a `/pop_blocks` put back may never be mined: ring
   * members that had just passed their unlock height are locked again on the
   * shorter chain, and the pool remembers the failure while the block it
   * failed on stays; such a test flushes, regrows the chain and submits.)
   */
  async mineIn(txids: string[], to: string, extra = 0, maxBlocks = 25): Promise<void> {
    for (let i = 0; i < maxBlocks; i++) {
      await this.mine(1, to);
      if ((await this.transactions(txids)).every((t) => !t.inPool)) {
        if (extra > 0) await this.mine(extra, to);
        return;
      }
    }
    throw new Error(`transactions still in the pool after ${maxBlocks} blocks: ${txids.join(", ")}`);
  }
}

// ---------------------------------------------------------------- wallets

export interface SubaddressIndex {
  major: number;
  minor: number;
}

/** One received output as the wallet lists it (`incoming_transfers`, or a pool entry of `get_transfers`). */
export interface WalletOutput {
  txid: string;
  amount: bigint;
  subaddress: SubaddressIndex;
  /** The one-time public key (confirmed outputs only). */
  publicKey: string | undefined;
  inPool: boolean;
}

/** What the wallet says a watch should see: confirmed+unlocked (`unlocked_balance`), the rest, and each output. */
export interface WalletFigures {
  /** get_balance's unlocked_balance: at least 10 blocks deep and unlocked. */
  unlocked: bigint;
  /** get_balance's balance: mined (locked or not) and incoming pool payments (wallet2's non-strict balance). */
  balance: bigint;
  /** Incoming pool transactions (get_transfers pool). */
  pool: bigint;
  outputs: WalletOutput[];
}

const subIndex = z.object({ major: z.number().int(), minor: z.number().int() });
const transferEntry = z.object({
  txid: z.string(),
  amount: atomic,
  type: z.string(),
  subaddr_index: subIndex,
  height: z.number().int(),
  double_spend_seen: z.boolean().optional(),
});
const transfersSchema = z.object({
  in: z.array(transferEntry).default([]),
  pool: z.array(transferEntry).default([]),
  pending: z.array(transferEntry).default([]),
  out: z.array(transferEntry).default([]),
});
const balanceSchema = z.object({
  balance: atomic,
  unlocked_balance: atomic,
  per_subaddress: z
    .array(z.object({ account_index: z.number().int(), address_index: z.number().int(), balance: atomic, unlocked_balance: atomic }))
    .default([]),
});

/** One monero-wallet-rpc process serving one wallet, made at start. */
export class RegtestWallet {
  readonly rpc: NodeRpc;

  private constructor(
    private readonly child: Spawned,
    port: number,
    readonly name: string,
    readonly address: string,
    readonly viewKey: string,
  ) {
    this.rpc = new NodeRpc(`http://127.0.0.1:${port}`);
  }

  static async create(daemon: RegtestDaemon, name: string): Promise<RegtestWallet> {
    const dir = nodeDir(`vigil-wallet-${name}-`);
    const port = await freePort();
    const args = [
      "--daemon-address",
      daemon.address,
      "--rpc-bind-ip",
      "127.0.0.1",
      "--rpc-bind-port",
      String(port),
      "--disable-rpc-login",
      "--wallet-dir",
      dir,
      "--trusted-daemon",
      "--non-interactive",
      // No TLS on loopback: each certificate the wallet would make costs seconds of RSA key generation.
      "--rpc-ssl",
      "disabled",
      "--daemon-ssl",
      "disabled",
      // Its own ring database and log, not the shared ones under $HOME and next to the binary.
      "--shared-ringdb-dir",
      path.join(dir, "ringdb"),
      "--log-file",
      path.join(dir, "wallet-rpc.log"),
      "--log-level",
      "0",
    ];
    if (daemon.login) args.push("--daemon-login", `${daemon.login.user}:${daemon.login.pass}`);
    const child = spawnNode(MONERO_WALLET_RPC!, args);
    const rpc = new NodeRpc(`http://127.0.0.1:${port}`);
    await untilReady(child, "monero-wallet-rpc", () => rpc.rpc("get_version", {}, nothing));
    await rpc.rpc("create_wallet", { filename: name, language: "English" }, nothing);
    const address = (await rpc.rpc("get_address", { account_index: 0 }, z.object({ address: z.string() }))).address;
    const viewKey = (await rpc.rpc("query_key", { key_type: "view_key" }, z.object({ key: z.string() }))).key;
    return new RegtestWallet(child, port, name, address, viewKey);
  }

  async close(): Promise<void> {
    await stopChild(this.child, 5_000);
  }

  /** Pulls new blocks and the pool; a daemon just restarted may refuse the first try (-38, no connection). */
  async refresh(): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        await this.rpc.rpc("refresh", {}, nothing);
        return;
      } catch (e) {
        if (i >= 10 || !(e instanceof RpcError) || !/no connection to daemon/.test(e.message)) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /**
   * Forgets what the wallet scanned and scans the daemon's chain again. After
   * a `/pop_blocks` the wallet keeps the popped blocks until a block of
   * another hash comes at that height (wallet2 detects reorgs only by a hash
   * mismatch), so this is how it learns of a pop that nothing has replaced.
   */
  async rescan(): Promise<void> {
    await this.rpc.rpc("rescan_blockchain", {}, nothing);
  }

  /** A new subaddress in `account` (made with `create_account` first for a new account). */
  async newSubaddress(account: number): Promise<{ address: string; index: SubaddressIndex }> {
    const r = await this.rpc.rpc("create_address", { account_index: account }, z.object({ address: z.string(), address_index: z.number().int() }));
    return { address: r.address, index: { major: account, minor: r.address_index } };
  }

  /** A new account; its base address is {major: n, minor: 0}. */
  async newAccount(): Promise<{ address: string; index: SubaddressIndex }> {
    const r = await this.rpc.rpc("create_account", {}, z.object({ address: z.string(), account_index: z.number().int() }));
    return { address: r.address, index: { major: r.account_index, minor: 0 } };
  }

  /** One transaction to every destination; relayed to the daemon's pool. */
  async transfer(destinations: { address: string; amount: bigint }[], opts: { account?: number } = {}): Promise<{ txid: string; fee: bigint }> {
    const r = await this.rpc.rpc(
      "transfer",
      {
        destinations: destinations.map((d) => {
          if (d.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("amount beyond 2^53: not sent as a JSON number");
          return { address: d.address, amount: Number(d.amount) };
        }),
        account_index: opts.account ?? 0,
        priority: 0,
      },
      z.object({ tx_hash: z.string(), fee: atomic }),
    );
    return { txid: r.tx_hash, fee: r.fee };
  }

  /** `sweep_all` of one account to `address`. */
  async sweepAll(address: string, account: number): Promise<string[]> {
    const r = await this.rpc.rpc("sweep_all", { address, account_index: account }, z.object({ tx_hash_list: z.array(z.string()) }));
    return r.tx_hash_list;
  }

  async accountCount(): Promise<number> {
    return (await this.rpc.rpc("get_accounts", {}, z.object({ subaddress_accounts: z.array(z.unknown()) }))).subaddress_accounts.length;
  }

  async transfers(): Promise<z.infer<typeof transfersSchema>> {
    return this.rpc.rpc("get_transfers", { in: true, out: true, pending: true, pool: true, all_accounts: true }, transfersSchema);
  }

  /**
   * What the wallet itself says it received, after a refresh: the whole
   * wallet (every account), or one subaddress.
   */
  async figures(only?: SubaddressIndex): Promise<WalletFigures> {
    await this.refresh();
    const accounts = only ? [only.major] : [...Array(await this.accountCount()).keys()];
    let unlocked = 0n;
    let balance = 0n;
    const outputs: WalletOutput[] = [];
    for (const account of accounts) {
      const b = await this.rpc.rpc("get_balance", { account_index: account, ...(only ? { address_indices: [only.minor] } : {}) }, balanceSchema);
      if (only) {
        const sub = b.per_subaddress.find((p) => p.address_index === only.minor);
        unlocked += sub?.unlocked_balance ?? 0n;
        balance += sub?.balance ?? 0n;
      } else {
        unlocked += b.unlocked_balance;
        balance += b.balance;
      }
      const inc = await this.rpc.rpc(
        "incoming_transfers",
        { transfer_type: "all", account_index: account, ...(only ? { subaddr_indices: [only.minor] } : {}) },
        z.object({
          transfers: z.array(z.object({ tx_hash: z.string(), amount: atomic, subaddr_index: subIndex, pubkey: z.string() })).default([]),
        }),
      );
      for (const t of inc.transfers) outputs.push({ txid: t.tx_hash, amount: t.amount, subaddress: t.subaddr_index, publicKey: t.pubkey, inPool: false });
    }
    let pool = 0n;
    for (const p of (await this.transfers()).pool) {
      if (only && (p.subaddr_index.major !== only.major || p.subaddr_index.minor !== only.minor)) continue;
      pool += p.amount;
      outputs.push({ txid: p.txid, amount: p.amount, subaddress: p.subaddr_index, publicKey: undefined, inPool: true });
    }
    return { unlocked, balance, pool, outputs };
  }
}

// ---------------------------------------------------------------- Vigil on the regtest node

/** The snapshot a watch's webhooks carry (`current` / `previous`) and its status shows. */
export const snapshotSchema = z.object({
  balanceAtomic: z.string().transform((v) => BigInt(v)),
  pendingAtomic: z.string().transform((v) => BigInt(v)),
  receivedAtomic: z.string().transform((v) => BigInt(v)),
  scannedHeight: z.number().int(),
  outputCount: z.number().int(),
  outputs: z.array(
    z.object({
      txid: z.string(),
      index: z.string(),
      amountAtomic: z.string().transform((v) => BigInt(v)),
      height: z.number().int().nullable(),
      status: z.string(),
      subaddress: subIndex.nullish(),
    }),
  ),
});
export type WatchSnapshot = z.infer<typeof snapshotSchema>;

/** Past WATCH_POLL_SECONDS (60) and its 10 % jitter. */
const NEXT_TICK_MS = 70_000;

export interface RegtestVigil {
  t: TestApp;
  clock: ManualClock;
  receiver: Receiver;
  /** A watch made through the watch service (its opening credit as if paid), webhooks to `hookPath`. */
  openWatch(address: string, viewKey: string, hookPath: string, opts?: Partial<Pick<CreateWatchInput, "birthdayHeight" | "subaddressLookahead" | "invoiceAccount">>): ReturnType<typeof createWatch>;
  /** Moves the clock past the poll interval, then runs one tick of the workers (deliveries awaited). */
  nextTick(): Promise<TickStats>;
  /** The watch's snapshot as the status route shows it. */
  snapshot(watchId: string, watchToken: string): Promise<WatchSnapshot>;
  /** `current` of every balance_change delivered for the watch, in order. */
  balanceChanges(watchId: string): WatchSnapshot[];
  /** Closes the app (not the database): a stopped service. */
  stopApp(): Promise<void>;
  /** A new app on the same database: a restarted service. */
  startApp(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real app on a test database, pointed at a real daemon: MONERO_NETWORK
 * given explicitly (regtest addresses are mainnet-format), the devnet off.
 * Confirmations default to 10, monero-wallet-rpc's own spendable age, so
 * `balanceAtomic` is comparable with the wallet's `unlocked_balance`.
 */
export async function startRegtestVigil(daemonUrl: string, env: Record<string, string> = {}): Promise<RegtestVigil> {
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  const receiver = await startReceiver({ https: false });
  const t = await startTestApp(
    {
      MONERO_DAEMON_URL: daemonUrl,
      MONERO_NETWORK: "mainnet",
      MONERO_CONFIRMATIONS: "10",
      MONERO_SCAN_THREADS: "0",
      WATCH_POLL_SECONDS: "60",
      WEBHOOK_ALLOW_PRIVATE: "1",
      WEBHOOK_ALLOW_HTTP: "1",
      MASTER_KEY: randomBytes(32).toString("hex"),
      ...env,
    },
    { clock },
  );
  let workers: Workers | undefined = startWorkers(t.app, { autostart: false });
  let appOpen = true;

  const v: RegtestVigil = {
    t,
    clock,
    receiver,
    openWatch: async (address, viewKey, hookPath, o = {}) => {
      const created = await createWatch({
        ctx: { deps: t.app.watch, db: t.db.db },
        input: { chain: "monero", address, viewKey, webhookUrl: receiver.hookUrl(hookPath), ...o },
        opening: { creditAtomic: CREATE_CREDIT, funding: "usdc" },
      });
      receiver.registerSecret(created.watchId, created.webhookSecret);
      return created;
    },
    nextTick: () => {
      clock.advance(NEXT_TICK_MS);
      if (!workers) throw new Error("the app is stopped");
      return workers.tickOnce();
    },
    snapshot: async (watchId, watchToken) => {
      const r = await fetch(`${t.url}/v1/private/watch/${watchId}`, { headers: { "x-watch-token": watchToken } });
      const body = z.object({ lastSnapshot: z.unknown() }).parse(await r.json());
      return snapshotSchema.parse(body.lastSnapshot);
    },
    balanceChanges: (watchId) =>
      receiver.deliveries(watchId, "balance_change").map((d) => snapshotSchema.parse((d.body as { current: unknown }).current)),
    stopApp: async () => {
      await workers?.stop();
      workers = undefined;
      await t.app.close();
      appOpen = false;
    },
    startApp: async () => {
      t.app = await createApp(t.app.config, { database: t.db, clock, log: silentLog });
      t.url = await t.app.listen();
      appOpen = true;
      workers = startWorkers(t.app, { autostart: false });
    },
    close: async () => {
      await workers?.stop();
      // Not t.close(): it closes the app it started, which a restart has replaced.
      if (appOpen) await t.app.close();
      await t.db.close();
      fs.rmSync(t.app.config.dataDir, { recursive: true, force: true });
      await receiver.close();
    },
  };
  return v;
}

/** Kills every monerod and wallet-rpc this process started (afterAll; also on failure). */
export async function killAllNodes(): Promise<void> {
  const all = [...children];
  for (const c of all) c.kill("SIGKILL");
  await Promise.all(all.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once("exit", r)))));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

/** A random amount between `min` and `min + spread` piconero: the suite writes no amount it later expects. */
export function someAmount(min: bigint, spread: bigint): bigint {
  return min + (BigInt(`0x${randomBytes(8).toString("hex")}`) % spread);
}

/** An output as both sides can name it: txid, amount, subaddress (when the watch knows it), pool or mined. */
const outputKey = (o: { txid: string; amount: bigint; subaddress: SubaddressIndex | undefined; inPool: boolean }) =>
  `${o.txid}:${o.amount}:${o.subaddress ? `${o.subaddress.major}/${o.subaddress.minor}` : "-"}:${o.inPool ? "pool" : "mined"}`;

/**
 * Vigil's snapshot against the wallet's own figures, to the piconero:
 * balance = unlocked_balance, received = balance (pool included), and the
 * same outputs (a subaddress watch cannot name the index, so it is left out
 * there). For wallets that only receive (a view key cannot see spends).
 */
export function expectAgrees(snap: WatchSnapshot, w: WalletFigures, opts: { subaddresses: boolean }): void {
  expect(snap.balanceAtomic, "balanceAtomic = wallet unlocked_balance").toBe(w.unlocked);
  expect(snap.receivedAtomic, "receivedAtomic = wallet balance (RPC get_balance counts incoming pool payments)").toBe(w.balance);
  expect(snap.pendingAtomic, "pendingAtomic = the rest").toBe(w.balance - w.unlocked);
  expect(snap.outputCount).toBe(w.outputs.length);
  const vigil = snap.outputs.map((o) =>
    outputKey({ txid: o.txid, amount: o.amountAtomic, subaddress: opts.subaddresses ? (o.subaddress ?? undefined) : undefined, inPool: o.height === null }),
  );
  const wallet = w.outputs.map((o) => outputKey({ ...o, subaddress: opts.subaddresses ? o.subaddress : undefined }));
  expect(vigil.sort()).toEqual(wallet.sort());
}
