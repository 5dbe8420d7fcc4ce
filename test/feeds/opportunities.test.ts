/**
 * The opportunities feed values each position with the bonus its own
 * protocol pays, not one 5 % for all: Aave V3 / SparkLend the liquidation
 * bonus and protocol fee of the position's own collateral reserve that pays
 * the most (the market's principal reserve's when that was not read), Compound V3
 * Comet's storefront discount d paid as d / (1 − d) (both as the lending
 * indexer read them from the chain), Morpho Blue LIF − 1 from the market's
 * LLTV (Morpho.sol: min(1.15, 1 / (0.3 · LLTV + 0.7))); `bonus_bps`
 * overrides the bonus for every row. Checked on positions the lending
 * indexer stored from the devnet L1, against values worked out here by hand
 * from the devnet's parameters. (test/oracle/lending-terms.test.ts follows
 * a change of those parameters and the fallback before the first read.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LENDING_MARKETS, WAD } from "../../src/chains/ethereum/lending.js";
import { ASSETS } from "../../src/chains/ethereum/flashloans.js";
import { ManualClock } from "../../src/core/clock.js";
import {
  cometDiscountWad,
  computeOpportunities,
  defaultBonus,
  discountToBonusBps,
  morphoBonusBps,
  OpportunitiesInput,
  type OpportunitiesDeps,
  type OpportunityRow,
} from "../../src/feeds/opportunities.js";
import { positionsBelow } from "../../src/ingest/lending-store.js";
import { startLendingDevnet, type LendingDevnet } from "../helpers/lending-devnet.js";

const clock = new ManualClock(Date.now());
const E16 = 10n ** 16n;
const market = (id: string) => LENDING_MARKETS.find((m) => m.id === id)!;
let l: LendingDevnet;
let deps: OpportunitiesDeps;

/** Morpho.sol liquidate, written out: LIF = min(1.15, WAD²/(WAD − 0.3·(WAD − LLTV))), each step rounded down; the bonus is LIF − 1 in bps. */
const lifBonusBpsByHand = (lltv: bigint) => {
  const lif = (WAD * WAD) / (WAD - (3n * 10n ** 17n * (WAD - lltv)) / WAD);
  const capped = lif < 115n * E16 ? lif : 115n * E16;
  return Number(((capped - WAD) * 10_000n) / WAD);
};

const ask = async (q: Record<string, string>) => computeOpportunities({ ctx: deps, input: OpportunitiesInput.parse({ max_hf: "1000", limit: "500", ...q }) });

beforeAll(async () => {
  // The seed of the Compound/Morpho indexer test: every protocol has borrowers.
  l = await startLendingDevnet({ clock, seed: 4242, batchBlocks: 100 });
  await l.drain();
  deps = { db: l.db.db, rpc: l.rpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: 10 ** 9 };
}, 60_000);

afterAll(async () => {
  await l?.close();
});

/**
 * Each devnet Comet's lowest storefront discount d as d / (1 − d), worked out by hand from its parameters
 * (devnet/ethereum-comet.ts): cUSDCv3 0.5 × (1 − 0.9) = 5 % → 5 / 95; cWETHv3 0.5 × (1 − 0.96) = 2 % → 2 / 98;
 * cUSDTv3 0.5 × (1 − 0.95) = 2.5 % → 2.5 / 97.5; cUSDSv3 0.6 × (1 − 0.95) = 3 % → 3 / 97;
 * cWstETHv3 0.7 × (1 − 0.96) = 2.8 % → 2.8 / 97.2.
 */
const COMET_BONUS_BY_HAND: Record<string, number> = { "compound-v3-usdc": 526, "compound-v3-weth": 204, "compound-v3-usdt": 256, "compound-v3-usds": 309, "compound-v3-wsteth": 288 };
/** The devnet Pools' collateral reserves: WETH and WBTC at liquidationBonus 105 %, wstETH at 106 %; liquidationProtocolFee 10 %. */
const AAVE_BONUS_BY_HAND: Record<string, number> = { WETH: 500, WBTC: 500, WSTETH: 600 };

describe("each protocol's own bonus", () => {
  it("Morpho Blue: LIF − 1 from the LLTV (86 % → 4.38 %, 91.5 % → 2.61 %, 94.5 % → 1.67 %, capped at 15 %)", () => {
    expect([8_600, 9_150, 9_450, 3_850, 0].map((b) => Number(morphoBonusBps(b)))).toEqual([438, 261, 167, 1_500, 1_500]);
    for (const b of [3_850, 6_250, 7_700, 8_600, 9_150, 9_450, 9_650, 9_800]) expect(Number(morphoBonusBps(b)), `${b}`).toBe(lifBonusBpsByHand(BigInt(b) * 10n ** 14n));
  });

  it("Compound V3: the storefront discount d = storeFrontPriceFactor × (1 − liquidationFactor), paid as d / (1 − d)", () => {
    // 0.5 × (1 − 0.95) = 2.5 %: 0.025 / 0.975 = 2.564 % on what the buyer pays.
    expect(cometDiscountWad(50n * E16, 95n * E16)).toBe(25n * 10n ** 15n);
    expect(discountToBonusBps(25n * 10n ** 15n)).toBe(256n);
    // 0.5 × (1 − 0.93) = 3.5 % → 3.627 %.
    expect(discountToBonusBps(cometDiscountWad(50n * E16, 93n * E16))).toBe(362n);
  });

  it("defaultBonus: the market's stored terms, Morpho from the LLTV, the fallback for a market not read yet", () => {
    const terms = new Map([
      ["compound-v3-usdc", { bonusBps: 526n, protocolFeeBps: 0n, source: "comet_storefront" as const }],
      ["aave-v3-core", { bonusBps: 750n, protocolFeeBps: 2_000n, source: "aave_reserve" as const }],
    ]);
    const none = { collateralReserve: null };
    expect(defaultBonus(market("compound-v3-usdc"), { liquidationThresholdBps: 8_500 }, terms)).toEqual({ bps: 526n, source: "comet_storefront", protocolFeeBps: 0n, ...none });
    expect(defaultBonus(market("aave-v3-core"), { liquidationThresholdBps: 8_300 }, terms)).toEqual({ bps: 750n, source: "aave_reserve", protocolFeeBps: 2_000n, ...none });
    // A position's own collateral reserve's terms come first, for Aave and Spark (read or not the market's)…
    const wsteth = { asset: ASSETS.WSTETH!.address, bonusBps: 600n, protocolFeeBps: 1_500n };
    const own = { bps: 600n, source: "aave_position_reserve", protocolFeeBps: 1_500n, collateralReserve: ASSETS.WSTETH!.address };
    expect(defaultBonus(market("aave-v3-core"), { liquidationThresholdBps: 8_100, reserveTerms: wsteth }, terms)).toEqual(own);
    expect(defaultBonus(market("sparklend"), { liquidationThresholdBps: 8_100, reserveTerms: wsteth }, terms)).toEqual(own);
    expect(defaultBonus(market("aave-v3-core"), { liquidationThresholdBps: 8_100, reserveTerms: null }, terms)).toMatchObject({ bps: 750n, source: "aave_reserve" });
    // …and mean nothing to another protocol.
    expect(defaultBonus(market("compound-v3-usdc"), { liquidationThresholdBps: 8_500, reserveTerms: wsteth }, terms)).toMatchObject({ bps: 526n, source: "comet_storefront" });
    // Not read yet: 5 %, with Aave's usual 10 % fee for the Aave family and none for Comet.
    expect(defaultBonus(market("sparklend"), { liquidationThresholdBps: 8_300 }, terms)).toEqual({ bps: 500n, source: "fallback", protocolFeeBps: 1_000n, ...none });
    expect(defaultBonus(market("compound-v3-weth"), { liquidationThresholdBps: 9_300 }, terms)).toEqual({ bps: 500n, source: "fallback", protocolFeeBps: 0n, ...none });
    // Morpho Blue ignores stored terms: its incentive is per isolated market.
    expect(defaultBonus(market("morpho-blue"), { liquidationThresholdBps: 8_600 }, new Map([["morpho-blue", { bonusBps: 1n, protocolFeeBps: 1n, source: "aave_reserve" as const }]]))).toEqual({
      bps: 438n,
      source: "morpho_lltv",
      protocolFeeBps: 0n,
      collateralReserve: null,
    });
  });
});

describe("the feed on the devnet's indexed positions", () => {
  const cents = (usd: string) => BigInt(usd.replace(".", ""));

  it("values every row with its protocol's bonus and cut, and says which", async () => {
    const r = await ask({});
    expect(r.filters.bonus_bps).toBeNull();
    const byProtocol = new Map<string, OpportunityRow[]>();
    for (const row of r.opportunities) byProtocol.set(row.protocol, [...(byProtocol.get(row.protocol) ?? []), row]);
    expect([...byProtocol.keys()].sort()).toEqual(["aave", "compound", "morpho", "spark"]);

    const lltvOf = new Map(l.sim.morpho.markets().map((m) => [m.id, m.params.lltv]));
    const aavePosition = (row: OpportunityRow) => l.sim.lending.positions(market(row.market).pool).find((p) => p.user === row.borrower)!;
    const aaveCollateral = (row: OpportunityRow) => aavePosition(row).collateral;
    // eMode 1 ("ETH correlated" on the devnet): WETH and wstETH collateral pays the category's 1 %.
    const inEMode = (row: OpportunityRow) => aavePosition(row).eMode === 1 && ["WETH", "WSTETH"].includes(aaveCollateral(row));
    for (const row of r.opportunities) {
      const expected =
        row.protocol === "morpho"
          ? { bonus_bps: lifBonusBpsByHand(lltvOf.get(row.isolated_market!)!), bonus_source: "morpho_lltv", protocol_fee_bps: 0, collateral_reserve: null }
          : row.protocol === "compound"
            ? { bonus_bps: COMET_BONUS_BY_HAND[row.market], bonus_source: "comet_storefront", protocol_fee_bps: 0, collateral_reserve: null }
            : {
                bonus_bps: inEMode(row) ? 100 : AAVE_BONUS_BY_HAND[aaveCollateral(row)],
                bonus_source: inEMode(row) ? "aave_emode" : "aave_position_reserve",
                protocol_fee_bps: 1_000,
                collateral_reserve: ASSETS[aaveCollateral(row)]!.address,
                emode_category: inEMode(row) ? 1 : null,
              };
      expect(row, `${row.market} ${row.borrower}`).toMatchObject(expected);
      expect(row.isolated_market === null, row.market).toBe(row.protocol !== "morpho");
      // gross = repay × bonus (both rounded down to cents here): within a cent.
      const gross = (cents(row.repayable_usd) * BigInt(row.bonus_bps)) / 10_000n;
      expect(Number(cents(row.gross_bonus_usd) - gross), row.borrower).toBeGreaterThanOrEqual(0);
      expect(Number(cents(row.gross_bonus_usd) - gross), row.borrower).toBeLessThanOrEqual(1);
      if (row.protocol_fee_bps === 0) expect(row.protocol_cut_usd).toBe("0.00");
      else expect(Number(cents(row.protocol_cut_usd))).toBeCloseTo(Number(cents(row.gross_bonus_usd)) / 10, -1);
    }
    expect(r.assumptions.protocol_fee_bps).toBe(1_000);
    // The devnet's Morpho markets have LLTVs 86 % and 94.5 %: two different bonuses, neither the old flat 5 %.
    expect(new Set(byProtocol.get("morpho")!.map((x) => x.bonus_bps))).toEqual(new Set([438, 167]));
    // Aave and Spark positions backed by wstETH are valued at 6 %, the others at 5 %, those in eMode 1 at 1 %.
    expect(new Set([...byProtocol.get("aave")!, ...byProtocol.get("spark")!].map((x) => x.bonus_bps))).toEqual(new Set([100, 500, 600]));
  });

  it("bonus_bps overrides every row's bonus, and the rows say so", async () => {
    const own = await ask({ protocol: "morpho", limit: "5" });
    const forced = await ask({ protocol: "morpho", limit: "5", bonus_bps: "700" });
    expect(forced.filters.bonus_bps).toBe(700);
    expect(forced.opportunities.length).toBeGreaterThan(0);
    for (const row of forced.opportunities) expect(row).toMatchObject({ bonus_bps: 700, bonus_source: "query", protocol_fee_bps: 0 });
    // A higher bonus than the markets' own (4.38 %, 1.67 %) values the best row higher.
    expect(Number(forced.opportunities[0]!.gross_bonus_usd)).toBeGreaterThan(Number(own.opportunities[0]!.gross_bonus_usd));
    // Every stored Morpho position is among the rows, each with its own market's bonus when not forced.
    const stored = await positionsBelow(l.db.db, { markets: ["morpho-blue"], maxHfWad: 1_000n * WAD, minDebtBase: 0n });
    const all = await ask({ protocol: "morpho" });
    expect(all.opportunities.length).toBe(Math.min(500, stored.length));
  });
});
