/**
 * npm run bench:channel-gas — the gas a paid call costs the service on chain, `exact` against
 * x402 `batch-settlement` payment channels, measured from receipts on a real EVM: anvil as Base
 * Sepolia with Circle's USDC and x402's escrow and ERC-3009 collector at their canonical addresses
 * (test/helpers/anvil-batch-app.ts, the setup of the real-contract suite). The service runs in this
 * process with its local facilitator (it pays every transaction's gas); payers are the official
 * clients (@x402/fetch with @x402/evm's exact and batch schemes) over real HTTP.
 *
 *   baseline  exact: one transferWithAuthorization per paid call
 *   channels  for K channels (one payer each) of N calls: K deposits (the first call of each), the
 *             calls as vouchers, then the app's keeper: one claim batch over the K channels, one
 *             settle to PAY_TO, and K cooperative refunds once the channels are idle (the app's clock
 *             moves past BATCH_REFUND_IDLE_SECONDS). Per channel: its deposit + its refund + a K-th of
 *             the claim and of the settle; per call: that over N.
 *
 * Each payer deposits what its N calls need and a tenth more in one deposit (the official client's
 * depositStrategy), never less than the route's minDeposit, so every channel ends with a refund. No
 * row pays the one-time cost of a storage slot written for the first time: a warm-up round makes the
 * receiver's first claim, the exact baseline leaves out PAY_TO's first USDC, and the escrow holds
 * USDC apart from the channels measured (on a live chain, other channels' money).
 *
 * USD: gas × GAS_PRICE_GWEI × ETH_USD; Base's L1 data fee (per transaction, by its size) is not in
 * the receipts' gasUsed and not counted. Environment: CALLS (10,100,1000), CHANNELS (1,20),
 * EXACT_CALLS (20), GAS_PRICE_GWEI (0.005), ETH_USD (3000), WORKERS (1: threads the payers run in),
 * DATABASE_URL (else in-memory PGlite).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { Worker } from "node:worker_threads";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadConfig } from "../src/config.js";
import { createApp, type App } from "../src/app.js";
import { keepChannelsOnce, type KeeperClock } from "../src/x402/channel-keeper.js";
import { minDepositFor } from "../src/x402/channel-terms.js";
import { ORACLE_PRICE_ATOMIC } from "../src/oracle/registry.js";
import type { DatabaseHandle } from "../src/db/connection.js";
import { REFUND_IDLE_SECONDS, batchAppEnv, channelTestRoutes, officialExactPayer, startBatchChain, type BatchChain } from "../test/helpers/anvil-batch-app.js";
import { machineLine, openBenchDatabase, withBenchDatabase } from "./support.js";
import { paidCall, type PayersJob } from "./channel-gas-payers.js";

const list = (v: string | undefined, d: number[]) => (v ? v.split(",").map(Number) : d);
const CALLS = list(process.env.CALLS, [10, 100, 1000]);
const CHANNELS = list(process.env.CHANNELS, [1, 20]);
const EXACT_CALLS = Number(process.env.EXACT_CALLS ?? 20);
/** Worker threads the channels' payers run in (the service has the main thread). */
const WORKERS = Number(process.env.WORKERS ?? 1);
const GAS_PRICE_GWEI = Number(process.env.GAS_PRICE_GWEI ?? 0.005);
const ETH_USD = Number(process.env.ETH_USD ?? 3000);
/** The Penny Oracle's price, USD 0.001. */
const PRICE = ORACLE_PRICE_ATOMIC;
/** How far the app's clock moves to make a round's channels idle. */
const IDLE_MS = (REFUND_IDLE_SECONDS + 1) * 1000;

/** The app's clock, moved forward to make channels idle (the chain keeps its own). */
const offset = { ms: 0 };
const clock = { now: () => Date.now() + offset.ms };

interface Bench {
  chain: BatchChain;
  app: App;
  url: string;
  times: KeeperClock;
}

interface Round {
  channels: number;
  calls: number;
  deposits: Mined[];
  claimTxs: Mined[];
  settleTxs: Mined[];
  refunds: Mined[];
  seconds: number;
}

const log = (s = "") => process.stdout.write(`${s}\n`);
const usd = (gas: number) => gas * GAS_PRICE_GWEI * 1e-9 * ETH_USD;
/** A mined transaction: its gas, and its calldata's bytes (Base's L1 data fee grows with a transaction's size). */
interface Mined {
  gas: number;
  calldata: number;
}
const sum = (xs: Mined[], of: keyof Mined = "gas") => xs.reduce((a, m) => a + m[of], 0);
const mean = (xs: Mined[], of: keyof Mined = "gas") => (xs.length ? sum(xs, of) / xs.length : 0);
const int = (x: number) => Math.round(x).toLocaleString("en-US");

/** Every transaction mined after block `from`, in order (anvil mines each at once), from its receipt. */
async function minedSince(b: Bench, from: bigint): Promise<Mined[]> {
  const client = b.chain.node.client;
  const head = await client.getBlockNumber();
  const out: Mined[] = [];
  for (let n = from + 1n; n <= head; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) {
      const receipt = await client.getTransactionReceipt({ hash: tx.hash });
      if (receipt.status !== "success") throw new Error(`transaction ${tx.hash} reverted`);
      out.push({ gas: Number(receipt.gasUsed), calldata: (tx.input.length - 2) / 2 });
    }
  }
  return out;
}

/** Runs the app's keeper until `done` says its part is over; the gas of the transactions it sent. */
async function keeperGas(b: Bench, due: Partial<KeeperClock>, done: (r: Awaited<ReturnType<typeof keepChannelsOnce>>) => boolean): Promise<Mined[]> {
  const from = await b.chain.node.client.getBlockNumber();
  for (let run = 0; run < 10; run++) {
    Object.assign(b.times, { lastClaimMs: clock.now(), lastSettleMs: clock.now() }, due);
    if (done(await keepChannelsOnce(b.app.payments.keeper!, b.times))) return minedSince(b, from);
  }
  throw new Error("the keeper did not finish its part in 10 runs");
}

/** The payers' worker: TypeScript, loaded through tsx's loader registered in that thread (a worker does not inherit it). */
const PAYERS_WORKER = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL("./channel-gas-payers.ts", import.meta.url).href)}); })`;

/** Runs payers in worker threads (channel-gas-payers.ts), their keys split between WORKERS threads. */
async function inWorkers(job: PayersJob): Promise<void> {
  const shares = Array.from({ length: Math.min(WORKERS, job.keys.length) }, (_, w) => job.keys.filter((_, k) => k % WORKERS === w));
  await Promise.all(
    shares.map(
      (keys) =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(PAYERS_WORKER, { eval: true, workerData: { ...job, keys } });
          worker.once("message", (m: { ok: boolean; error?: string }) => void worker.terminate().then(() => (m.ok ? resolve() : reject(new Error(m.error)))));
          worker.once("error", reject);
        }),
    ),
  );
}

/** The baseline: `calls` exact payments, each one transaction. */
async function exactRound(b: Bench, calls: number): Promise<Mined[]> {
  const key = generatePrivateKey();
  const payer = officialExactPayer(key);
  await b.chain.usdc.mint(payer.account.address, PRICE * BigInt(calls) * 2n);
  const from = await b.chain.node.client.getBlockNumber();
  for (let i = 0; i < calls; i++) if (!(await paidCall(payer.pay, `${b.url}/v1/test/fact?q=exact-${i}`))) throw new Error("an exact payment with no transaction");
  const gas = await minedSince(b, from);
  if (gas.length !== calls) throw new Error(`${calls} exact payments mined ${gas.length} transactions`);
  return gas;
}

/** K channels of N calls each, from deposit to refund. */
async function channelRound(b: Bench, channels: number, calls: number): Promise<Round> {
  const started = Date.now();
  const need = PRICE * BigInt(calls);
  // What the calls need and a tenth more (a payer cannot know its last call in advance): every channel ends with a refund.
  const deposit = need + need / 10n > minDepositFor(PRICE) ? need + need / 10n : minDepositFor(PRICE);
  const keys = Array.from({ length: channels }, () => generatePrivateKey());
  for (const key of keys) await b.chain.usdc.mint(privateKeyToAccount(key).address, deposit * 2n);
  const from = await b.chain.node.client.getBlockNumber();
  await inWorkers({ url: b.url, rpcUrl: b.chain.node.url, keys, calls, deposit: deposit.toString() });
  const deposits = await minedSince(b, from);
  if (deposits.length !== channels) throw new Error(`${channels} channels made ${deposits.length} deposits`);
  const claimTxs = await keeperGas(b, { lastClaimMs: 0 }, (r) => r.claimed === channels);
  const settleTxs = await keeperGas(b, { lastSettleMs: 0 }, (r) => r.settled === need * BigInt(channels));
  offset.ms += IDLE_MS;
  let refunded = 0;
  const refunds = await keeperGas(b, {}, (r) => (refunded += r.refunded) === channels);
  if (refunds.length !== channels) throw new Error(`${channels} refunds took ${refunds.length} transactions`);
  return { channels, calls, deposits, claimTxs, settleTxs, refunds, seconds: (Date.now() - started) / 1000 };
}

/** Per channel of a round (gas or calldata bytes): its deposit and refund, and its share of the claim and settle transactions. */
function perChannel(r: Round, of: keyof Mined = "gas") {
  const deposit = mean(r.deposits, of);
  const claim = sum(r.claimTxs, of) / r.channels;
  const settle = sum(r.settleTxs, of) / r.channels;
  const refund = mean(r.refunds, of);
  return { deposit, claim, settle, refund, total: deposit + claim + settle + refund };
}

const range = (xs: Mined[]) => `${int(Math.min(...xs.map((m) => m.gas)))}–${int(Math.max(...xs.map((m) => m.gas)))}`;

function printTable(exact: Mined[], rounds: Round[]): void {
  // The first exact payment writes PAY_TO's USDC balance slot for the first time: the steady state is the rest.
  const steady = exact.slice(1);
  const exactGas = mean(steady);
  const pct = (gas: number) => `${((100 * usd(gas)) / (Number(PRICE) / 1e6)).toFixed(gas < exactGas / 50 ? 2 : 1)} %`;
  const money = (gas: number) => `$${usd(gas).toPrecision(2)}`;
  log(`| payment | calls per channel | channels per claim batch | deposit | claim share | settle share | refund | gas per channel | **gas per call** | vs exact | USD per call | of the $0.001 price | calldata bytes per call |`);
  log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
  log(`| exact (baseline) | 1 | — | — | — | — | — | — | **${int(exactGas)}** | 1× | ${money(exactGas)} | ${pct(exactGas)} | ${int(mean(steady, "calldata"))} |`);
  for (const r of rounds) {
    const c = perChannel(r);
    const perCall = c.total / r.calls;
    const bytes = perChannel(r, "calldata").total / r.calls;
    log(
      `| batch-settlement | ${int(r.calls)} | ${r.channels} | ${int(c.deposit)} | ${int(c.claim)} | ${int(c.settle)} | ${int(c.refund)} | ${int(c.total)} | **${int(perCall)}** | ${(exactGas / perCall).toFixed(1)}× less | ${money(perCall)} | ${pct(perCall)} | ${bytes < 10 ? bytes.toFixed(1) : int(bytes)} |`,
    );
  }
  log();
  log(`exact: ${exact.length} payments, ${int(exact[0]!.gas)} gas the first (PAY_TO's first USDC), then ${range(steady)}.`);
  for (const r of rounds) {
    const txs = (xs: Mined[]) => xs.map((m) => int(m.gas)).join(", ");
    log(`${r.channels} × ${r.calls} calls (${r.seconds.toFixed(1)} s): deposits ${range(r.deposits)}, claim ${r.claimTxs.length} tx (${txs(r.claimTxs)}), settle ${txs(r.settleTxs)}, refunds ${range(r.refunds)}`);
  }
}

/** The service in this process, its channels' settings as the real-contract suite runs them. */
async function startService(chain: BatchChain, database: DatabaseHandle): Promise<{ app: App; url: string; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-bench-channel-gas-"));
  const env = { ...batchAppEnv(chain), DEVNET: "off", DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent" };
  const app = await createApp(loadConfig(env), { log: pino({ level: "silent" }), database, clock, extraRoutes: [channelTestRoutes(PRICE).fact] });
  return { app, url: await app.listen(), dataDir };
}

async function main(): Promise<void> {
  log(machineLine("bench:channel-gas"));
  log(`gas from receipts on anvil (Foundry) as Base Sepolia: Circle's FiatTokenV2_2, x402's escrow and ERC-3009 collector; route price $0.001`);
  log(`USD at ${GAS_PRICE_GWEI} gwei and ETH = $${ETH_USD} (L2 execution gas only: Base's L1 data fee is not counted)`);
  const chain = await startBatchChain();
  // Other channels' money: on a live chain the escrow is never empty, so no row pays for its USDC balance
  // slot going from zero to non-zero (a deposit) or back (a refund). Held apart from every channel here.
  await chain.usdc.mint(chain.escrow, 1_000_000n);
  const db = await openBenchDatabase("bench_channel_gas");
  try {
    await withBenchDatabase(db, async (database) => {
      const service = await startService(chain, database);
      const b: Bench = { chain, app: service.app, url: service.url, times: { lastClaimMs: 0, lastSettleMs: 0 } };
      try {
        const started = Date.now();
        const exact = await exactRound(b, EXACT_CALLS);
        const warm = await channelRound(b, 2, 2);
        const warmTxs = (xs: Mined[]) => xs.map((m) => int(m.gas)).join(", ");
        log(`warm-up round (2 channels × 2 calls, not in the table): the first claim ${warmTxs(warm.claimTxs)} gas, the first settlement ${warmTxs(warm.settleTxs)}`);
        const rounds: Round[] = [];
        for (const k of CHANNELS) for (const n of CALLS) rounds.push(await channelRound(b, k, n));
        log();
        printTable(exact, rounds);
        log(`whole run ${((Date.now() - started) / 1000).toFixed(0)} s; ${machineLine("at the end")}`);
      } finally {
        await service.app.close();
        fs.rmSync(service.dataDir, { recursive: true, force: true });
      }
    });
  } finally {
    await chain.close();
  }
}

await main();
