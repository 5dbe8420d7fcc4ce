/**
 * npm run bench:oracle — the Penny Oracle end to end on the devnet, in one
 * process (the devnet's simulators, the real app on PGlite in a temp
 * DATA_DIR, and the load loops share it; figures are relative, printed next
 * to each other from the same run):
 *
 *  1. paid calls per second: GET /v1/q/base-fee bought with a fresh x402
 *     authorisation per call (402 round trip, signature, verify, answer,
 *     settlement on the devnet chain), PAID_CONCURRENCY loops, one devnet
 *     payer per loop;
 *  2. cached answers per second against the free-route figure: the same
 *     question through the free MCP dispatcher `service_q` (POST /mcp, the
 *     answer cached 10 s), next to a free MCP tool (`service_paywall_info`)
 *     and a free REST route (GET /v1/q, the catalogue), CONCURRENCY loops each;
 *  3. the follower's ingestion of a BACKLOG-block devnet history (default
 *     2,000): a second devnet L1 with that history and relays with as many
 *     slots of bids, a second app on its own PGlite; the Ethereum follower,
 *     the counter-MEV scan (approvals, reverted transactions) and the relay
 *     poller each drain it; blocks per second and the lag behind the head
 *     after each run are printed; then the lending indexer drains the same
 *     history, first over the Aave V3 and SparkLend markets (the baseline),
 *     then over the Compound V3 and Morpho Blue markets, each on its own
 *     cursors.
 *
 * Env: SECONDS (8 per load scenario), CONCURRENCY (16), PAID_CONCURRENCY (8),
 * BACKLOG (2000). Nothing is asserted: figures are printed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { applyConfigOverlay, loadConfig } from "../src/config.js";
import { createApp, type App } from "../src/app.js";
import { startDevnet } from "../devnet/index.js";
import { startDevnetEthereum } from "../devnet/ethereum.js";
import { startDevnetRelays } from "../devnet/relays.js";
import { followEthereumOnce } from "../src/ingest/ethereum-follower.js";
import { scanApprovalsOnce } from "../src/feeds/approval-scan.js";
import { pollRelaysOnce } from "../src/ingest/relay-poller.js";
import { indexLendingOnce } from "../src/ingest/lending-indexer.js";
import { LENDING_MARKETS } from "../src/chains/ethereum/lending.js";
import { createPayer } from "../src/x402/payer.js";

const SECONDS = Number(process.env.SECONDS ?? 8);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const PAID_CONCURRENCY = Number(process.env.PAID_CONCURRENCY ?? 8);
const BACKLOG = Number(process.env.BACKLOG ?? 2000);
const silent = pino({ level: "silent" });
const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));
const fmt = (x: number) => x.toFixed(1).padStart(9);

async function appOn(env: Record<string, string>, overlay: Parameters<typeof applyConfigOverlay>[1] | undefined): Promise<{ app: App; url: string; dir: string }> {
  const dir = tmp("vigil-bench-oracle-");
  const parsed = loadConfig({ DEVNET: "off", DATA_DIR: dir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "100000000", MCP_Q_PER_MINUTE: "100000000", ...env });
  const app = await createApp(overlay ? applyConfigOverlay(parsed, overlay) : parsed, { log: silent });
  return { app, url: await app.listen(), dir };
}

/** Runs `loops` concurrent loops of `call` for SECONDS; returns calls per second and failures. */
async function load(loops: number, call: (i: number) => Promise<boolean>): Promise<{ rps: number; ok: number; failed: number; p50: number; p99: number }> {
  const end = performance.now() + SECONDS * 1000;
  let ok = 0;
  let failed = 0;
  const lat: number[] = [];
  const start = performance.now();
  await Promise.all(
    Array.from({ length: loops }, async (_, i) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        if (await call(i).catch(() => false)) ok++;
        else failed++;
        lat.push(performance.now() - t0);
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  return { rps: ok / secs, ok, failed, p50: lat[Math.floor(lat.length * 0.5)] ?? NaN, p99: lat[Math.floor(lat.length * 0.99)] ?? NaN };
}

const mcpBody = (name: string, args: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

async function main(): Promise<void> {
  console.log(`bench:oracle — ${os.cpus().length} CPUs, node ${process.version}; SECONDS=${SECONDS} CONCURRENCY=${CONCURRENCY} PAID_CONCURRENCY=${PAID_CONCURRENCY} BACKLOG=${BACKLOG}`);
  const devnetDir = tmp("vigil-bench-devnet-");
  const devnet = await startDevnet({ dataDir: devnetDir, blockSeconds: 0 });
  const { app, url, dir } = await appOn({}, devnet.configOverlay);
  try {
    while ((await followEthereumOnce(app.ethereum)).more);

    // 1. Paid calls, end to end.
    const payers = devnet.payers.slice(0, PAID_CONCURRENCY).map((p) => createPayer(p.privateKey, { networks: ["eip155:84532"] }));
    const paid = await load(payers.length, async (i) => (await payers[i]!.payFetch(`${url}/v1/q/base-fee`).then(async (r) => (await r.arrayBuffer(), r.status))) === 200);

    // 2. Cached answers vs free routes (same run, same loops).
    const mcp = (name: string, args: unknown) => async () => {
      const r = await fetch(`${url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: mcpBody(name, args) });
      const j = (await r.json()) as { result?: { isError?: boolean } };
      return r.status === 200 && j.result !== undefined && !j.result.isError;
    };
    const freeRest = await load(CONCURRENCY, async () => {
      const r = await fetch(`${url}/v1/q`);
      await r.arrayBuffer();
      return r.status === 200;
    });
    const freeTool = await load(CONCURRENCY, mcp("service_paywall_info", {}));
    const cached = await load(CONCURRENCY, mcp("service_q", { question: "base-fee", params: {} }));

    console.log("\nEnd to end on the devnet (one process: devnet, app and load share the CPUs)");
    console.log("  scenario                                         calls/s    p50 ms    p99 ms   ok / failed");
    const line = (name: string, r: Awaited<ReturnType<typeof load>>) =>
      console.log(`  ${name.padEnd(46)} ${fmt(r.rps)} ${fmt(r.p50)} ${fmt(r.p99)}   ${r.ok} / ${r.failed}`);
    line(`paid GET /v1/q/base-fee (x402, ${payers.length} payers)`, paid);
    line("free REST GET /v1/q (catalogue)", freeRest);
    line("free MCP tool service_paywall_info", freeTool);
    line("cached answer: MCP service_q base-fee", cached);
    console.log(`  cached answers / free MCP tool: ${((cached.rps / freeTool.rps) * 100).toFixed(1)} %   (target ≥ 90 %)`);
  } finally {
    await app.close();
    await devnet.close();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(devnetDir, { recursive: true, force: true });
  }

  // 3. Backlog ingestion.
  const l1 = await startDevnetEthereum({ history: BACKLOG, autoMine: false, seed: 7 });
  const relays = await startDevnetRelays({ historySlots: BACKLOG });
  const b = await appOn({ ETH_RPC_URL: l1.url, RELAY_URLS: relays.relayUrls, BUILDER_PUBKEYS: relays.builderPubkeys }, undefined);
  try {
    console.log(`\nBacklog: ${BACKLOG} devnet blocks (and ${BACKLOG} slots of relay bids), fresh PGlite`);
    const head = l1.head().number;
    let t0 = performance.now();
    let runs = 0;
    const lags: string[] = [];
    for (;;) {
      const r = await followEthereumOnce(b.app.ethereum);
      runs++;
      const stored = await b.app.database.db.selectFrom("eth_headers").select((eb) => eb.fn.max("number").as("n")).executeTakeFirst();
      if (runs % 8 === 0 || !r.more) lags.push(`${head - BigInt(String(stored?.n ?? 0))}`);
      if (!r.more) break;
    }
    let secs = (performance.now() - t0) / 1000;
    console.log(`  Ethereum follower (headers): ${BACKLOG} blocks in ${secs.toFixed(2)} s = ${(BACKLOG / secs).toFixed(0)} blocks/s over ${runs} runs (target ≥ 200); lag behind the head every 8 runs: ${lags.join(" → ")}`);

    t0 = performance.now();
    runs = 0;
    let approvals = 0;
    let failed = 0;
    for (;;) {
      const r = await scanApprovalsOnce(b.app.approvalScan);
      runs++;
      approvals += r.approvals;
      failed += r.failed;
      if (!r.more) break;
    }
    secs = (performance.now() - t0) / 1000;
    const scanned = BACKLOG - 2;
    console.log(`  counter-MEV scan (logs + receipts): ${scanned} blocks in ${secs.toFixed(2)} s = ${(scanned / secs).toFixed(0)} blocks/s over ${runs} runs (${approvals} approvals, ${failed} reverted txs)`);

    t0 = performance.now();
    runs = 0;
    let delivered = 0;
    let bids = 0;
    for (;;) {
      const rs = await pollRelaysOnce(b.app.relays);
      runs++;
      delivered += rs.reduce((a, r) => a + r.delivered, 0);
      bids += rs.reduce((a, r) => a + r.bids, 0);
      if (!rs.some((r) => r.more)) break;
    }
    secs = (performance.now() - t0) / 1000;
    console.log(`  relay poller (3 relays): ${delivered} delivered payloads and ${bids} bids in ${secs.toFixed(2)} s over ${runs} runs`);

    // Lending: the same history through the lending indexer, Aave/Spark markets (baseline) then Compound V3 + Morpho Blue.
    const lendingRun = async (label: string, markets: typeof LENDING_MARKETS) => {
      const t = performance.now();
      let n = 0;
      let logs = 0;
      let liquidations = 0;
      for (;;) {
        const r = await indexLendingOnce({ ...b.app.lending, markets });
        n++;
        logs += r.markets.reduce((a, m) => a + m.logs, 0);
        liquidations += r.markets.reduce((a, m) => a + m.liquidations, 0);
        if (!r.more) break;
      }
      const s = (performance.now() - t) / 1000;
      const positions = await b.app.database.db
        .selectFrom("lending_positions")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("market", "in", markets.map((m) => m.id))
        .executeTakeFirstOrThrow();
      console.log(
        `  lending indexer, ${label}: ${scanned} blocks in ${s.toFixed(2)} s = ${(scanned / s).toFixed(0)} blocks/s over ${n} runs (${logs} logs, ${positions.n} positions, ${liquidations} liquidations)`,
      );
    };
    await lendingRun("Aave V3 + SparkLend (baseline)", LENDING_MARKETS.filter((m) => m.protocol === "aave" || m.protocol === "spark"));
    await lendingRun("Compound V3 + Morpho Blue", LENDING_MARKETS.filter((m) => m.protocol === "compound" || m.protocol === "morpho"));
  } finally {
    await b.app.close();
    await l1.close();
    await relays.close();
    fs.rmSync(b.dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
