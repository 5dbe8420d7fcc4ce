/**
 * npm run bench:address-risk — what the approval-scan signals cost one
 * /v1/q/address-risk answer. A PGlite database in a temp DATA_DIR is filled
 * with a counter-MEV window of APPROVALS approval events (SPENDERS spenders,
 * OWNERS owners, 5 tokens, a tenth of the spenders EOAs, a third of the pairs
 * with a live allowance read), and the devnet's Ethereum simulator answers the
 * chain id. Timed, in the same run:
 *   - baseline: `computeCounterMev` over the whole window (what reading one
 *     address out of the feed's answer would cost);
 *   - `approvalRiskOf` for a busy spender, a token, an owner and an address
 *     the scan never met (the reads address-risk makes).
 * Env: APPROVALS (50000), SPENDERS (2000), OWNERS (20000), RUNS (20).
 * Nothing is asserted: figures are printed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import { openDatabase } from "../src/db/connection.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { EthRpc } from "../src/chains/ethereum/rpc.js";
import { loadRiskLists } from "../src/chains/ethereum/risk-lists.js";
import { startDevnetEthereum } from "../devnet/ethereum.js";
import { approvalRiskOf, computeCounterMev, type CounterMevDeps } from "../src/feeds/counter-mev.js";

const APPROVALS = Number(process.env.APPROVALS ?? 50_000);
const SPENDERS = Number(process.env.SPENDERS ?? 2_000);
const OWNERS = Number(process.env.OWNERS ?? 20_000);
const RUNS = Number(process.env.RUNS ?? 20);
const BLOCKS = 7_200;

const hexAddr = (tag: number, i: number) => `0x${tag.toString(16).padStart(2, "0")}${i.toString(16).padStart(38, "0")}`;
const TOKENS = Array.from({ length: 5 }, (_, i) => hexAddr(0xaa, i));

/** Deterministic pseudo-random in [0, n). */
let seed = 42;
const rand = (n: number) => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed % n;
};

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-bench-risk-"));
  const database = await openDatabase({ dataDir: dir, poolSize: 4 });
  await migrateToLatest(database.db);
  const eth = await startDevnetEthereum({});
  const rpc = new EthRpc({ urls: [eth.url] });
  const chainId = await rpc.chainId();
  const c = String(chainId);

  const t0 = performance.now();
  const rows: ReturnType<typeof sql>[] = [];
  const allowances: ReturnType<typeof sql>[] = [];
  for (let i = 0; i < APPROVALS; i++) {
    // Spenders by a skewed draw: a few busy routers, a long tail.
    const s = Math.min(rand(SPENDERS), rand(SPENDERS));
    const [token, owner, spender] = [TOKENS[rand(TOKENS.length)]!, hexAddr(0xbb, rand(OWNERS)), hexAddr(0xcc, s)];
    const value = rand(4) === 0 ? (2n ** 256n - 1n).toString() : String(1 + rand(1_000_000));
    rows.push(sql`(${c}, ${String(1_000 + rand(BLOCKS))}, ${i}, ${`0x${i.toString(16).padStart(64, "0")}`}, ${token}, ${owner}, ${spender}, ${value})`);
    if (rand(3) === 0) allowances.push(sql`(${c}, ${token}, ${owner}, ${spender}, ${rand(2) === 0 ? "0" : value}, ${String(1_000 + BLOCKS)})`);
  }
  for (let i = 0; i < rows.length; i += 1000)
    await sql`INSERT INTO cmev_approvals (chain_id, block_number, log_index, tx_hash, token, owner, spender, value) VALUES ${sql.join(rows.slice(i, i + 1000))}`.execute(database.db);
  for (let i = 0; i < allowances.length; i += 1000)
    await sql`INSERT INTO cmev_allowances (chain_id, token, owner, spender, allowance, checked_block) VALUES ${sql.join(allowances.slice(i, i + 1000))}
      ON CONFLICT DO NOTHING`.execute(database.db);
  const kinds = Array.from({ length: SPENDERS }, (_, i) => sql`(${c}, ${hexAddr(0xcc, i)}, ${i % 10 === 0 ? "eoa" : "contract"}, ${String(1_000 + BLOCKS)})`);
  for (let i = 0; i < kinds.length; i += 1000) await sql`INSERT INTO cmev_accounts (chain_id, address, kind, checked_block) VALUES ${sql.join(kinds.slice(i, i + 1000))}`.execute(database.db);
  await sql`INSERT INTO cmev_scan_state (chain_id, first_block, scanned_to, scanned_to_time_s) VALUES (${c}, 1000, ${String(1_000 + BLOCKS - 1)}, ${String(Math.floor(Date.now() / 1000))})`.execute(database.db);
  await sql`ANALYZE`.execute(database.db);
  const seedS = (performance.now() - t0) / 1000;

  const ctx: CounterMevDeps = {
    db: database.db,
    rpc,
    clock: { now: () => Date.now() },
    lists: loadRiskLists(undefined, Date.now()),
    windowBlocks: BLOCKS,
    maxWindowBlocks: BLOCKS,
    maxAgeSeconds: 300,
    priceMemo: { at: Date.now(), value: 3000 },
  };

  const time = async (runs: number, fn: () => Promise<unknown>) => {
    const lat: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await fn();
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    return { p50: lat[Math.floor(lat.length / 2)]!, max: lat[lat.length - 1]! };
  };
  const ms = (x: number) => x.toFixed(1).padStart(8);

  const full = await time(Math.max(3, Math.floor(RUNS / 4)), () => computeCounterMev({ ctx, input: { min_band: "low" } }));
  const cases: [string, string][] = [
    ["busiest spender", hexAddr(0xcc, 0)],
    ["tail spender", hexAddr(0xcc, SPENDERS - 1)],
    ["token", TOKENS[0]!],
    ["owner", hexAddr(0xbb, 7)],
    ["never met", hexAddr(0xdd, 1)],
  ];
  console.log(`address-risk approval signals: ${APPROVALS} approvals, ${SPENDERS} spenders, ${OWNERS} owners, ${BLOCKS}-block window; PGlite; load ${os.loadavg()[0]!.toFixed(1)}; seeded in ${seedS.toFixed(1)} s`);
  console.log(`${"read".padEnd(44)}${"p50 ms".padStart(8)}${"max ms".padStart(8)}`);
  console.log(`${"baseline: computeCounterMev, whole window".padEnd(44)}${ms(full.p50)}${ms(full.max)}`);
  for (const [label, addr] of cases) {
    const r = await time(RUNS, () => approvalRiskOf({ ctx, address: addr }));
    console.log(`${`approvalRiskOf: ${label}`.padEnd(44)}${ms(r.p50)}${ms(r.max)}`);
  }
  await database.close();
  await eth.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
