/**
 * Liquidation terms read on chain: the Aave V3 ReserveConfigurationMap
 * decoder against bitmaps packed by hand; the lending indexer storing every
 * market's terms equal to the devnet's parameters (Pool.getConfiguration of
 * the principal collateral reserve, Comet.storeFrontPriceFactor and the
 * assets' liquidationFactor); the opportunities feed valuing a market with
 * the fallback until its terms are read, following a governance change
 * after one indexer run, and keeping the previous terms when a read fails.
 * All over the devnet L1's loopback socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hex } from "viem";
import {
  aaveReserveTerms,
  decodeReserveConfiguration,
  decodeReserveConfigurationMap,
  encodeReserveConfigurationMap,
  LENDING_MARKETS,
  reserveConfigurationCall,
} from "../../src/chains/ethereum/lending.js";
import { ASSETS } from "../../src/chains/ethereum/flashloans.js";
import { ManualClock } from "../../src/core/clock.js";
import { computeOpportunities, OpportunitiesInput, type OpportunitiesDeps, type OpportunityRow } from "../../src/feeds/opportunities.js";
import { indexLendingOnce } from "../../src/oracle/lending-indexer.js";
import { cursors, marketTerms } from "../../src/oracle/lending-store.js";
import { startLendingDevnet, type LendingDevnet } from "../helpers/lending-devnet.js";

const clock = new ManualClock(Date.now());
const E16 = 10n ** 16n;
const WAD = 10n ** 18n;
const market = (id: string) => LENDING_MARKETS.find((m) => m.id === id)!;
const core = market("aave-v3-core");
const spark = market("sparklend");
const prime = market("aave-v3-prime");
const cusdc = market("compound-v3-usdc");
const AAVE = [core, spark, prime];
const COMETS = LENDING_MARKETS.filter((m) => m.protocol === "compound");
let l: LendingDevnet;
let deps: OpportunitiesDeps;

beforeAll(async () => {
  // The seed of the Compound/Morpho indexer test: every protocol has borrowers.
  l = await startLendingDevnet({ clock, seed: 4242, batchBlocks: 100 });
  deps = { db: l.db.db, rpc: l.rpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: 10 ** 9 };
}, 60_000);

afterAll(async () => {
  await l?.close();
});

const ask = async (q: Record<string, string> = {}) => computeOpportunities({ ctx: deps, input: OpportunitiesInput.parse({ max_hf: "1000", limit: "500", ...q }) });
const rowsOf = (rows: OpportunityRow[], id: string) => rows.filter((r) => r.market === id);

/** A devnet Comet's lowest discount d = storeFront × (1 − lf) as d / (1 − d) in bps, each step rounded down, written out here. */
function cometBonusByHand(comet: string): bigint {
  const { storeFrontPriceFactor: sf, liquidationFactors } = l.sim.comet.liquidationTerms(comet);
  const ds = Object.values(liquidationFactors).map((lf) => (sf * (WAD - lf)) / WAD);
  const d = ds.reduce((a, b) => (b < a ? b : a));
  return (d * 10_000n) / (WAD - d);
}

describe("Aave V3's ReserveConfigurationMap", () => {
  // WETH-like: LTV 80.5 %, threshold 83 %, bonus 105 %, 18 decimals, active and borrowable, reserve factor 15 %,
  // no caps, liquidation protocol fee 10 %, eMode 1 — packed by hand from the bit positions
  // (aave-v3-core ReserveConfiguration.sol): bits 168–175 01, 152–167 03e8, 80–151 zero, 64–79 05dc,
  // 56–63 05 (bits 56 and 58), 48–55 12, 32–47 2904, 16–31 206c, 0–15 1f72.
  const HAND_PACKED = 0x0103e800000000000000000005dc05122904206c1f72n;

  it("decodes a hand-packed bitmap field by field, and packs it back the same", () => {
    const c = decodeReserveConfigurationMap(HAND_PACKED);
    expect(c).toEqual({
      ltvBps: 8_050n,
      liquidationThresholdBps: 8_300n,
      liquidationBonusBps: 10_500n,
      decimals: 18n,
      active: 1n,
      frozen: 0n,
      borrowingEnabled: 1n,
      stableBorrowingEnabled: 0n,
      paused: 0n,
      reserveFactorBps: 1_500n,
      borrowCap: 0n,
      supplyCap: 0n,
      liquidationProtocolFeeBps: 1_000n,
      eModeCategory: 1n,
    });
    expect(encodeReserveConfigurationMap(c)).toBe(HAND_PACKED);
    expect(aaveReserveTerms(HAND_PACKED, "WETH")).toMatchObject({ bonusBps: 500n, protocolFeeBps: 1_000n, source: "aave_reserve" });
  });

  it("reads the bonus and the fee exactly when every other bit is set (a mask one bit too wide or narrow fails)", () => {
    const ones = 2n ** 256n - 1n;
    const data = (ones ^ (0xffffn << 32n) ^ (0xffffn << 152n)) | (10_750n << 32n) | (1_500n << 152n);
    const c = decodeReserveConfigurationMap(data);
    expect(c.liquidationBonusBps).toBe(10_750n);
    expect(c.liquidationProtocolFeeBps).toBe(1_500n);
    // Their neighbours are all ones, as set.
    expect([c.liquidationThresholdBps, c.ltvBps, c.reserveFactorBps]).toEqual([0xffffn, 0xffffn, 0xffffn]);
    expect([c.decimals, c.eModeCategory, c.supplyCap]).toEqual([0xffn, 0xffn, 2n ** 36n - 1n]);
    expect(aaveReserveTerms(data, "X")).toMatchObject({ bonusBps: 750n, protocolFeeBps: 1_500n });
    // The same two fields with everything else clear decode the same.
    const alone = (10_750n << 32n) | (1_500n << 152n) | (1n << 56n);
    expect(aaveReserveTerms(alone, "X")).toMatchObject({ bonusBps: 750n, protocolFeeBps: 1_500n });
  });

  it("refuses a reserve that is not collateral, inactive, or out of range", () => {
    expect(() => aaveReserveTerms(1n << 56n, "USDC")).toThrow(/not collateral/);
    expect(() => aaveReserveTerms(HAND_PACKED & ~(1n << 56n), "WETH")).toThrow(/not active/);
    expect(() => aaveReserveTerms((HAND_PACKED & ~(0xffffn << 152n)) | (10_001n << 152n), "WETH")).toThrow(/out of range/);
    expect(() => encodeReserveConfigurationMap({ liquidationBonusBps: 1n << 16n })).toThrow(RangeError);
  });

  it("the devnet Pools answer getConfiguration with their reserves' parameters packed", async () => {
    for (const [pool, symbol] of [[core.pool, "WETH"], [spark.pool, "WETH"], [prime.pool, "WSTETH"], [core.pool, "WBTC"], [core.pool, "USDC"]] as const) {
      const call = reserveConfigurationCall(pool, ASSETS[symbol]!.address);
      const data = decodeReserveConfiguration((await l.rpc.ethCall(call.target, call.data)) as Hex);
      const r = l.sim.lending.reserve(pool, symbol)!;
      expect(decodeReserveConfigurationMap(data!), `${pool} ${symbol}`).toMatchObject({
        ltvBps: r.ltv,
        liquidationThresholdBps: r.lt,
        liquidationBonusBps: r.lb,
        decimals: BigInt(ASSETS[symbol]!.decimals),
        active: 1n,
        frozen: 0n,
        paused: 0n,
        reserveFactorBps: r.reserveFactor,
        borrowCap: r.borrowCap,
        supplyCap: r.supplyCap,
        liquidationProtocolFeeBps: r.fee,
        eModeCategory: r.eMode,
      });
    }
    // An asset the Pool does not list: an empty configuration, as Aave answers.
    const none = reserveConfigurationCall(core.pool, "0x000000000000000000000000000000000000dead");
    expect(decodeReserveConfiguration((await l.rpc.ethCall(none.target, none.data)) as Hex)).toBe(0n);
  });
});

describe("terms read by the indexer and used by the feed", () => {
  it("before its terms are read a market is valued with the fallback; its positions are indexed anyway and the failure recorded", async () => {
    // Core's WETH reserve at a liquidation bonus of 100 %: not valid collateral, so its terms cannot be read.
    l.sim.lending.setReserveTerms(core.pool, "WETH", { lb: 10_000n });
    const r = await l.drain();
    expect(r.markets.find((m) => m.market === core.id)!.error).toMatch(/liquidation terms: the WETH reserve is not collateral/);
    const terms = await marketTerms(l.db.db);
    expect(terms.has(core.id)).toBe(false);
    const c = (await cursors(l.db.db)).find((x) => x.market === core.id)!;
    expect(c.lastBlock).toBe(l.sim.head().number - 2n);
    expect(c.lastError).toMatch(/not collateral/);

    const feed = await ask();
    const coreRows = rowsOf(feed.opportunities, core.id);
    expect(coreRows.length).toBeGreaterThan(5);
    for (const row of coreRows) expect(row).toMatchObject({ bonus_bps: 500, bonus_source: "fallback", protocol_fee_bps: 1_000 });
    // The markets read meanwhile are valued with their terms.
    for (const row of rowsOf(feed.opportunities, spark.id)) expect(row).toMatchObject({ bonus_bps: 500, bonus_source: "aave_reserve", protocol_fee_bps: 1_000 });
    for (const row of rowsOf(feed.opportunities, cusdc.id)) expect(row).toMatchObject({ bonus_bps: 526, bonus_source: "comet_storefront", protocol_fee_bps: 0 });
  });

  it("stores each market's terms equal to the devnet's parameters, with the block they were read at", async () => {
    l.sim.lending.setReserveTerms(core.pool, "WETH", { lb: 10_500n });
    l.freezeAll(true);
    l.sim.mine(1);
    const before = clock.now();
    const r = await indexLendingOnce(l.deps);
    expect(r.markets.map((m) => m.error)).toEqual(r.markets.map(() => null));
    const terms = await marketTerms(l.db.db);
    // Morpho Blue has no market-wide terms (its incentive is per isolated market).
    expect([...terms.keys()].sort()).toEqual([...AAVE, ...COMETS].map((m) => m.id).sort());
    for (const m of AAVE) {
      const reserve = l.sim.lending.reserve(m.pool, m.principalReserve!.symbol.toUpperCase())!;
      expect(terms.get(m.id), m.id).toMatchObject({ bonusBps: reserve.lb - 10_000n, protocolFeeBps: reserve.fee, source: "aave_reserve", readBlock: l.sim.head().number });
      expect(terms.get(m.id)!.detail).toContain(m.principalReserve!.symbol);
    }
    expect(terms.get(prime.id)).toMatchObject({ bonusBps: 600n, protocolFeeBps: 1_000n });
    for (const m of COMETS) {
      expect(terms.get(m.id), m.id).toMatchObject({ bonusBps: cometBonusByHand(m.pool), protocolFeeBps: 0n, source: "comet_storefront", readBlock: l.sim.head().number });
    }
    // cUSDCv3: 0.5 × (1 − 0.9) = 5 % → 5 / 95; cWstETHv3: 0.7 × (1 − 0.96) = 2.8 % → 2.8 / 97.2.
    expect(terms.get(cusdc.id)!.bonusBps).toBe(526n);
    expect(terms.get("compound-v3-wsteth")!.bonusBps).toBe(288n);
    for (const t of terms.values()) expect(t.readMs).toBe(before);
    expect((await cursors(l.db.db)).find((x) => x.market === core.id)!.lastError).toBeNull();

    const feed = await ask();
    for (const row of rowsOf(feed.opportunities, core.id)) expect(row).toMatchObject({ bonus_bps: 500, bonus_source: "aave_reserve", protocol_fee_bps: 1_000 });
  });

  it("a governance change of a reserve's bonus and fee and of a Comet's storefront factor reaches the feed after one indexer run", async () => {
    const old = await ask();
    l.sim.lending.setReserveTerms(core.pool, "WETH", { lb: 10_750n, fee: 2_000n });
    l.sim.comet.setStoreFrontPriceFactor(cusdc.pool, 80n * E16);
    // Not before the indexer has read them.
    const unread = await ask();
    for (const row of rowsOf(unread.opportunities, core.id)) expect(row).toMatchObject({ bonus_bps: 500, protocol_fee_bps: 1_000 });

    l.sim.mine(1);
    await indexLendingOnce(l.deps);
    const feed = await ask();
    const coreRows = rowsOf(feed.opportunities, core.id);
    expect(coreRows.length).toBeGreaterThan(5);
    for (const row of coreRows) {
      expect(row).toMatchObject({ bonus_bps: 750, bonus_source: "aave_reserve", protocol_fee_bps: 2_000 });
      // The cut is 20 % of the gross bonus now (within a cent of rounding).
      const gross = BigInt(row.gross_bonus_usd.replace(".", ""));
      const cut = BigInt(row.protocol_cut_usd.replace(".", ""));
      expect(Number(cut - gross / 5n), row.borrower).toBeGreaterThanOrEqual(-1);
      expect(Number(cut - gross / 5n), row.borrower).toBeLessThanOrEqual(1);
      const was = old.opportunities.find((x) => x.borrower === row.borrower && x.market === core.id);
      if (was) expect(Number(row.gross_bonus_usd), row.borrower).toBeGreaterThan(Number(was.gross_bonus_usd));
    }
    // cUSDCv3: 0.8 × (1 − 0.9) = 8 % → 8 / 92 = 869 bps.
    const cometRows = rowsOf(feed.opportunities, cusdc.id);
    expect(cometRows.length).toBeGreaterThan(0);
    for (const row of cometRows) expect(row).toMatchObject({ bonus_bps: 869, bonus_source: "comet_storefront", protocol_fee_bps: 0 });
    // The other markets are as they were.
    for (const row of rowsOf(feed.opportunities, spark.id)) expect(row).toMatchObject({ bonus_bps: 500, protocol_fee_bps: 1_000 });
    for (const row of rowsOf(feed.opportunities, "compound-v3-usdt")) expect(row).toMatchObject({ bonus_bps: 256 });
    expect(feed.assumptions.protocol_fee_bps).toBe(2_000);
    // bonus_bps replaces the bonus, not the market's fee.
    const forced = await ask({ bonus_bps: "300" });
    for (const row of rowsOf(forced.opportunities, core.id)) expect(row).toMatchObject({ bonus_bps: 300, bonus_source: "query", protocol_fee_bps: 2_000 });
  });

  it("a market whose terms cannot be read keeps its previous ones and records the error; its positions stay current", async () => {
    const before = await marketTerms(l.db.db);
    l.sim.lending.setReserveTerms(core.pool, "WETH", { lb: 9_000n });
    // A storefront factor above 1 is out of Comet's range.
    l.sim.comet.setStoreFrontPriceFactor(cusdc.pool, 2n * WAD);
    l.sim.mine(1);
    const r = await indexLendingOnce(l.deps);
    expect(r.markets.find((m) => m.market === core.id)!.error).toMatch(/liquidation terms: .*not collateral/);
    expect(r.markets.find((m) => m.market === cusdc.id)!.error).toMatch(/liquidation terms: storeFrontPriceFactor out of range/);
    for (const m of r.markets.filter((x) => x.market !== core.id && x.market !== cusdc.id)) expect(m.error, m.market).toBeNull();
    const after = await marketTerms(l.db.db);
    expect(after.get(core.id)).toEqual(before.get(core.id));
    expect(after.get(cusdc.id)).toEqual(before.get(cusdc.id));
    expect(after.get(spark.id)!.readBlock).toBe(l.sim.head().number);
    const cs = await cursors(l.db.db);
    for (const id of [core.id, cusdc.id]) {
      const c = cs.find((x) => x.market === id)!;
      expect(c.lastBlock, id).toBe(l.sim.head().number - 2n);
      expect(c.lastError, id).toMatch(/liquidation terms/);
    }
    for (const row of rowsOf((await ask()).opportunities, core.id)) expect(row).toMatchObject({ bonus_bps: 750, bonus_source: "aave_reserve", protocol_fee_bps: 2_000 });
  });
});
