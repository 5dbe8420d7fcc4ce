/**
 * The lending indexer against the devnet L1 over real loopback sockets:
 * borrowers found from the Pool's events, health factors refreshed through
 * Multicall3 equal to what the Pool answers, a position pushed under HF 1
 * liquidated on chain and the LiquidationCall recorded with its USD value,
 * a backlog read in ranges, retention of old liquidations, and a node that
 * goes down recorded on every market's cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EthRpc } from "../../src/chains/ethereum/rpc.js";
import { LENDING_MARKETS, WAD } from "../../src/chains/ethereum/lending.js";
import { ASSETS } from "../../src/chains/ethereum/flashloans.js";
import type { DevnetEthereum } from "../../devnet/ethereum.js";
import { indexLendingOnce, readAccounts, type LendingIndexerDeps } from "../../src/ingest/lending-indexer.js";
import { cursors, liquidationsSince, positionsOf, trackedBorrowers } from "../../src/ingest/lending-store.js";
import { ManualClock } from "../../src/core/clock.js";
import type { TestDatabase } from "../helpers/db.js";
import { startLendingDevnet, type LendingDevnet } from "../helpers/lending-devnet.js";

let l: LendingDevnet;
let db: TestDatabase;
let sim: DevnetEthereum;
let rpc: EthRpc;
let deps: LendingIndexerDeps;
const core = LENDING_MARKETS.find((m) => m.id === "aave-v3-core")!;
const clock = new ManualClock(Date.now());
const drain = async () => (await l.drain()).runs;

beforeAll(async () => {
  l = await startLendingDevnet({ clock, batchBlocks: 64 });
  ({ db, sim, rpc, deps } = l);
});

afterAll(async () => {
  await l.close();
});

describe("lending indexer on the devnet", () => {
  it("reads the backlog in ranges and tracks every borrower with debt, HF as the Pool answers", async () => {
    const runs = await drain();
    expect(runs).toBeGreaterThanOrEqual(Math.ceil(299 / 64));
    const c = (await cursors(db.db)).find((x) => x.market === core.id)!;
    expect(c.lastBlock).toBe(sim.head().number - 2n);
    expect(c.lastError).toBeNull();
    expect(c.ethPriceBase).toBe(sim.lending.price("WETH"));

    // Every simulated Core borrower is tracked (the sim's state is the head's; nothing was mined since).
    const simUsers = sim.lending.positions(core.pool).map((p) => p.user).sort();
    const tracked = (await trackedBorrowers(db.db, core.id)).sort();
    expect(tracked.length).toBeGreaterThan(50);
    expect(tracked).toEqual(simUsers);

    // Health factors equal a fresh getUserAccountData of the Pool.
    const sample = tracked.slice(0, 10);
    const live = await readAccounts(rpc, core.pool, sample, 4);
    for (const a of live) {
      const [stored] = await positionsOf(db.db, a.borrower, [core.id]);
      expect(stored?.healthFactorWad).toBe(a.data!.healthFactorWad);
      expect(stored?.debtBase).toBe(a.data!.debtBase);
    }
    // The Prime market has no events on the devnet: its cursor still moves.
    expect((await cursors(db.db)).find((x) => x.market === "aave-v3-prime")?.lastBlock).toBe(sim.head().number - 2n);
  });

  it("records the devnet's liquidations with their USD value", async () => {
    const liqs = await liquidationsSince(db.db, [core.id, "sparklend"], 0);
    expect(liqs.length).toBeGreaterThan(5);
    for (const l of liqs) {
      expect(l.debtToCover).toBeGreaterThan(0n);
      expect(l.debtBase).not.toBeNull();
      expect(l.liquidator).toMatch(/^0x[0-9a-f]{40}$/);
    }
  });

  it("a position pushed under HF 1 is found liquidatable, then its liquidation is recorded", async () => {
    sim.lending.freeze(true);
    sim.lending.pauseLiquidators(true);
    const user = "0x00000000000000000000000000000000000a11ce";
    // $30,000 of WETH against $24,500 of USDC: HF = 30000 × 0.83 / 24500 ≈ 1.016.
    const wethPrice = sim.lending.price("WETH");
    const collateralAmount = (30_000n * 10n ** 8n * 10n ** 18n) / wethPrice;
    sim.lending.open({ pool: core.pool, user, collateral: "WETH", collateralAmount, debt: "USDC", debtAmount: 24_500n * 10n ** 6n });
    sim.mine(3);
    await drain();
    const [before] = await positionsOf(db.db, user, [core.id]);
    expect(before!.healthFactorWad).toBeGreaterThan(WAD);
    expect(before!.healthFactorWad).toBeLessThan((102n * WAD) / 100n);

    sim.lending.shock("WETH", -500);
    sim.mine(3);
    await drain();
    const [after] = await positionsOf(db.db, user, [core.id]);
    expect(after!.healthFactorWad).toBeLessThan(WAD);

    sim.lending.pauseLiquidators(false);
    const start = sim.head().number;
    for (let i = 0; i < 20 && sim.lending.positions(core.pool).some((p) => p.user === user && p.debtAmount === 24_500n * 10n ** 6n); i++) sim.mine(1);
    sim.mine(3);
    await drain();
    const liq = (await liquidationsSince(db.db, [core.id], 0, user))[0];
    expect(liq).toBeDefined();
    expect(liq!.blockNumber).toBeGreaterThan(start);
    expect(liq!.debtAsset).toBe(ASSETS.USDC!.address);
    // Half the debt at HF > 0.95 (the 5 % shock leaves it about 0.965), valued at $1 per USDC.
    expect(liq!.debtToCover).toBe(12_250n * 10n ** 6n);
    expect(liq!.debtBase).toBe(12_250n * 10n ** 8n);
    const [rest] = await positionsOf(db.db, user, [core.id]);
    expect(rest!.debtBase).toBe(12_250n * 10n ** 8n);
    sim.lending.freeze(false);
  });

  it("retention drops old liquidations", async () => {
    const before = (await liquidationsSince(db.db, [core.id, "sparklend"], 0)).length;
    expect(before).toBeGreaterThan(0);
    clock.advance(2 * 86_400_000);
    sim.mine(3);
    await drain();
    const newestOld = (await liquidationsSince(db.db, [core.id, "sparklend"], 0)).filter((l) => l.blockTimeS < Math.floor(clock.now() / 1000) - 86_400);
    expect(newestOld).toEqual([]);
  });

  it("a node that goes down is recorded on every market's cursor", async () => {
    sim.setFailure("http503");
    await expect(indexLendingOnce(deps)).rejects.toThrow();
    const cs = await cursors(db.db);
    expect(cs.filter((c) => c.lastError !== null).map((c) => c.market).sort()).toEqual(LENDING_MARKETS.map((m) => m.id).sort());
    sim.setFailure(null);
    sim.mine(1);
    await drain();
    expect((await cursors(db.db)).every((c) => c.lastError === null)).toBe(true);
  });
});
