/**
 * The lending ABI and arithmetic (pure): topic0 values against the published
 * ones, logs and call results encoded by viem decoded by ours (and garbage
 * refused), the Multicall3 round trip, Aave's close-factor rule, the
 * opportunities model, and the sample's rounding.
 */
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, encodeEventTopics, encodeFunctionResult, parseAbi, type Hex } from "viem";
import {
  accountDataCall,
  baseToUsd,
  closeFactorBps,
  decimalToWad,
  decodeAccountData,
  decodeAggregate3,
  decodeAssetPrice,
  decodePoolLog,
  encodeAggregate3,
  oneSignificantUsd,
  poolAbi,
  TOPIC_BORROW,
  TOPIC_LIQUIDATION_CALL,
  TOPIC_REPAY,
  TOPIC_SUPPLY,
  TOPIC_WITHDRAW,
  usdToBase,
  wadToNumber,
  WAD,
} from "../../../src/chains/ethereum/lending.js";
import { roundUsdOneFigure, truncateAddress, valuePosition } from "../../../src/feeds/opportunities.js";

const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
const USER = "0x00000000000000000000000000000000000a11ce";
const LIQ = "0x1111111254eeb25477b68fb85ed929f73a960582";
const B = 10n ** 8n;
/** Non-anonymous events with every indexed argument given: each topic is one hex string. */
const topicsOf = (t: readonly unknown[]) => t as string[];

describe("Aave V3 Pool events", () => {
  it("topic0 values are the published ones", () => {
    expect(TOPIC_LIQUIDATION_CALL).toBe("0xe413a321e8681d831f4dbccbca790d2952b56f977908e45be37335533e005286");
    expect(TOPIC_BORROW).toBe("0xb3d084820fb1a9decffb176436bd02558d15fac9b0ddfed8c465bc7359d7dce0");
    expect(TOPIC_SUPPLY).toBe("0x2b627736bca15cd5381dcf80b0bf11fd197d01a037c52b927a881a10fb73ba61");
    expect(TOPIC_REPAY).toBe("0xa534c8dbe71f871f9f3530e97a74601fea17b426cae02e1c5aee42c96c784051");
    expect(TOPIC_WITHDRAW).toBe("0x3115d1449a7b732c986cba18244e897a450f61e1bb8d589cd2e69e6c8924f9f7");
  });

  it("decodes a LiquidationCall encoded by viem", () => {
    const topics = topicsOf(encodeEventTopics({ abi: poolAbi, eventName: "LiquidationCall", args: { collateralAsset: WETH, debtAsset: USDC, user: USER } }));
    const data = encodeAbiParameters(parseAbi(["function f(uint256, uint256, address, bool)"])[0].inputs, [12_250_000_000n, 4n * 10n ** 18n, LIQ, true]);
    expect(decodePoolLog({ topics, data })).toEqual({
      kind: "liquidation",
      collateralAsset: WETH,
      debtAsset: USDC,
      user: USER,
      debtToCover: 12_250_000_000n,
      collateralAmount: 4n * 10n ** 18n,
      liquidator: LIQ,
      receiveAToken: true,
    });
  });

  it("names the position's owner: onBehalfOf for Borrow and Supply, user for Repay", () => {
    const other = "0x000000000000000000000000000000000000beef";
    const borrow = decodePoolLog({
      topics: topicsOf(encodeEventTopics({ abi: poolAbi, eventName: "Borrow", args: { reserve: USDC, onBehalfOf: USER, referralCode: 0 } })),
      data: encodeAbiParameters(parseAbi(["function f(address, uint256, uint8, uint256)"])[0].inputs, [other, 5n, 2, 7n]),
    });
    expect(borrow).toEqual({ kind: "borrow", reserve: USDC, user: USER, amount: 5n });
    const supply = decodePoolLog({
      topics: topicsOf(encodeEventTopics({ abi: poolAbi, eventName: "Supply", args: { reserve: WETH, onBehalfOf: USER, referralCode: 0 } })),
      data: encodeAbiParameters(parseAbi(["function f(address, uint256)"])[0].inputs, [other, 9n]),
    });
    expect(supply).toEqual({ kind: "supply", reserve: WETH, user: USER, amount: 9n });
    const repay = decodePoolLog({
      topics: topicsOf(encodeEventTopics({ abi: poolAbi, eventName: "Repay", args: { reserve: USDC, user: USER, repayer: other } })),
      data: encodeAbiParameters(parseAbi(["function f(uint256, bool)"])[0].inputs, [3n, false]),
    });
    expect(repay).toEqual({ kind: "repay", reserve: USDC, user: USER, amount: 3n });
  });

  it("refuses other events and truncated data instead of throwing", () => {
    const topics = topicsOf(encodeEventTopics({ abi: poolAbi, eventName: "LiquidationCall", args: { collateralAsset: WETH, debtAsset: USDC, user: USER } }));
    expect(decodePoolLog({ topics, data: "0x1234" })).toBeNull();
    expect(decodePoolLog({ topics: ["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"], data: "0x" })).toBeNull();
    expect(decodePoolLog({ topics: [], data: "0x" })).toBeNull();
  });
});

describe("calls", () => {
  it("getUserAccountData: the call's selector, and a result encoded by viem decoded", () => {
    expect(accountDataCall("0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2", USER).data.slice(0, 10)).toBe("0xbf92857c");
    const data = encodeFunctionResult({ abi: poolAbi, functionName: "getUserAccountData", result: [30_000n * B, 24_500n * B, 0n, 8_300n, 8_050n, 1_016_326_530_612_244_897n] });
    expect(decodeAccountData(data)).toEqual({
      collateralBase: 30_000n * B,
      debtBase: 24_500n * B,
      availableBorrowsBase: 0n,
      liquidationThresholdBps: 8_300n,
      ltvBps: 8_050n,
      healthFactorWad: 1_016_326_530_612_244_897n,
    });
    expect(decodeAccountData("0x")).toBeNull();
    expect(decodeAccountData(null)).toBeNull();
    expect(decodeAccountData("0xdeadbeef")).toBeNull();
  });

  it("Multicall3 aggregate3: calldata with the published selector, results decoded with failures as null", () => {
    const calldata = encodeAggregate3([accountDataCall("0x87870bca3f3fd6335c3f4ce8392d69350b4fa4e2", USER)]);
    expect(calldata.slice(0, 10)).toBe("0x82ad56cb");
    const abi = parseAbi(["struct Result { bool success; bytes returnData; }", "function aggregate3((address,bool,bytes)[] calls) payable returns (Result[] returnData)"]);
    const price = encodeFunctionResult({ abi: parseAbi(["function getAssetPrice(address) view returns (uint256)"]), functionName: "getAssetPrice", result: 3_000n * B });
    const answer = encodeFunctionResult({ abi, functionName: "aggregate3", result: [{ success: true, returnData: price }, { success: false, returnData: "0x" as Hex }] });
    const [a, b] = decodeAggregate3(answer);
    expect(decodeAssetPrice(a!)).toBe(3_000n * B);
    expect(b).toBeNull();
  });
});

describe("arithmetic", () => {
  it("close factor: 50 % above HF 0.95, 100 % at or below it or under $2,000", () => {
    const big = { collateralBase: 100_000n * B, debtBase: 90_000n * B };
    expect(closeFactorBps({ ...big, healthFactorWad: (96n * WAD) / 100n })).toBe(5_000n);
    expect(closeFactorBps({ ...big, healthFactorWad: (95n * WAD) / 100n })).toBe(10_000n);
    expect(closeFactorBps({ collateralBase: 1_999n * B, debtBase: 1_900n * B, healthFactorWad: (99n * WAD) / 100n })).toBe(10_000n);
  });

  it("decimal and dollar conversions are exact", () => {
    expect(decimalToWad("1.05")).toBe(1_050_000_000_000_000_000n);
    expect(decimalToWad("1000")).toBe(1_000n * WAD);
    expect(decimalToWad("-1")).toBeNull();
    expect(decimalToWad("1e3")).toBeNull();
    expect(usdToBase("2500.5")).toBe(250_050_000_000n);
    expect(usdToBase("-5")).toBeNull();
    expect(baseToUsd(123_456_789n)).toBe("1.23");
    expect(baseToUsd(5n * 10n ** 6n)).toBe("0.05");
    expect(baseToUsd(-5n * 10n ** 6n)).toBe("-0.05");
    expect(wadToNumber(1_016_326_530_612_244_897n)).toBe(1.016326);
    expect(wadToNumber(2n ** 256n - 1n)).toBeNull();
  });

  it("one significant figure, half up, in whole dollars", () => {
    expect(oneSignificantUsd(12_345n * B)).toBe("10000");
    expect(oneSignificantUsd(15_000n * B)).toBe("20000");
    expect(oneSignificantUsd(14_999n * B)).toBe("10000");
    expect(oneSignificantUsd(96n * B)).toBe("100");
    expect(oneSignificantUsd(40_000_000n)).toBe("0");
    expect(oneSignificantUsd(60_000_000n)).toBe("1");
    expect(roundUsdOneFigure("1449.99")).toBe("1000");
    expect(roundUsdOneFigure("-254.10")).toBe("-300");
    expect(roundUsdOneFigure("0.20")).toBe("0");
    expect(truncateAddress(USER)).toBe("0x0000…11ce");
  });

  it("the opportunity model: close factor, bonus, protocol cut, swap, gas and competition", () => {
    // Liquidatable at HF 0.97: half of $24,500 repaid, 5 % bonus, 10 % of it kept by the protocol.
    const v = valuePosition({ collateralBase: 28_500n * B, debtBase: 24_500n * B, healthFactorWad: (97n * WAD) / 100n }, { bonusBps: 500n, protocolFeeBps: 1_000n, gasBase: 20n * B, competitors: 3 });
    expect(v.liquidatable).toBe(true);
    expect(v.cf).toBe(5_000n);
    expect(v.repay).toBe(12_250n * B);
    expect(v.gross).toBe(61_250_000_000n); // $612.50
    expect(v.cut).toBe(6_125_000_000n); // 10 % of it
    expect(v.swap).toBe(((12_250n * B + 61_250_000_000n) * 30n) / 10_000n);
    expect(v.net).toBe(v.gross - v.cut - v.swap - 20n * B);
    expect(v.shareBps).toBe(2_500n);
    expect(v.ev).toBe((v.net * 2_500n) / 10_000n);
    // The seizure cannot exceed the collateral: repay ≤ collateral / (1 + bonus).
    const under = valuePosition({ collateralBase: 1_000n * B, debtBase: 1_500n * B, healthFactorWad: (60n * WAD) / 100n }, { bonusBps: 500n, protocolFeeBps: 1_000n, gasBase: 0n, competitors: 0 });
    expect(under.cf).toBe(10_000n);
    expect(under.repay).toBe((1_000n * B * 10_000n) / 10_500n);
    // A small position whose gas exceeds the bonus has a negative value, not scaled by competition.
    const dust = valuePosition({ collateralBase: 500n * B, debtBase: 400n * B, healthFactorWad: (99n * WAD) / 100n }, { bonusBps: 500n, protocolFeeBps: 1_000n, gasBase: 50n * B, competitors: 4 });
    expect(dust.ev).toBe(dust.net);
    expect(dust.ev).toBeLessThan(0n);
    // Not yet liquidatable: valued as at HF just under 1 (50 % for a large position).
    const later = valuePosition({ collateralBase: 100_000n * B, debtBase: 80_000n * B, healthFactorWad: (104n * WAD) / 100n }, { bonusBps: 500n, protocolFeeBps: 1_000n, gasBase: 0n, competitors: 0 });
    expect(later.liquidatable).toBe(false);
    expect(later.cf).toBe(5_000n);
  });
});
