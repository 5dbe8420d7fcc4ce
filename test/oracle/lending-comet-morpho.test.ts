/**
 * Compound V3 and Morpho Blue in the lending indexer, against the devnet L1
 * over real loopback sockets: the event topics are the published ones;
 * borrowers are discovered from each contract's events (Comet:
 * SupplyCollateral/Withdraw/…; Morpho: CreateMarket, SupplyCollateral/Borrow/
 * …) and their health read through Multicall3 equals the value computed by
 * hand from the simulated contract state; a position pushed under HF 1 is
 * found liquidatable, then absorbed/liquidated and recorded once with its
 * USD value, also when the same range is indexed again; the questions filter
 * by the new protocols; a node that refuses one market's eth_getLogs leaves
 * the other markets indexed. The Comets are all the simulated ones (cUSDCv3,
 * cWETHv3, cUSDTv3, cWstETHv3 — the last two indexed by rows added to the
 * market table); cUSDSv3 is indexed with nothing behind it on the devnet
 * but its liquidation terms.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EthRpc } from "../../src/chains/ethereum/rpc.js";
import { LENDING_MARKETS, WAD } from "../../src/chains/ethereum/lending.js";
import { ASSETS } from "../../src/chains/ethereum/flashloans.js";
import {
  COMET_TOPIC_ABSORB_COLLATERAL,
  COMET_TOPIC_ABSORB_DEBT,
  COMET_TOPIC_SUPPLY_COLLATERAL,
  COMET_TOPIC_WITHDRAW,
  cometHealth,
} from "../../src/chains/ethereum/comet.js";
import {
  liquidationIncentiveFactor,
  MORPHO_BLUE,
  MORPHO_TOPIC_BORROW,
  MORPHO_TOPIC_CREATE_MARKET,
  MORPHO_TOPIC_LIQUIDATE,
  MORPHO_TOPIC_SUPPLY_COLLATERAL,
  toAssetsUp,
} from "../../src/chains/ethereum/morpho.js";
import type { DevnetEthereum } from "../../devnet/ethereum.js";
import { DEVNET_MORPHO_BORROW_RATE } from "../../devnet/ethereum-morpho.js";
import { indexLendingOnce, type LendingIndexerDeps } from "../../src/ingest/lending-indexer.js";
import { cursors, liquidationsSince, positionsOf, trackedPositions } from "../../src/ingest/lending-store.js";
import { lendingQuestions } from "../../src/oracle/questions/lending.js";
import { ManualClock } from "../../src/core/clock.js";
import type { TestDatabase } from "../helpers/db.js";
import { startLendingDevnet, type LendingDevnet } from "../helpers/lending-devnet.js";

let l: LendingDevnet;
let db: TestDatabase;
let sim: DevnetEthereum;
let rpc: EthRpc;
let deps: LendingIndexerDeps;
const clock = new ManualClock(Date.now());
const usdc = LENDING_MARKETS.find((m) => m.id === "compound-v3-usdc")!;
const weth = LENDING_MARKETS.find((m) => m.id === "compound-v3-weth")!;
const usdt = LENDING_MARKETS.find((m) => m.id === "compound-v3-usdt")!;
const wsteth = LENDING_MARKETS.find((m) => m.id === "compound-v3-wsteth")!;
/** Indexed but not simulated (no USDS on the devnet): no positions, no events; it answers only its liquidation terms. */
const usds = LENDING_MARKETS.find((m) => m.id === "compound-v3-usds")!;
/** The simulated Comets, their base and liquidateCollateralFactor (‰) per asset, written out here. */
const COMETS: { m: typeof usdc; base: string; cfs: Record<string, bigint> }[] = [
  { m: usdc, base: "USDC", cfs: { WETH: 850n, WBTC: 800n, WSTETH: 850n } },
  { m: weth, base: "WETH", cfs: { WSTETH: 950n, RETH: 930n, CBETH: 930n } },
  { m: usdt, base: "USDT", cfs: { WETH: 895n, WBTC: 770n, WSTETH: 895n } },
  { m: wsteth, base: "WSTETH", cfs: { WETH: 930n, USDC: 830n, USDT: 830n } },
];
const morpho = LENDING_MARKETS.find((m) => m.id === "morpho-blue")!;

const drain = (d?: LendingIndexerDeps) => l.drain(d);
const E8 = 10n ** 8n;
const E18 = 10n ** 18n;
/**
 * Morpho.sol `_accrueInterest` written out for the test: z = rate × elapsed; interest =
 * total × (z + z²/2e18 + z³/(2e18 · 3e18)) / 1e18, each step rounded down (MathLib wTaylorCompounded, wMulDown).
 */
const accruedByHand = (m: { totalBorrowAssets: bigint; lastUpdate: bigint }, now: bigint): bigint => {
  if (now <= m.lastUpdate || m.totalBorrowAssets === 0n) return m.totalBorrowAssets;
  const z = DEVNET_MORPHO_BORROW_RATE * (now - m.lastUpdate);
  const z2 = (z * z) / (2n * E18);
  const z3 = (z2 * z) / (3n * E18);
  return m.totalBorrowAssets + (m.totalBorrowAssets * (z + z2 + z3)) / E18;
};

/** Lets the absorbers run until `user` is gone from the Comet, then indexes the blocks after it. */
const absorbAndIndex = async (comet: string, user: string) => {
  sim.comet.pauseAbsorbers(false);
  for (let i = 0; i < 30 && sim.comet.positions(comet).some((p) => p.user === user); i++) sim.mine(1);
  expect(sim.comet.positions(comet).some((p) => p.user === user)).toBe(false);
  sim.mine(3);
  await drain();
};
/** Stops the simulation and the absorbers, opens a Comet position by hand and indexes the blocks after it. */
const openHeld = async (p: { comet: string; user: string; collateral: string; collateralAmount: bigint; borrow: bigint }) => {
  l.freezeAll(true);
  sim.comet.pauseAbsorbers(true);
  sim.comet.open(p);
  sim.mine(3);
  await drain();
};
/** Moves a price and indexes the blocks after it. */
const shockAndIndex = async (symbol: "WETH" | "WBTC", bps: number) => {
  sim.lending.shock(symbol, bps);
  sim.mine(3);
  await drain();
};

beforeAll(async () => {
  l = await startLendingDevnet({ clock, seed: 4242, batchBlocks: 100 });
  ({ db, sim, rpc, deps } = l);
});

afterAll(async () => {
  await l.close();
});

describe("Compound V3 and Morpho Blue: protocol facts", () => {
  it("event topics are the published ones (research §3.2, §3.3)", () => {
    expect(COMET_TOPIC_ABSORB_DEBT).toBe("0x1547a878dc89ad3c367b6338b4be6a65a5dd74fb77ae044da1e8747ef1f4f62f");
    expect(COMET_TOPIC_ABSORB_COLLATERAL).toBe("0x9850ab1af75177e4a9201c65a2cf7976d5d28e40ef63494b44366f86b2f9412e");
    expect(COMET_TOPIC_WITHDRAW).toBe("0x9b1bfa7fa9ee420a16e124f794c35ac9f90472acc99140eb2f6447c714cad8eb");
    expect(COMET_TOPIC_SUPPLY_COLLATERAL).toBe("0xfa56f7b24f17183d81894d3ac2ee654e3c26388d17a28dbd9549b8114304e1f4");
    expect(MORPHO_TOPIC_LIQUIDATE).toBe("0xa4946ede45d0c6f06a0f5ce92c9ad3b4751452d2fe0e25010783bcab57a67e41");
    expect(MORPHO_TOPIC_BORROW).toBe("0x570954540bed6b1304a87dfe815a5eda4a648f7097a16240dcd85c9b5fd42a43");
    expect(MORPHO_TOPIC_SUPPLY_COLLATERAL).toBe("0xa3b9472a1399e17e123f3c2e6586c23e504184d504de59cdaa2b375e880c6184");
    expect(MORPHO_TOPIC_CREATE_MARKET).toBe("0xac4b2400f169220b0c0afdde7a0b32e775ba727ea1cb30b35f935cdaab8683ac");
  });

  it("the liquidation incentive factor follows min(1.15, 1/(1 − 0.3(1 − LLTV)))", () => {
    // Research §3.3 examples: 86 % → 1.0438, 91.5 % → 1.0262, 94.5 % → 1.0168; a low LLTV hits the 1.15 cap.
    expect(Number(liquidationIncentiveFactor(860n * 10n ** 15n)) / 1e18).toBeCloseTo(1.0438, 4);
    expect(Number(liquidationIncentiveFactor(915n * 10n ** 15n)) / 1e18).toBeCloseTo(1.0262, 4);
    expect(Number(liquidationIncentiveFactor(945n * 10n ** 15n)) / 1e18).toBeCloseTo(1.0168, 4);
    expect(liquidationIncentiveFactor(385n * 10n ** 15n)).toBe(115n * 10n ** 16n);
  });

  it("Comet's HF agrees with isLiquidatable at the boundary", () => {
    const m = { baseToken: "0x", baseScale: 10n ** 6n, basePrice: E8, assets: [{ asset: "0x", priceFeed: "0x", scale: E18, liquidateCF: 85n * 10n ** 16n, price: 1_000n * E8 }] };
    // 1 unit at $1,000 × 0.85 = $850 against $850 of debt: exactly 1, not liquidatable by the contract's strict test.
    expect(cometHealth(m, 850n * 10n ** 6n, [E18], E8, false).healthFactorWad).toBe(WAD);
    expect(cometHealth(m, 850n * 10n ** 6n + 1n, [E18], E8, true).healthFactorWad).toBeLessThan(WAD);
    // Rounding that disagrees with the contract's answer yields to it.
    expect(cometHealth(m, 850n * 10n ** 6n, [E18], E8, true).healthFactorWad).toBe(WAD - 1n);
  });
});

describe("Compound V3 and Morpho Blue on the devnet", () => {
  it("discovers every simulated borrower from the events and tracks their positions", async () => {
    const r = await drain();
    expect(r.markets.map((m) => m.error)).toEqual(r.markets.map(() => null));
    for (const { m: c } of COMETS) {
      const simUsers = sim.comet.positions(c.pool).map((p) => p.user).sort();
      const tracked = (await trackedPositions(db.db, c.id)).map((p) => p.borrower).sort();
      expect(simUsers.length, c.id).toBeGreaterThan(10);
      expect(tracked, c.id).toEqual(simUsers);
    }
    const simMorpho = sim.morpho.positions().map((p) => `${p.user}:${p.id}`).sort();
    const trackedMorpho = (await trackedPositions(db.db, morpho.id)).map((p) => `${p.borrower}:${p.subMarket}`).sort();
    expect(simMorpho.length).toBeGreaterThan(20);
    expect(trackedMorpho).toEqual(simMorpho);
    // All three devnet markets are among them, each found by id.
    expect(new Set(trackedMorpho.map((k) => k.split(":")[1])).size).toBe(3);
    const cs = await cursors(db.db);
    for (const id of [...COMETS.map((c) => c.m.id), usds.id, morpho.id]) expect(cs.find((c) => c.market === id)?.lastBlock, id).toBe(sim.head().number - 2n);
    // cUSDSv3 has no positions on the devnet: indexed, nothing found.
    expect(await trackedPositions(db.db, usds.id)).toEqual([]);
  });

  it("health factors, collateral and debt equal the values computed by hand from the contract state", async () => {
    // Comet: HF = Σ balance × price / scale × liquidateCF / (borrow × basePrice / baseScale); USD via the base token's oracle price.
    // cWETHv3's and cWstETHv3's feeds answer in their base token (the base feed is 1e8), the others' in USD.
    expect(sim.comet.feedPrice(weth.pool, "WETH")).toBe(E8);
    expect(sim.comet.feedPrice(wsteth.pool, "WSTETH")).toBe(E8);
    expect(sim.comet.feedPrice(wsteth.pool, "USDC")).toBe((sim.lending.price("USDC") * E8) / sim.lending.price("WSTETH"));
    expect(sim.comet.feedPrice(usdt.pool, "USDT")).toBe(sim.lending.price("USDT"));
    for (const { m: c, base, cfs } of COMETS) {
      const sc = sim.comet.positions(c.pool).slice(0, 8);
      expect(sc.length, c.id).toBeGreaterThan(0);
      for (const p of sc) {
        let value = 0n;
        let weighted = 0n;
        for (const [sym, bal] of Object.entries(p.collateral)) {
          const v = (bal * sim.comet.feedPrice(c.pool, sym)) / 10n ** BigInt(ASSETS[sym]!.decimals);
          value += v;
          weighted += (v * cfs[sym]! * 10n ** 15n) / E18;
        }
        const baseScale = 10n ** BigInt(ASSETS[base]!.decimals);
        const debtValue = (p.borrow * sim.comet.feedPrice(c.pool, base)) / baseScale;
        const [stored] = await positionsOf(db.db, p.user, [c.id]);
        expect(stored, `${c.id} ${p.user}`).toBeDefined();
        expect(stored!.healthFactorWad).toBe((weighted * WAD) / debtValue);
        expect(stored!.debtBase).toBe((p.borrow * sim.lending.price(base)) / baseScale);
        expect(stored!.collateralBase).toBe((value * sim.lending.price(base)) / sim.comet.feedPrice(c.pool, base));
        expect(stored!.liquidationThresholdBps).toBe(Number((weighted * 10_000n) / value));
      }
    }
    // Morpho: borrowed = shares → assets (rounding up, virtual shares), HF = floor(collateral × price / 1e36) × LLTV / borrowed.
    const markets = new Map(sim.morpho.markets().map((m) => [m.id, m]));
    // The borrow total includes the interest since the market's last update at the head's time (autoMine is off).
    const now = BigInt(sim.head().timestamp);
    for (const p of sim.morpho.positions().slice(0, 10)) {
      const m = markets.get(p.id)!;
      const borrowed = toAssetsUp(p.borrowShares, accruedByHand(m, now), m.totalBorrowShares);
      const inLoan = (p.collateral * sim.morpho.oraclePrice(p.id)) / 10n ** 36n;
      const loanScale = 10n ** BigInt(ASSETS[m.loan]!.decimals);
      const stored = (await positionsOf(db.db, p.user, [morpho.id])).find((x) => x.subMarket === p.id)!;
      expect(stored.healthFactorWad).toBe((inLoan * m.params.lltv) / borrowed);
      expect(stored.debtBase).toBe((borrowed * sim.lending.price(m.loan)) / loanScale);
      expect(stored.collateralBase).toBe((inLoan * sim.lending.price(m.loan)) / loanScale);
      expect(stored.liquidationThresholdBps).toBe(Number(m.params.lltv / 10n ** 14n));
    }
  });

  it("Morpho debt includes the interest since a market's last update at the IRM's rate, when blocks pass with the markets untouched", async () => {
    l.freezeAll(true);
    try {
      sim.mine(10);
      await drain();
      const now = BigInt(sim.head().timestamp);
      const markets = new Map(sim.morpho.markets().map((m) => [m.id, m]));
      const checked = sim.morpho.positions().filter((p) => p.borrowShares > 0n).slice(0, 8);
      expect(checked.length).toBeGreaterThan(0);
      for (const p of checked) {
        const m = markets.get(p.id)!;
        // Ten blocks of 12 s since the last accrual: the stored total alone is stale.
        expect(now - m.lastUpdate).toBeGreaterThanOrEqual(100n);
        const stale = toAssetsUp(p.borrowShares, m.totalBorrowAssets, m.totalBorrowShares);
        const borrowed = toAssetsUp(p.borrowShares, accruedByHand(m, now), m.totalBorrowShares);
        expect(borrowed).toBeGreaterThan(stale);
        const stored = (await positionsOf(db.db, p.user, [morpho.id])).find((x) => x.subMarket === p.id)!;
        expect(stored.debtBase).toBe((borrowed * sim.lending.price(m.loan)) / 10n ** BigInt(ASSETS[m.loan]!.decimals));
      }
    } finally {
      l.freezeAll(false);
    }
  });

  it("a hand-made Comet position: HF 10 WETH × price × 0.85 / 24,000 USDC, then absorbed once it drops under 1", async () => {
    const user = "0x00000000000000000000000000000000c0a11ce1";
    const price = sim.lending.price("WETH");
    // Borrow so that HF ≈ 1.01: 10 WETH × P × 0.85 / 1.01.
    const borrow = (((10n * price * 85n) / 100n) * 100n) / 101n / 100n; // USDC, 6 decimals (price has 8)
    await openHeld({ comet: usdc.pool, user, collateral: "WETH", collateralAmount: 10n * E18, borrow });
    const [before] = await positionsOf(db.db, user, [usdc.id]);
    const expected = (((10n * E18 * price) / E18) * 85n * 10n ** 16n / E18) * WAD / ((borrow * E8) / 10n ** 6n);
    expect(before!.healthFactorWad).toBe(expected);
    expect(before!.healthFactorWad).toBeGreaterThan(WAD);
    expect(before!.debtBase).toBe(borrow * 100n);

    await shockAndIndex("WETH", -300);
    const [under] = await positionsOf(db.db, user, [usdc.id]);
    expect(under!.healthFactorWad).toBeLessThan(WAD);
    expect(sim.comet.isLiquidatable(usdc.pool, user)).toBe(true);
    const q = lendingQuestions({ db: db.db, rpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: 10 ** 9 });
    const liq = await q.find((x) => x.path === "liquidatable")!.answerQuestion({ addr: user, protocol: "compound" });
    expect(liq).toMatchObject({ found: true, protocol: "compound", market: usdc.id, isolated_market: null, liquidatable: true, close_factor_bps: 10_000, liquidation_threshold_bps: 8_500 });
    const notAave = await q.find((x) => x.path === "liquidatable")!.answerQuestion({ addr: user, protocol: "aave" });
    expect(notAave).toMatchObject({ found: false, protocol_filter: "aave" });

    await absorbAndIndex(usdc.pool, user);
    const rows = await liquidationsSince(db.db, [usdc.id], 0, user);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ debtAsset: ASSETS.USDC!.address, collateralAsset: ASSETS.WETH!.address, collateralAmount: 10n * E18 });
    // absorb: basePaidOut = max(debt, collateral value × liquidationFactor 0.9); at HF ≈ 0.98 the collateral pays more than the debt.
    const shocked = sim.lending.price("WETH");
    const paidOut = (((10n * shocked * 9n * 10n ** 17n) / E18) * 10n ** 6n) / E8;
    expect(paidOut).toBeGreaterThan(borrow);
    expect(rows[0]!.debtToCover).toBe(paidOut);
    expect(rows[0]!.debtBase).toBe(paidOut * 100n);
    expect(await positionsOf(db.db, user, [usdc.id])).toEqual([]);
  });

  it("a hand-made Morpho position: found unhealthy, liquidated, recorded once even when the range is indexed again", async () => {
    sim.morpho.pauseLiquidators(true);
    const m = sim.morpho.markets().find((x) => x.loan === "USDC" && x.collateral === "WSTETH")!;
    const user = "0x000000000000000000000000000000000a0b1ce2";
    const inLoan = (10n * E18 * sim.morpho.oraclePrice(m.id)) / 10n ** 36n;
    // maxBorrow / 1.02
    const borrowAssets = (((inLoan * m.params.lltv) / E18) * 100n) / 102n;
    sim.morpho.open({ id: m.id, user, collateral: 10n * E18, borrowAssets });
    sim.mine(3);
    await drain();
    const [p] = sim.morpho.positions(m.id).filter((x) => x.user === user);
    const mm = sim.morpho.markets().find((x) => x.id === m.id)!;
    const borrowed = toAssetsUp(p!.borrowShares, accruedByHand(mm, BigInt(sim.head().timestamp)), mm.totalBorrowShares);
    const [stored] = await positionsOf(db.db, user, [morpho.id]);
    expect(stored!.subMarket).toBe(m.id);
    expect(stored!.healthFactorWad).toBe((inLoan * m.params.lltv) / borrowed);
    // Opened at HF 1.02; the three blocks mined since added 36 s of interest (≈ 0.075 % of the debt).
    expect(Number(stored!.healthFactorWad) / 1e18).toBeGreaterThan(1.018);
    expect(Number(stored!.healthFactorWad) / 1e18).toBeLessThan(1.02);

    sim.lending.shock("WETH", -400);
    sim.mine(3);
    await drain();
    const q = lendingQuestions({ db: db.db, rpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: 10 ** 9 });
    const liq = await q.find((x) => x.path === "liquidatable")!.answerQuestion({ addr: user, protocol: "morpho" });
    expect(liq).toMatchObject({ found: true, protocol: "morpho", market: "morpho-blue", isolated_market: m.id, liquidatable: true, close_factor_bps: 10_000, liquidation_threshold_bps: 8_600 });

    const start = sim.head().number;
    sim.morpho.pauseLiquidators(false);
    for (let i = 0; i < 30 && sim.morpho.positions(m.id).some((x) => x.user === user); i++) sim.mine(1);
    sim.mine(3);
    await drain();
    const rows = await liquidationsSince(db.db, [morpho.id], 0, user);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ subMarket: m.id, debtAsset: ASSETS.USDC!.address, collateralAsset: ASSETS.WSTETH!.address });
    expect(rows[0]!.debtToCover).toBeGreaterThan(0n);
    expect(rows[0]!.debtBase).toBe(rows[0]!.debtToCover * 100n);
    expect(await positionsOf(db.db, user, [morpho.id])).toEqual([]);

    // Index the same blocks again (the cursor moved back): the liquidation stays one row.
    await db.db.updateTable("lending_cursors").set({ last_block: String(start - 5n) }).where("market", "=", morpho.id).execute();
    await drain();
    expect(await liquidationsSince(db.db, [morpho.id], 0, user)).toHaveLength(1);
    l.freezeAll(false);
  });

  it("cUSDTv3 (a row of the table): a hand-made WBTC position's HF by hand, liquidatable under protocol=compound, absorbed and recorded once", async () => {
    try {
      const user = "0x00000000000000000000000000000000c0a11ce3";
      const price = sim.lending.price("WBTC");
      // 1 WBTC × P × 0.77 / 1.01 of USDT (6 decimals; P has 8, USDT is $1).
      const borrow = (price * 77n) / 10_100n;
      await openHeld({ comet: usdt.pool, user, collateral: "WBTC", collateralAmount: E8, borrow });
      const [before] = await positionsOf(db.db, user, [usdt.id]);
      expect(before!.healthFactorWad).toBe((((price * 770n * 10n ** 15n) / E18) * WAD) / (borrow * 100n));
      expect(before!.healthFactorWad).toBeGreaterThan(WAD);
      expect(before!.debtBase).toBe(borrow * 100n);
      expect(before!.collateralBase).toBe(price);

      await shockAndIndex("WBTC", -300);
      expect(sim.comet.isLiquidatable(usdt.pool, user)).toBe(true);
      const q = lendingQuestions({ db: db.db, rpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: 10 ** 9 });
      const liq = await q.find((x) => x.path === "liquidatable")!.answerQuestion({ addr: user, protocol: "compound" });
      // The threshold shown is the weighted liquidateCF in bps, rounded down as the HF's terms are (7,699 or 7,700).
      const v = sim.lending.price("WBTC");
      const lt = Number((((v * 770n * 10n ** 15n) / E18) * 10_000n) / v);
      expect(lt).toBeGreaterThanOrEqual(7_699);
      expect(liq).toMatchObject({ found: true, protocol: "compound", market: usdt.id, liquidatable: true, close_factor_bps: 10_000, liquidation_threshold_bps: lt });

      const start = sim.head().number;
      await absorbAndIndex(usdt.pool, user);
      const rows = await liquidationsSince(db.db, [usdt.id], 0, user);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ debtAsset: ASSETS.USDT!.address, collateralAsset: ASSETS.WBTC!.address, collateralAmount: E8 });
      // basePaidOut = max(debt, collateral value × liquidationFactor 0.95), the collateral's being larger under HF 1 here.
      const paidOut = (((sim.lending.price("WBTC") * 95n * 10n ** 16n) / E18) * 10n ** 6n) / E8;
      expect(paidOut).toBeGreaterThan(borrow);
      expect(rows[0]!.debtToCover).toBe(paidOut);
      expect(rows[0]!.debtBase).toBe(paidOut * 100n);
      expect(await positionsOf(db.db, user, [usdt.id])).toEqual([]);
      // The same blocks indexed again: still one row.
      await db.db.updateTable("lending_cursors").set({ last_block: String(start - 5n) }).where("market", "=", usdt.id).execute();
      await drain();
      expect(await liquidationsSince(db.db, [usdt.id], 0, user)).toHaveLength(1);
    } finally {
      l.freezeAll(false);
    }
  });

  it("cWstETHv3: feeds in wstETH are brought to USD with the oracle's wstETH price; a USDC-backed wstETH borrow goes under as ETH rises and is absorbed", async () => {
    try {
      const user = "0x00000000000000000000000000000000c0a11ce4";
      const usdcAmount = 100_000n * 10n ** 6n;
      // USDC's feed answers in wstETH: $1 / the wstETH price, 8 decimals.
      const feed = (E8 * E8) / sim.lending.price("WSTETH");
      const value = (usdcAmount * feed) / 10n ** 6n;
      const weighted = (value * 830n * 10n ** 15n) / E18;
      // Borrow wstETH (18 decimals) at HF ≈ 1.01 in the Comet's own units.
      const borrow = (((weighted * E18) / E8) * 100n) / 101n;
      await openHeld({ comet: wsteth.pool, user, collateral: "USDC", collateralAmount: usdcAmount, borrow });
      const pw = sim.lending.price("WSTETH");
      const [before] = await positionsOf(db.db, user, [wsteth.id]);
      expect(before!.healthFactorWad).toBe((weighted * WAD) / ((borrow * E8) / E18));
      expect(before!.debtBase).toBe((borrow * pw) / E18);
      expect(before!.collateralBase).toBe((value * pw) / E8);
      // $100,000 of USDC stays $100,000 through the wstETH units but for the feed's rounding (8 decimals of ≈ 0.0003 wstETH: < 0.01 %).
      expect(before!.collateralBase).toBeLessThanOrEqual(100_000n * E8);
      expect(before!.collateralBase).toBeGreaterThan(99_990n * E8);
      expect(before!.liquidationThresholdBps).toBe(Number((weighted * 10_000n) / value));

      await shockAndIndex("WETH", 300);
      expect(sim.comet.isLiquidatable(wsteth.pool, user)).toBe(true);
      const [under] = await positionsOf(db.db, user, [wsteth.id]);
      expect(under!.healthFactorWad).toBeLessThan(WAD);

      await absorbAndIndex(wsteth.pool, user);
      const rows = await liquidationsSince(db.db, [wsteth.id], 0, user);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ debtAsset: ASSETS.WSTETH!.address, collateralAsset: ASSETS.USDC!.address, collateralAmount: usdcAmount });
      // basePaidOut in wstETH: the collateral's wstETH value × liquidationFactor 0.9 (more than the debt here); in USD at the oracle's wstETH price.
      const shockedValue = (usdcAmount * ((E8 * E8) / sim.lending.price("WSTETH"))) / 10n ** 6n;
      const paidOut = (((shockedValue * 9n * 10n ** 17n) / E18) * E18) / E8;
      expect(paidOut).toBeGreaterThan(borrow);
      expect(rows[0]!.debtToCover).toBe(paidOut);
      expect(rows[0]!.debtBase).toBe((paidOut * sim.lending.price("WSTETH")) / E18);
    } finally {
      l.freezeAll(false);
    }
  });

  it("the questions filter by the new protocols", async () => {
    sim.mine(40);
    await drain();
    const q = lendingQuestions({ db: db.db, rpc, clock, markets: LENDING_MARKETS, maxAgeSeconds: 10 ** 9 });
    const ask = (path: string, p: Record<string, string>) => q.find((x) => x.path === path)!.answerQuestion(p) as Promise<any>;
    const counts = await Promise.all(["all", "aave", "spark", "compound", "morpho"].map((protocol) => ask("at-risk-count", { max_hf: "1000", protocol })));
    const [all, aave, spark, compound, morphoCount] = counts;
    let tracked = 0;
    for (const c of [...COMETS.map((x) => x.m), usds]) tracked += (await trackedPositions(db.db, c.id)).length;
    expect(compound.count).toBe(tracked);
    expect(morphoCount.count).toBe((await trackedPositions(db.db, morpho.id)).length);
    expect(aave.count + spark.count + compound.count + morphoCount.count).toBe(all.count);
    const recent = await Promise.all(["all", "compound", "morpho"].map((protocol) => ask("recent-liquidations", { since_min: "1440", protocol })));
    const cometIds = [...COMETS.map((x) => x.m.id), usds.id];
    expect(recent[1].count).toBe((await liquidationsSince(db.db, cometIds, 0)).length);
    // The new Comets' absorptions are among them.
    for (const c of [usdt, wsteth]) expect((await liquidationsSince(db.db, [c.id], 0)).length, c.id).toBeGreaterThan(0);
    expect(recent[1].count).toBeGreaterThan(0);
    expect(recent[2].count).toBe((await liquidationsSince(db.db, [morpho.id], 0)).length);
    expect(recent[2].count).toBeGreaterThan(0);
    expect(recent[1].count + recent[2].count).toBeLessThan(recent[0].count);
    expect(recent[1].newest.market).toMatch(/^compound-v3-/);
    expect(recent[2].newest.market).toBe("morpho-blue");
  });

  it("a node that refuses one market's eth_getLogs: that market records the error, the others go on", async () => {
    // A JSON-RPC front on a real socket that answers an error for the Morpho singleton's logs and passes everything else to the devnet.
    const proxy = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const msg = JSON.parse(body) as { id: unknown; method: string; params: { address?: string }[] };
      res.setHeader("content-type", "application/json");
      if (msg.method === "eth_getLogs" && String(msg.params[0]?.address).toLowerCase() === MORPHO_BLUE) {
        res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32005, message: "query returned more than 10000 results" } }));
        return;
      }
      const r = await fetch(sim.url, { method: "POST", headers: { "content-type": "application/json" }, body });
      res.end(await r.text());
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    const front = new EthRpc({ urls: [`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`], attemptsPerUrl: 1 });
    try {
      const before = new Map((await cursors(db.db)).map((c) => [c.market, c.lastBlock]));
      sim.mine(4);
      const r = await indexLendingOnce({ ...deps, rpc: front });
      expect(r.markets.find((m) => m.market === morpho.id)?.error).toMatch(/10000 results/);
      for (const m of r.markets.filter((x) => x.market !== morpho.id)) expect(m.error, m.market).toBeNull();
      const after = new Map((await cursors(db.db)).map((c) => [c.market, c]));
      expect(after.get(morpho.id)!.lastBlock).toBe(before.get(morpho.id));
      expect(after.get(morpho.id)!.lastError).toMatch(/10000 results/);
      expect(after.get(usdc.id)!.lastBlock).toBe(sim.head().number - 2n);
      expect(after.get(usdc.id)!.lastError).toBeNull();
    } finally {
      await front.close();
      await new Promise((ok) => proxy.close(ok));
    }
    // Through the healthy node again, Morpho catches up.
    await drain();
    expect((await cursors(db.db)).find((c) => c.market === morpho.id)!.lastError).toBeNull();
  });
});
