/** The flash-loan catalogue: every entry reviewed (source, address), the filters, asset resolution and the cheapest pick. */
import { describe, expect, it } from "vitest";
import {
  ASSETS,
  candidatesFor,
  decodeUint,
  encodeAddressCall,
  filterProviders,
  FLASHLOAN_PROVIDERS,
  pickCheapest,
  resolveAsset,
  type CheckedCandidate,
} from "../../../src/chains/ethereum/flashloans.js";
import { planFollow, firstBreak, pruneBelow } from "../../../src/chains/ethereum/follow.js";

const byId = (id: string) => FLASHLOAN_PROVIDERS.find((p) => p.id === id)!;

describe("catalogue", () => {
  it("every entry names a source, a lower-case address and a fee model; ids are unique", () => {
    expect(new Set(FLASHLOAN_PROVIDERS.map((p) => p.id)).size).toBe(FLASHLOAN_PROVIDERS.length);
    for (const p of FLASHLOAN_PROVIDERS) {
      expect(p.source.length, p.id).toBeGreaterThan(10);
      expect(p.address, p.id).toMatch(/^0x[0-9a-f]{40}$/);
      if (p.feeSource === "onchain") expect(p.feeCall, p.id).toBeDefined();
      else expect(p.fixedFeeBps, p.id).not.toBeNull();
    }
  });

  it("filters by chain, multi-asset and max fee (an on-chain fee counts once read)", () => {
    const fees = new Map([["aave-v3-core", 5]]);
    const all = filterProviders(FLASHLOAN_PROVIDERS, { chain: "ethereum" }, fees);
    expect(all).toHaveLength(FLASHLOAN_PROVIDERS.length);
    expect(filterProviders(FLASHLOAN_PROVIDERS, { chain: "base" }, fees)).toEqual([]);
    const multi = filterProviders(FLASHLOAN_PROVIDERS, { chain: "ethereum", multiAsset: true }, fees);
    expect(multi.map((p) => p.id)).not.toContain("morpho-blue");
    expect(multi.every((p) => p.multiAsset)).toBe(true);
    const free = filterProviders(FLASHLOAN_PROVIDERS, { chain: "ethereum", maxFeeBps: 0 }, fees).map((p) => p.id);
    expect(free).toContain("balancer-v2");
    expect(free).not.toContain("aave-v3-core");
    expect(free).not.toContain("uniswap-v3");
    expect(filterProviders(FLASHLOAN_PROVIDERS, { chain: "ethereum", maxFeeBps: 5 }, fees).map((p) => p.id)).toContain("aave-v3-core");
  });
});

describe("assets", () => {
  it("resolves symbols in any case and addresses in any case; unknown ones are null", () => {
    expect(resolveAsset("weth")).toEqual({ symbol: "WETH", address: ASSETS.WETH!.address });
    expect(resolveAsset("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")).toEqual({ symbol: "USDC", address: ASSETS.USDC!.address });
    expect(resolveAsset("PEPE")).toBeNull();
    expect(resolveAsset("0x0000000000000000000000000000000000000001")).toBeNull();
  });

  it("DAI can come from DssFlash; GHO cannot; providers not evaluated are never candidates", () => {
    expect(candidatesFor("DAI").map((p) => p.id)).toContain("maker-dss-flash");
    expect(candidatesFor("GHO").map((p) => p.id)).not.toContain("maker-dss-flash");
    expect(candidatesFor("WETH").map((p) => p.id)).not.toContain("uniswap-v3");
  });
});

describe("cheapest pick", () => {
  const c = (id: string, feeBps: number, available: bigint): CheckedCandidate => ({ provider: byId(id), feeBps, available });
  it("lowest fee first, then deepest liquidity; a provider with nothing to lend never wins", () => {
    expect(pickCheapest([c("aave-v3-core", 5, 1n), c("balancer-v2", 0, 10n), c("morpho-blue", 0, 100n)])?.provider.id).toBe("morpho-blue");
    expect(pickCheapest([c("aave-v3-core", 5, 1n), c("balancer-v2", 0, 0n)])?.provider.id).toBe("aave-v3-core");
    expect(pickCheapest([c("balancer-v2", 0, 0n)])).toBeNull();
    expect(pickCheapest([c("uniswap-v4", 0, 7n), c("balancer-v2", 0, 7n)])?.provider.id).toBe("balancer-v2");
  });

  it("encodes address calls and decodes uint words", () => {
    expect(encodeAddressCall("0x70a08231", "0xBA12222222228d8Ba445958a75a0704d566BF2C8")).toBe(
      "0x70a08231000000000000000000000000ba12222222228d8ba445958a75a0704d566bf2c8",
    );
    expect(decodeUint(`0x${"0".repeat(63)}5`)).toBe(5n);
    expect(() => decodeUint("0x")).toThrow();
  });
});

describe("follower planning", () => {
  it("starts at head − retention + 1, continues above the stored head, bounded by the batch", () => {
    expect(planFollow({ storedHead: null, nodeHead: 1000n, retention: 100, batch: 64 })).toEqual({ from: 901n, to: 964n, remaining: 36n });
    expect(planFollow({ storedHead: 964n, nodeHead: 1000n, retention: 100, batch: 64 })).toEqual({ from: 965n, to: 1000n, remaining: 0n });
    expect(planFollow({ storedHead: 1000n, nodeHead: 1000n, retention: 100, batch: 64 })).toBeNull();
    // Far behind: skip what would be pruned at once.
    expect(planFollow({ storedHead: 10n, nodeHead: 1000n, retention: 100, batch: 64 })?.from).toBe(901n);
    expect(planFollow({ storedHead: null, nodeHead: 5n, retention: 100, batch: 64 })).toEqual({ from: 0n, to: 5n, remaining: 0n });
    expect(pruneBelow(1000n, 100)).toBe(901n);
    expect(pruneBelow(10n, 100)).toBe(0n);
  });

  it("finds where fetched headers stop linking to the stored tip", () => {
    const h = (n: bigint, hash: string, parentHash: string) => ({ number: n, hash, parentHash });
    expect(firstBreak({ number: 9n, hash: "a" }, [h(10n, "b", "a"), h(11n, "c", "b")])).toBe(-1);
    expect(firstBreak({ number: 9n, hash: "x" }, [h(10n, "b", "a")])).toBe(0);
    expect(firstBreak(null, [h(10n, "b", "a"), h(11n, "c", "z")])).toBe(1);
  });
});
