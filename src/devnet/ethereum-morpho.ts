/**
 * Morpho Blue on the devnet L1: the singleton at its mainnet address (as the
 * Aave Pools of ethereum-lending.ts are) with three markets whose oracles
 * and IRM sit at devnet-made addresses, driven block by block:
 *   - the first block carries CreateMarket for each market (id = keccak256 of
 *     the ABI-encoded MarketParams);
 *   - oracles answer `price()` = collateral price in loan-token units × 1e36
 *     (decimals included) from the lending simulation's USD prices;
 *   - borrowers arrive (SupplyCollateral, then Borrow) at a health factor
 *     between 1.03 and 1.35, up to 30 per market; the IRM answers
 *     `borrowRateView` with a fixed per-second rate (about 0.2 % per 96 s, so
 *     positions drift within minutes) and each market accrues it as
 *     Morpho.sol `_accrueInterest` does (totalBorrowAssets +=
 *     wMulDown(totalBorrowAssets, wTaylorCompounded(rate, elapsed)),
 *     lastUpdate = the newest block's time) every block and before every
 *     borrow, repay and liquidation, while shares stay, so every borrower's
 *     debt grows; some repay a fifth of their shares (Repay);
 *   - an unhealthy position (maxBorrow < borrowed, Morpho.sol `_isHealthy`)
 *     is liquidated with probability ½ per block: all its debt repaid,
 *     collateral seized at the liquidation incentive factor, or — when the
 *     collateral does not cover that — all the collateral seized and the rest
 *     of the debt realised as bad debt (Liquidate).
 * The singleton answers `position`, `market` and `idToMarketParams`, with the
 * share arithmetic of SharesMathLib (facts: morpho-org/morpho-blue).
 */
import { type Hex, concat, decodeFunctionData, encodeAbiParameters, encodeEventTopics, encodeFunctionResult, keccak256, toHex } from "viem";
import {
  liquidationIncentiveFactor,
  marketId,
  MORPHO_BLUE,
  morphoAbi,
  morphoOracleAbi,
  morphoIrmAbi,
  accruedBorrowAssets,
  ORACLE_PRICE_SCALE,
  toAssetsUp,
  toSharesUp,
  type MarketParams,
} from "../chains/ethereum/morpho.js";
import { WAD } from "../chains/ethereum/lending.js";
import { ASSETS } from "../chains/ethereum/flashloans.js";
import { seededRandom } from "./seeded-random.js";
import type { LogSink } from "./ethereum-logs.js";
import { devnetAddress } from "./ethereum-comet.js";

const lower = (a: string) => a.toLowerCase();

interface SimMarket {
  id: string;
  loan: string;
  collateral: string;
  params: MarketParams;
  totalBorrowAssets: bigint;
  totalBorrowShares: bigint;
  lastUpdate: bigint;
}

const IRM = devnetAddress("vigil devnet morpho irm");
/** The IRM's borrow rate, per second, WAD-scaled: 0.2 % per 96 s (8 blocks of 12 s). */
export const DEVNET_MORPHO_BORROW_RATE = (2n * 10n ** 15n) / 96n;
const MARKET_SPECS = [
  { loan: "USDC", collateral: "WSTETH", lltv: 860n * 10n ** 15n },
  { loan: "USDC", collateral: "WBTC", lltv: 860n * 10n ** 15n },
  { loan: "WETH", collateral: "WSTETH", lltv: 945n * 10n ** 15n },
] as const;
const LIQUIDATORS = ["0x1d0b1e00000000000000000000000000000000b1", "0x1d0b1e00000000000000000000000000000000b2"];
const MAX_PER_MARKET = 30;
/** Lender supply: the markets' totalSupply figures (never the binding constraint on the devnet). */
const SUPPLY_ASSETS = 10n ** 30n;

export interface SimMorphoPosition {
  id: string;
  user: string;
  borrowShares: bigint;
  collateral: bigint;
}

export interface DevnetMorpho {
  /** Advances the markets to a block of this time (seconds); their events go to the L1's log book (ethereum-logs.ts). */
  onBlock(timestamp: number): void;
  call(to: string, data: string): Hex | undefined;
  markets(): { id: string; loan: string; collateral: string; params: MarketParams; totalBorrowAssets: bigint; totalBorrowShares: bigint; lastUpdate: bigint }[];
  positions(id?: string): SimMorphoPosition[];
  /** The oracle's price() of a market. */
  oraclePrice(id: string): bigint;
  /** Opens a position (SupplyCollateral and Borrow in the next block). */
  open(p: { id: string; user: string; collateral: bigint; borrowAssets: bigint }): void;
  freeze(frozen: boolean): void;
  pauseLiquidators(paused: boolean): void;
}

export function createDevnetMorpho(opts: { seed: number; logs: LogSink; usdPrice: (symbol: string) => bigint }): DevnetMorpho {
  const random = seededRandom(opts.seed ^ 0x3079);
  const markets: SimMarket[] = MARKET_SPECS.map((s) => {
    const params: MarketParams = {
      loanToken: ASSETS[s.loan]!.address,
      collateralToken: ASSETS[s.collateral]!.address,
      oracle: devnetAddress(`vigil devnet morpho oracle ${s.collateral}/${s.loan}`),
      irm: IRM,
      lltv: s.lltv,
    };
    return { id: marketId(params), loan: s.loan, collateral: s.collateral, params, totalBorrowAssets: 0n, totalBorrowShares: 0n, lastUpdate: 0n };
  });
  const byId = new Map(markets.map((m) => [m.id, m]));
  const byOracle = new Map(markets.map((m) => [m.params.oracle, m]));
  const positions = new Map<string, SimMorphoPosition>();
  const key = (id: string, user: string) => `${id}:${user}`;
  let txCounter = 0;
  let userCounter = 0;
  /** The newest block's time (seconds): interest accrues up to it. */
  let now = 0n;
  let created = false;
  let frozen = false;
  let liquidatorsPaused = false;
  const dec = (symbol: string) => BigInt(ASSETS[symbol]!.decimals);

  /** Collateral price in loan units × 1e36, decimals included (IOracle.price()). */
  const oraclePrice = (m: SimMarket) =>
    (opts.usdPrice(m.collateral) * ORACLE_PRICE_SCALE * 10n ** dec(m.loan)) / (opts.usdPrice(m.loan) * 10n ** dec(m.collateral));
  const borrowed = (m: SimMarket, p: SimMorphoPosition) => toAssetsUp(p.borrowShares, m.totalBorrowAssets, m.totalBorrowShares);
  const healthy = (m: SimMarket, p: SimMorphoPosition) =>
    p.borrowShares === 0n || (((p.collateral * oraclePrice(m)) / ORACLE_PRICE_SCALE) * m.params.lltv) / WAD >= borrowed(m, p);

  const emit = (eventName: string, args: Record<string, unknown>, data: Hex, tx: number) => {
    opts.logs({ address: MORPHO_BLUE, topics: encodeEventTopics({ abi: morphoAbi, eventName, args } as never) as Hex[], data, tx: toHex(`morpho tx ${tx}`) });
  };
  const words = (...v: bigint[]) => encodeAbiParameters(v.map(() => ({ type: "uint256" })), v);

  /** Morpho.sol `_accrueInterest` at the newest block's time. */
  const accrue = (m: SimMarket) => {
    if (now <= m.lastUpdate) return;
    m.totalBorrowAssets = accruedBorrowAssets(m, DEVNET_MORPHO_BORROW_RATE, now);
    m.lastUpdate = now;
  };

  function open(m: SimMarket, user: string, collateral: bigint, assets: bigint) {
    accrue(m);
    const p = positions.get(key(m.id, user)) ?? { id: m.id, user, borrowShares: 0n, collateral: 0n };
    const shares = toSharesUp(assets, m.totalBorrowAssets, m.totalBorrowShares);
    p.collateral += collateral;
    p.borrowShares += shares;
    m.totalBorrowAssets += assets;
    m.totalBorrowShares += shares;
    positions.set(key(m.id, user), p);
    const tx = txCounter++;
    emit("SupplyCollateral", { id: m.id, caller: user, onBehalf: user }, words(collateral), tx);
    emit("Borrow", { id: m.id, onBehalf: user, receiver: user }, encodeAbiParameters([{ type: "address" }, { type: "uint256" }, { type: "uint256" }], [user as Hex, assets, shares]), tx);
  }

  function arrive(m: SimMarket) {
    // $1,000 to about $300,000 of collateral, log-uniform.
    const collUsd = BigInt(Math.floor(1_000 * Math.pow(300, random()))) * 10n ** 8n;
    const collateral = (collUsd * 10n ** dec(m.collateral)) / opts.usdPrice(m.collateral);
    const hfBps = BigInt(Math.round((1.03 + random() * 0.32) * 10_000));
    const maxBorrow = (((collateral * oraclePrice(m)) / ORACLE_PRICE_SCALE) * m.params.lltv) / WAD;
    userCounter++;
    const user = lower(`0x${keccak256(toHex(`morpho borrower ${userCounter}`)).slice(26)}`);
    open(m, user, collateral, (maxBorrow * 10_000n) / hfBps);
  }

  function liquidate(m: SimMarket, p: SimMorphoPosition) {
    accrue(m);
    const liquidator = LIQUIDATORS[Math.floor(random() * LIQUIDATORS.length)]!;
    const price = oraclePrice(m);
    const lif = liquidationIncentiveFactor(m.params.lltv);
    // Repay every share: seized = repaid assets × LIF in collateral (Morpho.sol liquidate, repaidShares given).
    let repaidShares = p.borrowShares;
    let seized = (((((repaidShares * (m.totalBorrowAssets + 1n)) / (m.totalBorrowShares + 10n ** 6n)) * lif) / WAD) * ORACLE_PRICE_SCALE) / price;
    if (seized > p.collateral) {
      // Not enough collateral: seize it all (seizedAssets given) and realise the rest as bad debt.
      seized = p.collateral;
      const quoted = (seized * price + ORACLE_PRICE_SCALE - 1n) / ORACLE_PRICE_SCALE;
      repaidShares = toSharesUp((quoted * WAD + lif - 1n) / lif, m.totalBorrowAssets, m.totalBorrowShares);
      if (repaidShares > p.borrowShares) repaidShares = p.borrowShares;
    }
    const repaidAssets = toAssetsUp(repaidShares, m.totalBorrowAssets, m.totalBorrowShares);
    p.borrowShares -= repaidShares;
    m.totalBorrowShares -= repaidShares;
    m.totalBorrowAssets = m.totalBorrowAssets > repaidAssets ? m.totalBorrowAssets - repaidAssets : 0n;
    p.collateral -= seized;
    let badDebtShares = 0n;
    let badDebtAssets = 0n;
    if (p.collateral === 0n && p.borrowShares > 0n) {
      badDebtShares = p.borrowShares;
      const a = toAssetsUp(badDebtShares, m.totalBorrowAssets, m.totalBorrowShares);
      badDebtAssets = a < m.totalBorrowAssets ? a : m.totalBorrowAssets;
      m.totalBorrowAssets -= badDebtAssets;
      m.totalBorrowShares -= badDebtShares;
      p.borrowShares = 0n;
    }
    emit("Liquidate", { id: m.id, caller: liquidator, borrower: p.user }, words(repaidAssets, repaidShares, seized, badDebtAssets, badDebtShares), txCounter++);
    if (p.borrowShares === 0n) positions.delete(key(m.id, p.user));
  }

  function step(timestamp: number) {
    if (!created) {
      created = true;
      for (const m of markets) {
        emit(
          "CreateMarket",
          { id: m.id },
          encodeAbiParameters(
            [{ type: "tuple", components: [{ type: "address" }, { type: "address" }, { type: "address" }, { type: "address" }, { type: "uint256" }] }],
            [[m.params.loanToken as Hex, m.params.collateralToken as Hex, m.params.oracle as Hex, m.params.irm as Hex, m.params.lltv]],
          ),
          txCounter++,
        );
      }
    }
    now = BigInt(timestamp);
    if (!frozen) {
      for (const m of markets) accrue(m);
      for (const m of markets) {
        const live = [...positions.values()].filter((p) => p.id === m.id).length;
        if (live < MAX_PER_MARKET && random() < 0.3) arrive(m);
      }
      if (positions.size > 0 && random() < 0.06) {
        const all = [...positions.values()];
        const p = all[Math.floor(random() * all.length)]!;
        const m = byId.get(p.id)!;
        accrue(m);
        const shares = p.borrowShares / 5n;
        const assets = toAssetsUp(shares, m.totalBorrowAssets, m.totalBorrowShares);
        p.borrowShares -= shares;
        m.totalBorrowShares -= shares;
        m.totalBorrowAssets = m.totalBorrowAssets > assets ? m.totalBorrowAssets - assets : 0n;
        emit("Repay", { id: m.id, caller: p.user, onBehalf: p.user }, words(assets, shares), txCounter++);
      }
    }
    if (!liquidatorsPaused) {
      for (const p of [...positions.values()]) {
        const m = byId.get(p.id)!;
        if (random() < 0.5 && !healthy(m, p)) liquidate(m, p);
      }
    }
  }

  const result = (functionName: string, value: unknown) => encodeFunctionResult({ abi: morphoAbi, functionName, result: value } as never);

  return {
    onBlock: step,
    call(to, data) {
      const target = lower(to);
      const om = byOracle.get(target);
      if (om) {
        return data.slice(0, 10) === "0xa035b1fe" ? encodeFunctionResult({ abi: morphoOracleAbi, functionName: "price", result: oraclePrice(om) }) : undefined;
      }
      if (target === IRM) {
        // IIrm.borrowRateView(MarketParams, Market): the same rate for every market.
        try {
          decodeFunctionData({ abi: morphoIrmAbi, data: data as Hex });
        } catch {
          return undefined;
        }
        return encodeFunctionResult({ abi: morphoIrmAbi, functionName: "borrowRateView", result: DEVNET_MORPHO_BORROW_RATE });
      }
      if (target !== MORPHO_BLUE) return undefined;
      let d;
      try {
        d = decodeFunctionData({ abi: morphoAbi, data: data as Hex });
      } catch {
        // Another function of the singleton (the flash-loan balance is the token's): the L1's own table answers.
        return undefined;
      }
      const args = (d.args ?? []) as readonly unknown[];
      const m = byId.get(lower(String(args[0])));
      switch (d.functionName) {
        case "position": {
          const p = m ? positions.get(key(m.id, lower(String(args[1])))) : undefined;
          return result("position", [0n, p?.borrowShares ?? 0n, p?.collateral ?? 0n]);
        }
        case "market":
          return result("market", m ? [SUPPLY_ASSETS, SUPPLY_ASSETS * 10n ** 6n, m.totalBorrowAssets, m.totalBorrowShares, m.lastUpdate, 0n] : [0n, 0n, 0n, 0n, 0n, 0n]);
        case "idToMarketParams": {
          const zero = "0x0000000000000000000000000000000000000000";
          return result("idToMarketParams", m ? [m.params.loanToken, m.params.collateralToken, m.params.oracle, m.params.irm, m.params.lltv] : [zero, zero, zero, zero, 0n]);
        }
        default:
          return undefined;
      }
    },
    markets: () => markets.map((m) => ({ id: m.id, loan: m.loan, collateral: m.collateral, params: { ...m.params }, totalBorrowAssets: m.totalBorrowAssets, totalBorrowShares: m.totalBorrowShares, lastUpdate: m.lastUpdate })),
    positions: (id) => [...positions.values()].filter((p) => !id || p.id === lower(id)).map((p) => ({ ...p })),
    oraclePrice: (id) => oraclePrice(byId.get(lower(id))!),
    open: (p) => open(byId.get(lower(p.id))!, lower(p.user), p.collateral, p.borrowAssets),
    freeze: (x) => {
      frozen = x;
    },
    pauseLiquidators: (x) => {
      liquidatorsPaused = x;
    },
  };
}
