/**
 * Liquidation terms read on chain: the Aave V3 ReserveConfigurationMap and
 * UserConfigurationMap decoders against bitmaps packed by hand; the lending
 * indexer storing every market's terms equal to the devnet's parameters
 * (Pool.getConfiguration of the principal collateral reserve,
 * Comet.storeFrontPriceFactor and the assets' liquidationFactor) and each
 * Aave/Spark position's own collateral reserve's terms
 * (Pool.getUserConfiguration, getReservesList, getConfiguration); the
 * opportunities feed valuing each Aave/Spark position with its own
 * collateral's bonus, a market with the fallback until its terms are read,
 * following a governance change after one indexer run, keeping the previous
 * terms when a read fails and falling back to the market's terms when a
 * position's own cannot be read; positions in an eMode category valued with
 * the category's bonus where their collateral is in it (Aave V3.2+ views and
 * the V3.0/3.1 ones), the reserve's otherwise or when the category cannot be
 * read. All over the devnet L1's loopback socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hex } from "viem";
import {
  aaveReserveTerms,
  decodeReserveConfiguration,
  decodeReserveConfigurationMap,
  decodeReservesList,
  decodeUserConfiguration,
  decodeUserConfigurationMap,
  decodeEModeCategory,
  decodeEModeCategoryLegacy,
  decodeUserEMode,
  eModeCategoryDataCall,
  eModeCollateralBitmapCall,
  eModeCollateralConfigCall,
  inEModeCategory,
  userEModeCall,
  type EModeCategory,
  encodeReserveConfigurationMap,
  encodeUserConfigurationMap,
  LENDING_MARKETS,
  positionTerms,
  reserveConfigurationCall,
  reservesListCall,
  userConfigurationCall,
} from "../../src/chains/ethereum/lending.js";
import { ASSETS } from "../../src/chains/ethereum/flashloans.js";
import { ManualClock } from "../../src/core/clock.js";
import { computeOpportunities, OpportunitiesInput, type OpportunitiesDeps, type OpportunityRow } from "../../src/feeds/opportunities.js";
import { indexLendingOnce } from "../../src/ingest/lending-indexer.js";
import { cursors, marketTerms, positionsBelow } from "../../src/ingest/lending-store.js";
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

const symbolOf = (asset: string) => Object.entries(ASSETS).find(([, a]) => a.address === asset)![0];

/**
 * What an Aave/Spark row is valued with when the position's own collateral is read: the devnet's parameters of the
 * reserve its simulated position holds as collateral (each has one), unless that reserve cannot be seized (bonus not
 * above 100 %); then undefined (the market's terms apply). A position in eMode 1 whose collateral is in that category
 * gets the category's bonus (whatever the reserve's own) with the reserve's fee.
 */
function ownTermsByHand(row: OpportunityRow) {
  const m = market(row.market);
  const p = l.sim.lending.positions(m.pool).find((x) => x.user === row.borrower);
  expect(p, `${row.market} ${row.borrower} is a devnet position`).toBeDefined();
  const r = l.sim.lending.reserve(m.pool, p!.collateral)!;
  const cat = l.sim.lending.eModeCategory(p!.eMode);
  if (cat && cat.collateral.includes(p!.collateral)) {
    return { bonus_bps: Number(cat.lb - 10_000n), protocol_fee_bps: Number(r.fee), bonus_source: "aave_emode", collateral_reserve: ASSETS[p!.collateral]!.address, emode_category: p!.eMode };
  }
  if (r.lb <= 10_000n) return undefined;
  return { bonus_bps: Number(r.lb - 10_000n), protocol_fee_bps: Number(r.fee), bonus_source: "aave_position_reserve", collateral_reserve: ASSETS[p!.collateral]!.address, emode_category: null };
}

/** Each Aave/Spark row valued with its own collateral reserve's terms, or with `market` where those cannot be seized. */
function expectOwnTerms(rows: OpportunityRow[], market: { bonus_bps: number; protocol_fee_bps: number; bonus_source: string }) {
  const seen = new Set<number>();
  for (const row of rows) {
    const own = ownTermsByHand(row);
    expect(row, `${row.market} ${row.borrower}`).toMatchObject(own ?? { ...market, collateral_reserve: null, emode_category: null });
    seen.add(row.bonus_bps);
  }
  return seen;
}

describe("Aave V3's UserConfigurationMap", () => {
  // Two bits per reserve id i (aave-v3-core UserConfiguration.sol): bit 2i borrowing, bit 2i + 1 collateral.
  it("decodes hand-packed bitmaps: the collateral bit is the odd one of each pair", () => {
    // Collateral id 0 (bit 1) and borrowing id 3 (bit 6): 0b0100_0010.
    expect(decodeUserConfigurationMap(0x42n)).toEqual({ borrowing: [3], collateral: [0] });
    // Collateral id 1 (bit 3), borrowing id 4 (bit 8): 0b1_0000_1000. Read with the bits the other way round, this
    // would be borrowing 1 and collateral 4 (and 0x42 borrowing 0, collateral 3).
    expect(decodeUserConfigurationMap(0x108n)).toEqual({ borrowing: [4], collateral: [1] });
    // Both bits of id 2 (bits 4 and 5), collateral ids 0 and 5 (bits 1, 11).
    expect(decodeUserConfigurationMap(0x832n)).toEqual({ borrowing: [2], collateral: [0, 2, 5] });
    // The last of 128 reserves: bit 254 borrowing, bit 255 collateral.
    expect(decodeUserConfigurationMap(1n << 255n)).toEqual({ borrowing: [], collateral: [127] });
    expect(decodeUserConfigurationMap(1n << 254n)).toEqual({ borrowing: [127], collateral: [] });
    expect(decodeUserConfigurationMap(0n)).toEqual({ borrowing: [], collateral: [] });
    for (const v of [0x42n, 0x108n, 0x832n, 3n << 254n]) expect(encodeUserConfigurationMap(decodeUserConfigurationMap(v))).toBe(v);
  });

  it("a position's terms: its collateral reserve paying the highest bonus, then the lower fee; none for a reserve that cannot be seized or an unknown id", () => {
    const cfg = (lb: bigint, fee: bigint, lt = 8_000n, active = 1n) => encodeReserveConfigurationMap({ ltvBps: 7_500n, liquidationThresholdBps: lt, liquidationBonusBps: lb, active, liquidationProtocolFeeBps: fee });
    const byId = new Map([
      [0, { asset: "0x00000000000000000000000000000000000000a0", configuration: cfg(10_500n, 1_000n) }],
      [1, { asset: "0x00000000000000000000000000000000000000a1", configuration: cfg(10_600n, 1_000n) }],
      [2, { asset: "0x00000000000000000000000000000000000000a2", configuration: cfg(10_600n, 500n) }],
      // A debt-only reserve (threshold 0) and an inactive one, each with a higher bonus: never chosen.
      [3, { asset: "0x00000000000000000000000000000000000000a3", configuration: cfg(11_000n, 0n, 0n) }],
      [4, { asset: "0x00000000000000000000000000000000000000a4", configuration: cfg(11_000n, 0n, 8_000n, 0n) }],
    ]);
    const at = (...collateral: number[]) => positionTerms(encodeUserConfigurationMap({ collateral, borrowing: [3] }), byId);
    expect(at(0)).toEqual({ asset: "0x00000000000000000000000000000000000000a0", bonusBps: 500n, protocolFeeBps: 1_000n });
    expect(at(0, 1)).toEqual({ asset: "0x00000000000000000000000000000000000000a1", bonusBps: 600n, protocolFeeBps: 1_000n });
    expect(at(0, 1, 2)).toEqual({ asset: "0x00000000000000000000000000000000000000a2", bonusBps: 600n, protocolFeeBps: 500n });
    expect(at(0, 3, 4)).toMatchObject({ bonusBps: 500n });
    expect(at(3)).toBeNull();
    expect(at()).toBeNull();
    // Borrowing bits alone name no collateral: id 1's borrowing bit does not make it collateral.
    expect(positionTerms(encodeUserConfigurationMap({ collateral: [0], borrowing: [1] }), byId)).toMatchObject({ bonusBps: 500n });
    // A collateral bit at an id whose reserve is unknown: the choice could be wrong, so none.
    expect(at(0, 9)).toBeNull();
  });

  it("the devnet Pools answer getReservesList and getUserConfiguration consistently with their positions", async () => {
    const list = reservesListCall(core.pool);
    const reserves = decodeReservesList((await l.rpc.ethCall(list.target, list.data)) as Hex)!;
    expect(reserves.map(symbolOf)).toEqual(l.sim.lending.reserveSymbols(core.pool));
    const positions = [...l.sim.lending.positions(core.pool), ...l.sim.lending.positions(spark.pool)];
    expect(positions.length).toBeGreaterThan(5);
    for (const p of positions) {
      const call = userConfigurationCall(p.pool, p.user);
      const data = decodeUserConfiguration((await l.rpc.ethCall(call.target, call.data)) as Hex)!;
      expect(decodeUserConfigurationMap(data), p.user).toEqual({
        borrowing: p.debtAmount > 0n ? [reserves.indexOf(ASSETS[p.debt]!.address)] : [],
        collateral: [reserves.indexOf(ASSETS[p.collateral]!.address)],
      });
    }
    const none = userConfigurationCall(core.pool, "0x000000000000000000000000000000000000dead");
    expect(decodeUserConfiguration((await l.rpc.ethCall(none.target, none.data)) as Hex)).toBe(0n);
  });
});

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
    // Core's positions backed by wstETH or WBTC are valued with their own reserve's terms; those backed by WETH
    // (not seizable at 100 %) with the market's, which are not read: the fallback.
    const fallback = coreRows.filter((r) => r.bonus_source === "fallback");
    expect(fallback.length).toBeGreaterThan(0);
    // Those in eMode 1 backed by WETH or wstETH: the category's 1 % (the reserve's own bonus does not matter).
    expect(expectOwnTerms(coreRows, { bonus_bps: 500, bonus_source: "fallback", protocol_fee_bps: 1_000 })).toEqual(new Set([100, 500, 600]));
    for (const row of fallback) expect(l.sim.lending.positions(core.pool).find((p) => p.user === row.borrower)!.collateral).toBe("WETH");
    // The markets read meanwhile are valued with their terms.
    expectOwnTerms(rowsOf(feed.opportunities, spark.id), { bonus_bps: 500, bonus_source: "aave_reserve", protocol_fee_bps: 1_000 });
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

    // Every Aave/Spark position stored with its own collateral reserve's terms.
    const stored = await positionsBelow(l.db.db, { markets: [core.id, spark.id], maxHfWad: 1_000n * WAD, minDebtBase: 0n });
    expect(stored.length).toBeGreaterThan(10);
    for (const p of stored) {
      const sim = l.sim.lending.positions(market(p.market).pool).find((x) => x.user === p.borrower)!;
      const r = l.sim.lending.reserve(market(p.market).pool, sim.collateral)!;
      const inEMode = sim.eMode === 1 && sim.collateral !== "WBTC";
      expect(p.reserveTerms, p.borrower).toEqual({
        asset: ASSETS[sim.collateral]!.address,
        bonusBps: inEMode ? 100n : r.lb - 10_000n,
        protocolFeeBps: r.fee,
        ...(inEMode ? { emodeCategory: 1 } : {}),
      });
    }
    expect(stored.some((p) => p.reserveTerms?.emodeCategory === 1)).toBe(true);

    const feed = await ask();
    const coreRows = rowsOf(feed.opportunities, core.id);
    expect(new Set(coreRows.map((r) => r.bonus_source))).toEqual(new Set(["aave_position_reserve", "aave_emode"]));
    expect(expectOwnTerms(coreRows, { bonus_bps: 500, bonus_source: "aave_reserve", protocol_fee_bps: 1_000 })).toEqual(new Set([100, 500, 600]));
  });

  it("a wstETH-backed position on Aave Core is valued at wstETH's bonus (6 %), a WETH-backed one at WETH's (5 %)", async () => {
    const usdc = (n: bigint) => n * 10n ** 6n;
    const eth = (n: bigint) => n * 10n ** 18n;
    const a = "0x00000000000000000000000000000000000a1e01";
    const b = "0x00000000000000000000000000000000000a1e02";
    // 10 ETH of collateral each ($30,000 of WETH, $36,000 of wstETH) against $20,000 of USDC: both under HF 1.3.
    l.sim.lending.open({ pool: core.pool, user: a, collateral: "WSTETH", collateralAmount: eth(10n), debt: "USDC", debtAmount: usdc(20_000n) });
    l.sim.lending.open({ pool: core.pool, user: b, collateral: "WETH", collateralAmount: eth(10n), debt: "USDC", debtAmount: usdc(20_000n) });
    l.sim.mine(3);
    await indexLendingOnce(l.deps);
    const rows = rowsOf((await ask()).opportunities, core.id);
    const ra = rows.find((r) => r.borrower === a)!;
    const rb = rows.find((r) => r.borrower === b)!;
    expect(ra).toMatchObject({ bonus_bps: 600, bonus_source: "aave_position_reserve", protocol_fee_bps: 1_000, collateral_reserve: ASSETS.WSTETH!.address });
    expect(rb).toMatchObject({ bonus_bps: 500, bonus_source: "aave_position_reserve", protocol_fee_bps: 1_000, collateral_reserve: ASSETS.WETH!.address });
    // The gross bonus is repayable × the own bonus (within a cent).
    for (const [row, bps] of [[ra, 600n], [rb, 500n]] as const) {
      const want = (BigInt(row.repayable_usd.replace(".", "")) * bps) / 10_000n;
      expect(Number(BigInt(row.gross_bonus_usd.replace(".", "")) - want)).toBeGreaterThanOrEqual(0);
      expect(Number(BigInt(row.gross_bonus_usd.replace(".", "")) - want)).toBeLessThanOrEqual(1);
    }
  });

  it("a governance change of a reserve's bonus and fee and of a Comet's storefront factor reaches the feed after one indexer run", async () => {
    const old = await ask();
    l.sim.lending.setReserveTerms(core.pool, "WETH", { lb: 10_750n, fee: 2_000n });
    // WBTC is not the principal reserve: only the positions it backs follow it.
    l.sim.lending.setReserveTerms(core.pool, "WBTC", { lb: 10_800n });
    l.sim.comet.setStoreFrontPriceFactor(cusdc.pool, 80n * E16);
    // Not before the indexer has read them.
    const unread = await ask();
    // Rows valued with their own reserve (eMode rows pay the category's bonus, which governance did not change).
    const byCollateral = (rows: OpportunityRow[], sym: string) => rows.filter((r) => r.collateral_reserve === ASSETS[sym]!.address && r.emode_category === null);
    for (const row of byCollateral(rowsOf(unread.opportunities, core.id), "WETH")) expect(row).toMatchObject({ bonus_bps: 500, protocol_fee_bps: 1_000 });
    for (const row of byCollateral(rowsOf(unread.opportunities, core.id), "WBTC")) expect(row).toMatchObject({ bonus_bps: 500, protocol_fee_bps: 1_000 });

    l.sim.mine(1);
    await indexLendingOnce(l.deps);
    const feed = await ask();
    const coreRows = rowsOf(feed.opportunities, core.id);
    expect(coreRows.length).toBeGreaterThan(5);
    // Each position follows its own collateral reserve: WETH 7.5 % at a 20 % fee, WBTC 8 %, wstETH as it was (6 %).
    expect(expectOwnTerms(coreRows, { bonus_bps: -1, bonus_source: "none", protocol_fee_bps: -1 })).toEqual(new Set([100, 600, 750, 800]));
    // eMode rows backed by WETH keep the category's 1 % but follow the reserve's new fee.
    for (const row of coreRows.filter((r) => r.emode_category === 1 && r.collateral_reserve === ASSETS.WETH!.address)) expect(row).toMatchObject({ bonus_bps: 100, protocol_fee_bps: 2_000 });
    for (const row of byCollateral(coreRows, "WBTC")) expect(row).toMatchObject({ bonus_bps: 800, protocol_fee_bps: 1_000 });
    for (const row of byCollateral(coreRows, "WSTETH")) expect(row).toMatchObject({ bonus_bps: 600, protocol_fee_bps: 1_000 });
    expect(byCollateral(coreRows, "WBTC").length).toBeGreaterThan(0);
    expect(byCollateral(coreRows, "WSTETH").length).toBeGreaterThan(0);
    expect((await marketTerms(l.db.db)).get(core.id)).toMatchObject({ bonusBps: 750n, protocolFeeBps: 2_000n });
    for (const row of byCollateral(coreRows, "WETH")) {
      expect(row).toMatchObject({ bonus_bps: 750, bonus_source: "aave_position_reserve", protocol_fee_bps: 2_000 });
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
    // The other markets are as they were (Spark's reserves are its own).
    expectOwnTerms(rowsOf(feed.opportunities, spark.id), { bonus_bps: -1, bonus_source: "none", protocol_fee_bps: -1 });
    for (const row of byCollateral(rowsOf(feed.opportunities, spark.id), "WETH")) expect(row).toMatchObject({ bonus_bps: 500, protocol_fee_bps: 1_000 });
    for (const row of rowsOf(feed.opportunities, "compound-v3-usdt")) expect(row).toMatchObject({ bonus_bps: 256 });
    expect(feed.assumptions.protocol_fee_bps).toBe(2_000);
    // bonus_bps replaces the bonus, not the market's fee.
    const forced = await ask({ bonus_bps: "300" });
    for (const row of byCollateral(rowsOf(forced.opportunities, core.id), "WETH")) expect(row).toMatchObject({ bonus_bps: 300, bonus_source: "query", protocol_fee_bps: 2_000 });
    for (const row of byCollateral(rowsOf(forced.opportunities, core.id), "WSTETH")) expect(row).toMatchObject({ bonus_bps: 300, bonus_source: "query", protocol_fee_bps: 1_000 });
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
    // The positions backed by WETH (not seizable at 90 %) fall back to the market's previous terms; the others keep their own.
    const coreRows = rowsOf((await ask()).opportunities, core.id);
    expect(coreRows.some((r) => r.bonus_source === "aave_reserve")).toBe(true);
    expectOwnTerms(coreRows, { bonus_bps: 750, bonus_source: "aave_reserve", protocol_fee_bps: 2_000 });
  });

  it("a position whose getUserConfiguration read fails is valued with the market's terms until it is read again", async () => {
    l.sim.lending.setReserveTerms(core.pool, "WETH", { lb: 10_500n, fee: 1_000n });
    l.sim.lending.setReserveTerms(core.pool, "WBTC", { lb: 10_500n });
    l.sim.comet.setStoreFrontPriceFactor(cusdc.pool, 50n * E16);
    const victim = l.sim.lending.positions(core.pool).find((p) => p.collateral === "WSTETH" && p.eMode === 0 && p.debtAmount > 0n)!;
    expect(victim).toBeDefined();
    l.sim.lending.failUserConfiguration(core.pool, victim.user, true);
    l.sim.mine(1);
    const r = await indexLendingOnce(l.deps);
    // Neither the market nor the other positions suffer from it.
    expect(r.markets.map((m) => m.error)).toEqual(r.markets.map(() => null));
    const stored = await positionsBelow(l.db.db, { markets: [core.id], maxHfWad: 1_000n * WAD, minDebtBase: 0n });
    expect(stored.find((p) => p.borrower === victim.user)).toMatchObject({ reserveTerms: null, refreshedBlock: l.sim.head().number - 2n });
    expect(stored.filter((p) => p.reserveTerms === null).map((p) => p.borrower)).toEqual([victim.user]);
    const rows = rowsOf((await ask()).opportunities, core.id);
    expect(rows.find((x) => x.borrower === victim.user)).toMatchObject({ bonus_bps: 500, bonus_source: "aave_reserve", protocol_fee_bps: 1_000, collateral_reserve: null });
    expectOwnTerms(rows.filter((x) => x.borrower !== victim.user), { bonus_bps: -1, bonus_source: "none", protocol_fee_bps: -1 });

    l.sim.lending.failUserConfiguration(core.pool, victim.user, false);
    l.sim.mine(1);
    await indexLendingOnce(l.deps);
    const again = rowsOf((await ask()).opportunities, core.id).find((x) => x.borrower === victim.user);
    expect(again).toMatchObject({ bonus_bps: 600, bonus_source: "aave_position_reserve", protocol_fee_bps: 1_000, collateral_reserve: ASSETS.WSTETH!.address });
  });

  it("after a reserve is dropped, positions' collateral bits are mapped by reserve id, not by index in getReservesList", async () => {
    // Prime drops WETH (id 0): getReservesList moves WBTC (id 2) to index 1, where an index-based reading would look.
    l.sim.lending.dropReserve(prime.pool, "WETH");
    l.sim.lending.setReserveTerms(prime.pool, "WBTC", { lb: 10_900n });
    const user = "0x00000000000000000000000000000000000a1e03";
    // 1 WBTC ($90,000) against $30,000 of USDC: HF about 2.3.
    l.sim.lending.open({ pool: prime.pool, user, collateral: "WBTC", collateralAmount: 10n ** 8n, debt: "USDC", debtAmount: 30_000n * 10n ** 6n });
    l.sim.mine(3);
    const list = reservesListCall(prime.pool);
    const reserves = decodeReservesList((await l.rpc.ethCall(list.target, list.data)) as Hex)!;
    expect(reserves.map(symbolOf)).toEqual(["WSTETH", "WBTC", "USDC", "USDT", "DAI"]);
    expect(decodeUserConfigurationMap(l.sim.lending.userConfiguration(prime.pool, user))).toEqual({ borrowing: [3], collateral: [2] });

    const r = await indexLendingOnce(l.deps);
    expect(r.markets.find((m) => m.market === prime.id)!.error).toBeNull();
    const [stored] = await positionsBelow(l.db.db, { markets: [prime.id], maxHfWad: 1_000n * WAD, minDebtBase: 0n });
    expect(stored).toMatchObject({ borrower: user, reserveTerms: { asset: ASSETS.WBTC!.address, bonusBps: 900n, protocolFeeBps: 1_000n } });
    const row = rowsOf((await ask()).opportunities, prime.id).find((x) => x.borrower === user);
    expect(row).toMatchObject({ bonus_bps: 900, bonus_source: "aave_position_reserve", protocol_fee_bps: 1_000, collateral_reserve: ASSETS.WBTC!.address });
    // Prime's own terms are still its wstETH reserve's.
    expect((await marketTerms(l.db.db)).get(prime.id)).toMatchObject({ bonusBps: 600n, protocolFeeBps: 1_000n });
  });
});

describe("efficiency mode (eMode)", () => {
  const cfg = (lb: bigint, fee: bigint, eModeCategory = 0n) => encodeReserveConfigurationMap({ ltvBps: 7_500n, liquidationThresholdBps: 8_000n, liquidationBonusBps: lb, active: 1n, liquidationProtocolFeeBps: fee, eModeCategory });
  const A0 = "0x00000000000000000000000000000000000000a0";
  const A1 = "0x00000000000000000000000000000000000000a1";
  const A2 = "0x00000000000000000000000000000000000000a2";
  // id 0 and 1 name category 1 in their configuration bits, id 2 none.
  const byId = new Map([
    [0, { asset: A0, configuration: cfg(10_500n, 1_000n, 1n) }],
    [1, { asset: A1, configuration: cfg(10_600n, 2_000n, 1n) }],
    [2, { asset: A2, configuration: cfg(10_750n, 1_000n) }],
  ]);
  const at = (eMode: EModeCategory | null, ...collateral: number[]) => positionTerms(encodeUserConfigurationMap({ collateral, borrowing: [3] }), byId, eMode);

  it("V3.2+: a reserve in the category's collateral bitmap pays the category's bonus with its own fee; others their own bonus", () => {
    // Category 1 at 101 %, collateral bitmap ids 0 and 1 (0b011).
    const cat: EModeCategory = { id: 1, liquidationBonus: 10_100n, collateralBitmap: 0b011n };
    expect(at(cat, 1)).toEqual({ asset: A1, bonusBps: 100n, protocolFeeBps: 2_000n, emodeCategory: 1 });
    expect(at(null, 1)).toEqual({ asset: A1, bonusBps: 600n, protocolFeeBps: 2_000n });
    // Collateral outside the category: the reserve's bonus, and it pays more than the eMode one, so it is chosen.
    expect(at(cat, 0, 2)).toEqual({ asset: A2, bonusBps: 750n, protocolFeeBps: 1_000n });
    expect(at(cat, 2)).toEqual({ asset: A2, bonusBps: 750n, protocolFeeBps: 1_000n });
    // The bitmap decides, not the (deprecated from V3.2) configuration bits: id 1 left out of the bitmap pays its own 6 %.
    expect(at({ ...cat, collateralBitmap: 0b001n }, 1)).toEqual({ asset: A1, bonusBps: 600n, protocolFeeBps: 2_000n });
    // …and id 2 put in the bitmap pays the category's, its bits notwithstanding.
    expect(at({ ...cat, collateralBitmap: 0b100n }, 2)).toEqual({ asset: A2, bonusBps: 100n, protocolFeeBps: 1_000n, emodeCategory: 1 });
    // A reserve whose own bonus is not above 100 % can still be seized in eMode at the category's bonus.
    const flat = new Map([[0, { asset: A0, configuration: cfg(10_000n, 1_000n, 1n) }]]);
    expect(positionTerms(encodeUserConfigurationMap({ collateral: [0] }), flat, cat)).toMatchObject({ bonusBps: 100n, emodeCategory: 1 });
    expect(positionTerms(encodeUserConfigurationMap({ collateral: [0] }), flat, null)).toBeNull();
    // A category bonus not above 100 %: that reserve cannot be seized at a gain.
    expect(at({ ...cat, liquidationBonus: 10_000n }, 0)).toBeNull();
  });

  it("V3.0/3.1: the reserve's eModeCategory bits (168–175) equal to the account's category decide", () => {
    const legacy: EModeCategory = { id: 1, liquidationBonus: 10_100n, collateralBitmap: null };
    expect(at(legacy, 0)).toEqual({ asset: A0, bonusBps: 100n, protocolFeeBps: 1_000n, emodeCategory: 1 });
    expect(at(legacy, 2)).toEqual({ asset: A2, bonusBps: 750n, protocolFeeBps: 1_000n });
    expect(at({ ...legacy, id: 2 }, 0)).toEqual({ asset: A0, bonusBps: 500n, protocolFeeBps: 1_000n });
    expect(inEModeCategory(legacy, 7, cfg(10_500n, 0n, 1n))).toBe(true);
    expect(inEModeCategory({ ...legacy, id: 0 }, 0, cfg(10_500n, 0n, 0n))).toBe(false);
  });

  it("the devnet Pools answer getUserEMode and both generations' category views; the legacy hook turns the V3.2+ ones off", async () => {
    const call = async (c: { target: string; data: Hex }) => (await l.rpc.ethCall(c.target, c.data)) as Hex;
    const cat = l.sim.lending.eModeCategory(1)!;
    expect(cat).toMatchObject({ lb: 10_100n, collateral: ["WETH", "WSTETH"] });
    const ids = l.sim.lending.reserveSymbols(core.pool);
    const want = (1n << BigInt(ids.indexOf("WETH"))) | (1n << BigInt(ids.indexOf("WSTETH")));
    expect(decodeEModeCategory(1, await call(eModeCollateralConfigCall(core.pool, 1)), await call(eModeCollateralBitmapCall(core.pool, 1)))).toEqual({ id: 1, liquidationBonus: 10_100n, collateralBitmap: want });
    expect(decodeEModeCategoryLegacy(1, await call(eModeCategoryDataCall(core.pool, 1)))).toEqual({ id: 1, liquidationBonus: 10_100n, collateralBitmap: null });
    const inEMode = l.sim.lending.positions(core.pool).find((p) => p.eMode === 1)!;
    const outside = l.sim.lending.positions(core.pool).find((p) => p.eMode === 0)!;
    expect(decodeUserEMode(await call(userEModeCall(core.pool, inEMode.user)))).toBe(1);
    expect(decodeUserEMode(await call(userEModeCall(core.pool, outside.user)))).toBe(0);
    l.sim.lending.legacyEModeViews(spark.pool, true);
    try {
      expect(decodeEModeCategory(1, await call(eModeCollateralConfigCall(spark.pool, 1)), await call(eModeCollateralBitmapCall(spark.pool, 1)))).toBeNull();
      expect(decodeEModeCategoryLegacy(1, await call(eModeCategoryDataCall(spark.pool, 1)))).toMatchObject({ liquidationBonus: 10_100n });
    } finally {
      l.sim.lending.legacyEModeViews(spark.pool, false);
    }
  });

  describe("indexed and valued", () => {
    const usdc = (n: bigint) => n * 10n ** 6n;
    const eth = (n: bigint) => n * 10n ** 18n;
    const inside = "0x00000000000000000000000000000000000e0d01";
    const outside = "0x00000000000000000000000000000000000e0d02";
    const wbtcIn = "0x00000000000000000000000000000000000e0d03";

    beforeAll(async () => {
      for (const m of [core, spark]) {
        l.sim.lending.setReserveTerms(m.pool, "WSTETH", { lb: 10_600n, fee: 1_000n });
        l.sim.lending.setReserveTerms(m.pool, "WBTC", { lb: 10_500n, fee: 1_000n });
      }
      // 10 wstETH ($36,000) against $20,000 of USDC, in eMode 1 and outside it; 1 WBTC ($90,000) against $30,000 in eMode 1.
      l.sim.lending.open({ pool: core.pool, user: inside, collateral: "WSTETH", collateralAmount: eth(10n), debt: "USDC", debtAmount: usdc(20_000n), eMode: 1 });
      l.sim.lending.open({ pool: core.pool, user: outside, collateral: "WSTETH", collateralAmount: eth(10n), debt: "USDC", debtAmount: usdc(20_000n) });
      l.sim.lending.open({ pool: core.pool, user: wbtcIn, collateral: "WBTC", collateralAmount: 10n ** 8n, debt: "USDC", debtAmount: usdc(30_000n), eMode: 1 });
      l.sim.mine(3);
    });

    const rowsNow = async () => {
      const rows = rowsOf((await ask()).opportunities, core.id);
      return [inside, outside, wbtcIn].map((u) => rows.find((r) => r.borrower === u)!);
    };
    const expectEModeValues = async () => {
      const [a, b, c] = await rowsNow();
      expect(a).toMatchObject({ bonus_bps: 100, bonus_source: "aave_emode", emode_category: 1, protocol_fee_bps: 1_000, collateral_reserve: ASSETS.WSTETH!.address });
      expect(b).toMatchObject({ bonus_bps: 600, bonus_source: "aave_position_reserve", emode_category: null, protocol_fee_bps: 1_000, collateral_reserve: ASSETS.WSTETH!.address });
      // In eMode 1, but WBTC is not its collateral: the reserve's 5 %.
      expect(c).toMatchObject({ bonus_bps: 500, bonus_source: "aave_position_reserve", emode_category: null, collateral_reserve: ASSETS.WBTC!.address });
      // The gross bonus is repayable × 1 % for the eMode row (within a cent).
      const want = (BigInt(a!.repayable_usd.replace(".", "")) * 100n) / 10_000n;
      expect(Number(BigInt(a!.gross_bonus_usd.replace(".", "")) - want)).toBeGreaterThanOrEqual(0);
      expect(Number(BigInt(a!.gross_bonus_usd.replace(".", "")) - want)).toBeLessThanOrEqual(1);
    };

    it("V3.2+ Pool: wstETH in eMode 1 at the category's 100 bps, outside eMode at the reserve's 600, WBTC in eMode 1 at its reserve's", async () => {
      const r = await indexLendingOnce(l.deps);
      expect(r.markets.find((m) => m.market === core.id)!.error).toBeNull();
      await expectEModeValues();
      const stored = await positionsBelow(l.db.db, { markets: [core.id], maxHfWad: 1_000n * WAD, minDebtBase: 0n });
      expect(stored.find((p) => p.borrower === inside)!.reserveTerms).toEqual({ asset: ASSETS.WSTETH!.address, bonusBps: 100n, protocolFeeBps: 1_000n, emodeCategory: 1 });
      expect(stored.find((p) => p.borrower === outside)!.reserveTerms).toEqual({ asset: ASSETS.WSTETH!.address, bonusBps: 600n, protocolFeeBps: 1_000n });
    });

    it("a V3.0/3.1 Pool (getEModeCategoryData, the reserves' category bits) gives the same values", async () => {
      l.sim.lending.legacyEModeViews(core.pool, true);
      try {
        // Start from the reserve terms, so the eMode values can only come from this run's legacy read.
        await db_clearEMode();
        l.sim.mine(1);
        const r = await indexLendingOnce(l.deps);
        expect(r.markets.find((m) => m.market === core.id)!.error).toBeNull();
        await expectEModeValues();
        expectOwnTerms(rowsOf((await ask()).opportunities, core.id), { bonus_bps: -1, bonus_source: "none", protocol_fee_bps: -1 });
      } finally {
        l.sim.lending.legacyEModeViews(core.pool, false);
      }
    });

    it("a failed eMode category read values the positions with their reserves' terms and never fails the market", async () => {
      l.sim.lending.failEModeViews(core.pool, true);
      try {
        l.sim.mine(1);
        const r = await indexLendingOnce(l.deps);
        expect(r.markets.map((m) => m.error)).toEqual(r.markets.map(() => null));
        const [a, b, c] = await rowsNow();
        expect(a).toMatchObject({ bonus_bps: 600, bonus_source: "aave_position_reserve", emode_category: null, protocol_fee_bps: 1_000 });
        expect(b).toMatchObject({ bonus_bps: 600, bonus_source: "aave_position_reserve" });
        expect(c).toMatchObject({ bonus_bps: 500, bonus_source: "aave_position_reserve" });
        // Spark's category views still answer: its eMode positions keep the category's bonus.
        expect(rowsOf((await ask()).opportunities, spark.id).some((x) => x.bonus_source === "aave_emode")).toBe(true);
      } finally {
        l.sim.lending.failEModeViews(core.pool, false);
      }
      l.sim.mine(1);
      await indexLendingOnce(l.deps);
      await expectEModeValues();
    });
  });
});

/** Clears the stored eMode terms of every position (back to null reserve terms), so a run must read them again. */
async function db_clearEMode() {
  await l.db.db.updateTable("lending_positions").set({ collateral_reserve: null, reserve_bonus_bps: null, reserve_protocol_fee_bps: null, emode_category: null }).execute();
}
