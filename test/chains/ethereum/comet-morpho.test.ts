/**
 * The pure parts of Compound V3 and Morpho Blue: a mainnet Morpho market id
 * from its params, the share rounding, the health factor's boundary against
 * Morpho's `_isHealthy`, and Comet logs decoded into the accounts they name.
 */
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, encodeEventTopics, type Hex } from "viem";
import { cometAbi, decodeCometLog } from "../../../src/chains/ethereum/comet.js";
import { accruedBorrowAssets, accruesInterest, marketId, morphoHealth, ORACLE_PRICE_SCALE, toAssetsUp, toSharesUp, wTaylorCompounded } from "../../../src/chains/ethereum/morpho.js";
import { NO_DEBT_HF, WAD } from "../../../src/chains/ethereum/lending.js";

describe("Morpho Blue", () => {
  it("the market id is keccak256 of the ABI-encoded params (wstETH/USDC 86 %, a mainnet market)", () => {
    // Params and id as published in morpho-org's blue-sdk README and several integrations (oracle 0x48F7E36E…40e2, AdaptiveCurveIrm 0x870aC11D…00BC).
    expect(
      marketId({
        loanToken: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        collateralToken: "0x7f39C581F595B53c5cb19bD0b3f8dA6c935E2Ca0",
        oracle: "0x48F7E36EB6B826B2dF4B2E630B62Cd25e89E40e2",
        irm: "0x870aC11D48B15DB9a138Cf899d20F13F79Ba00BC",
        lltv: 860000000000000000n,
      }),
    ).toBe("0xb323495f7e4148be5643a4ea4a8221eef163e4bccfdedc2a6f4696baacbc86cc");
  });

  it("shares and assets round up with 1e6 virtual shares and 1 virtual asset", () => {
    // Empty market: 1 asset → 1e6 shares; 1e6 shares → 1 asset.
    expect(toSharesUp(1n, 0n, 0n)).toBe(1_000_000n);
    expect(toAssetsUp(1_000_000n, 0n, 0n)).toBe(1n);
    // 1,000 assets against 999,000,000 shares after interest to 1,010: one share is worth 1011/1e9 assets, rounded up.
    expect(toAssetsUp(1n, 1_010n, 1_000_000_000n)).toBe(1n);
    expect(toAssetsUp(500_000_000n, 1_010n, 999_000_000n)).toBe(506n);
  });

  it("interest: wTaylorCompounded is e^(x·n) − 1 by three terms, rounded down; accrual only with time, debt and an IRM", () => {
    // 100 % a year as a per-second rate, over a year: 1 + 1/2 + 1/6 (e − 1 ≈ 1.718 is under-estimated, as MathLib does).
    const x = WAD / 31_536_000n;
    const n = 31_536_000n;
    const z = x * n;
    expect(wTaylorCompounded(x, n)).toBe(z + (z * z) / (2n * WAD) + (((z * z) / (2n * WAD)) * z) / (3n * WAD));
    expect(Number(wTaylorCompounded(x, n)) / 1e18).toBeCloseTo(1 + 1 / 2 + 1 / 6, 6);
    expect(wTaylorCompounded(0n, n)).toBe(0n);
    expect(wTaylorCompounded(x, 0n)).toBe(0n);
    // 1,000,000 units at 10 % a year for 1 day: interest = floor(1e6 × w / 1e18).
    const m = { totalSupplyAssets: 0n, totalSupplyShares: 0n, totalBorrowAssets: 1_000_000n, totalBorrowShares: 10n ** 12n, lastUpdate: 1_000n, fee: 0n };
    const rate = WAD / 10n / 31_536_000n;
    const w = wTaylorCompounded(rate, 86_400n);
    expect(accruedBorrowAssets(m, rate, 1_000n + 86_400n)).toBe(1_000_000n + (1_000_000n * w) / WAD);
    // 1e6 × (e^(0.1/365) − 1) = 274.01…: 274 units.
    expect(accruedBorrowAssets(m, rate, 1_000n + 86_400n)).toBe(1_000_274n);
    expect(accruedBorrowAssets(m, rate, 999n)).toBe(1_000_000n);
    const params = { loanToken: "0x01", collateralToken: "0x02", oracle: "0x03", irm: "0x0000000000000000000000000000000000000004", lltv: 0n };
    expect(accruesInterest(params, m, 1_001n)).toBe(true);
    expect(accruesInterest(params, m, 1_000n)).toBe(false);
    expect(accruesInterest({ ...params, irm: "0x0000000000000000000000000000000000000000" }, m, 1_001n)).toBe(false);
    expect(accruesInterest(params, { ...m, totalBorrowAssets: 0n }, 1_001n)).toBe(false);
  });

  it("HF < 1 exactly when maxBorrow < borrowed (Morpho.sol _isHealthy)", () => {
    const lltv = 860n * 10n ** 15n;
    const price = 3_000n * 10n ** 6n * ORACLE_PRICE_SCALE / 10n ** 18n; // 1 collateral unit (18 dec) = 3,000 loan units (6 dec)
    const collateral = 10n ** 18n;
    const maxBorrow = (((collateral * price) / ORACLE_PRICE_SCALE) * lltv) / WAD; // 2,580 USDC
    expect(maxBorrow).toBe(2_580n * 10n ** 6n);
    const m = (assets: bigint) => ({ totalBorrowAssets: assets, totalBorrowShares: toSharesUp(assets, 0n, 0n) });
    const at = (borrowed: bigint) => {
      const t = m(borrowed);
      return morphoHealth({ borrowShares: t.totalBorrowShares, collateral }, t, price, lltv, 10n ** 8n, 6);
    };
    expect(at(maxBorrow).healthFactorWad).toBe(WAD);
    expect(at(maxBorrow + 1n).healthFactorWad).toBeLessThan(WAD);
    expect(at(maxBorrow).debtBase).toBe(2_580n * 10n ** 8n);
    expect(at(maxBorrow).collateralBase).toBe(3_000n * 10n ** 8n);
    expect(at(maxBorrow).liquidationThresholdBps).toBe(8_600n);
    expect(morphoHealth({ borrowShares: 0n, collateral }, m(0n), price, lltv, 10n ** 8n, 6).healthFactorWad).toBe(NO_DEBT_HF);
  });
});

describe("Compound V3 logs", () => {
  const log = (eventName: string, args: Record<string, unknown>, data: Hex) => ({ topics: encodeEventTopics({ abi: cometAbi, eventName, args } as never) as string[], data });
  const u = (v: bigint) => encodeAbiParameters([{ type: "uint256" }], [v]);
  const A = "0x00000000000000000000000000000000000000aa";
  const B = "0x00000000000000000000000000000000000000bb";
  const ZERO = "0x0000000000000000000000000000000000000000";
  const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";

  it("names the accounts whose position may have changed, never the zero address", () => {
    expect(decodeCometLog(log("Withdraw", { src: A, to: B }, u(5n)))).toEqual({ kind: "touch", accounts: [A] });
    expect(decodeCometLog(log("Supply", { from: B, dst: A }, u(5n)))).toEqual({ kind: "touch", accounts: [A] });
    expect(decodeCometLog(log("Transfer", { from: A, to: ZERO }, u(5n)))).toEqual({ kind: "touch", accounts: [A] });
    expect(decodeCometLog(log("SupplyCollateral", { from: B, dst: A, asset: WETH }, u(5n)))).toEqual({ kind: "touch", accounts: [A] });
    expect(decodeCometLog(log("TransferCollateral", { from: A, to: B, asset: WETH }, u(5n)))).toEqual({ kind: "touch", accounts: [A, B] });
  });

  it("absorb events carry the borrower, the absorber and the amounts", () => {
    const two = encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [7n, 9n]);
    expect(decodeCometLog(log("AbsorbDebt", { absorber: B, borrower: A }, two))).toEqual({ kind: "absorb-debt", absorber: B, borrower: A, basePaidOut: 7n, usdValue: 9n });
    expect(decodeCometLog(log("AbsorbCollateral", { absorber: B, borrower: A, asset: WETH }, two))).toEqual({
      kind: "absorb-collateral",
      absorber: B,
      borrower: A,
      asset: WETH,
      amount: 7n,
      usdValue: 9n,
    });
    // A malformed log (data too short) is skipped, not thrown.
    expect(decodeCometLog(log("AbsorbDebt", { absorber: B, borrower: A }, u(1n)))).toBeNull();
  });
});
