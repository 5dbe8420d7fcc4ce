/**
 * The zebrad answer parsers and the pool readout, on answers shaped as
 * zebrad serves them (research zcash.md §5.2: getblockchaininfo with
 * chainSupply, six valuePools with …Zat integers, upgrades keyed by branch
 * id, consensus; getblock verbosity 1; getmempoolinfo; getrawmempool).
 */
import { describe, expect, it } from "vitest";
import {
  parseBlock,
  parseBlockchainInfo,
  parseInfo,
  parseMempoolInfo,
  parseRawMempool,
  type ZcashValuePools,
} from "../../../src/chains/zcash/zebrad.js";
import { percentOf, poolsReadout } from "../../../src/chains/zcash/facts.js";

const HASH = "0000000000a1f1e7b1f0c38c9c5b3a2f7d0a6d1f2b7e4c1d9f8a7b6c5d4e3f21";

const pool = (id: string, zat: number, extra: Record<string, unknown> = {}) => ({
  id,
  chainValue: zat / 1e8,
  chainValueZat: zat,
  monitored: true,
  ...extra,
});

function blockchainInfo(overrides: Record<string, unknown> = {}) {
  return {
    chain: "main",
    blocks: 3_430_001,
    headers: 3_430_001,
    difficulty: 71_423_315.42,
    verificationprogress: 0.9999987,
    chainwork: 0,
    pruned: false,
    size_on_disk: 281_474_976_710,
    commitments: 0,
    bestblockhash: HASH.toUpperCase(),
    estimatedheight: 3_430_002,
    chainSupply: { chainValue: 16_500_000.5, chainValueZat: 1_650_000_050_000_000, monitored: true },
    valuePools: [
      pool("transparent", 1_182_431_012_500_000),
      pool("sprout", 2_541_204_000_000),
      pool("sapling", 104_688_577_000_000),
      pool("orchard", 391_120_431_000_000),
      pool("lockbox", 28_968_750_000_000),
      pool("ironwood", 1_250_000_000),
    ],
    upgrades: {
      "5437f330": { name: "NU6.2", activationheight: 3_364_600, status: "active" },
      "37a5165b": { name: "NU6.3", activationheight: 3_428_143, status: "active" },
    },
    consensus: { chaintip: "37a5165b", nextblock: "37a5165b" },
    ...overrides,
  };
}

describe("getblockchaininfo", () => {
  it("reads the chain, tip, progress and the six value pools from the …Zat integers", () => {
    const i = parseBlockchainInfo(blockchainInfo());
    expect(i).toMatchObject({
      chain: "main",
      blocks: 3_430_001,
      headers: 3_430_001,
      estimatedHeight: 3_430_002,
      bestBlockHash: HASH.toLowerCase(),
      verificationProgress: 0.9999987,
      consensusChainTip: "37a5165b",
    });
    expect(i.valuePools.orchard).toEqual({ zatoshi: 391_120_431_000_000n, monitored: true });
    expect(i.valuePools.ironwood.zatoshi).toBe(1_250_000_000n);
    expect(i.valuePools.lockbox.zatoshi).toBe(28_968_750_000_000n);
    expect(i.upgrades).toContainEqual({ name: "NU6.3", branchId: "37a5165b", activationHeight: 3_428_143, status: "active" });
  });

  it("accepts zebrad's older `deferred` id for the lockbox, and no ironwood entry before NU6.3", () => {
    const raw = blockchainInfo();
    raw.valuePools = [
      pool("transparent", 100),
      pool("sprout", 200),
      pool("sapling", 300),
      pool("orchard", 400),
      pool("deferred", 500),
    ];
    const i = parseBlockchainInfo(raw);
    expect(i.valuePools.lockbox.zatoshi).toBe(500n);
    expect(i.valuePools.ironwood).toEqual({ zatoshi: 0n, monitored: false });
  });

  it("ignores a pool it does not know and keeps unmonitored pools flagged", () => {
    const raw = blockchainInfo();
    raw.valuePools = [...raw.valuePools.slice(0, 5), pool("ironwood", 7, { monitored: false }), pool("future", 9)];
    const i = parseBlockchainInfo(raw);
    expect(i.valuePools.ironwood).toEqual({ zatoshi: 7n, monitored: false });
  });

  it.each([
    ["a float zatoshi value", { valuePools: [pool("transparent", 1.5), pool("sprout", 0), pool("sapling", 0), pool("orchard", 0)] }],
    ["an unsafe integer", { valuePools: [pool("transparent", 2 ** 60), pool("sprout", 0), pool("sapling", 0), pool("orchard", 0)] }],
    ["a negative pool", { valuePools: [pool("transparent", -1), pool("sprout", 0), pool("sapling", 0), pool("orchard", 0)] }],
    ["a missing orchard pool", { valuePools: [pool("transparent", 1), pool("sprout", 0), pool("sapling", 0)] }],
    ["a pool listed twice", { valuePools: [pool("transparent", 1), pool("sprout", 0), pool("sapling", 0), pool("orchard", 0), pool("orchard", 0)] }],
    ["a short hash", { bestblockhash: "abcd" }],
    ["a string height", { blocks: "3430001" }],
    ["no chain", { chain: "" }],
  ])("refuses %s", (_name, override) => {
    expect(() => parseBlockchainInfo(blockchainInfo(override))).toThrow();
  });
});

describe("getblock, getinfo, mempool", () => {
  const block = {
    hash: HASH,
    confirmations: 1,
    size: 9_214,
    height: 3_430_001,
    version: 4,
    merkleroot: HASH,
    blockcommitments: HASH,
    finalsaplingroot: HASH,
    tx: [HASH, "11".repeat(32)],
    time: 1_790_000_000,
    nonce: HASH,
    solution: "00",
    bits: "1c01a1b2",
    difficulty: 71_423_315.42,
    chainSupply: { chainValue: 1, chainValueZat: 100_000_000, monitored: true },
    valuePools: blockchainInfo().valuePools.map((p) => ({ ...p, valueDelta: 0.1, valueDeltaZat: 10_000_000 })),
    trees: {},
    previousblockhash: "22".repeat(32),
  };

  it("reads a verbosity-1 block with its txids and per-block pool deltas", () => {
    const b = parseBlock(block);
    expect(b).toMatchObject({ hash: HASH, height: 3_430_001, size: 9_214, time: 1_790_000_000, difficulty: 71_423_315.42, previousBlockHash: "22".repeat(32) });
    expect(b.txids).toHaveLength(2);
    expect(b.valuePools!.sapling.deltaZatoshi).toBe(10_000_000n);
  });

  it("reads verbosity 2 (transactions as objects) as txids too", () => {
    expect(parseBlock({ ...block, tx: [{ txid: HASH, hex: "00" }] }).txids).toEqual([HASH]);
  });

  it("refuses a block without size or with a bad txid", () => {
    const { size: _size, ...noSize } = block;
    expect(() => parseBlock(noSize)).toThrow();
    expect(() => parseBlock({ ...block, tx: ["zz"] })).toThrow();
  });

  it("reads getinfo, getmempoolinfo and getrawmempool", () => {
    expect(parseInfo({ version: 6000000, build: "v6.0.0", subversion: "/Zebra:6.0.0/", protocolversion: 170140, blocks: 5, connections: 8, testnet: false, errors: "" })).toEqual({
      build: "v6.0.0",
      subversion: "/Zebra:6.0.0/",
      protocolVersion: 170140,
      blocks: 5,
      connections: 8,
      testnet: false,
    });
    expect(parseMempoolInfo({ size: 3, bytes: 12_000, usage: 15_000, fullyNotified: true })).toEqual({ size: 3, bytes: 12_000, usage: 15_000 });
    expect(() => parseMempoolInfo({ size: -1, bytes: 0, usage: 0 })).toThrow();
    expect(parseRawMempool([HASH.toUpperCase()])).toEqual([HASH]);
    expect(() => parseRawMempool({})).toThrow();
  });
});

describe("pool readout", () => {
  const pools = (o: Partial<Record<keyof ZcashValuePools, bigint>>): ZcashValuePools => ({
    transparent: { zatoshi: o.transparent ?? 0n, monitored: true },
    sprout: { zatoshi: o.sprout ?? 0n, monitored: true },
    sapling: { zatoshi: o.sapling ?? 0n, monitored: true },
    orchard: { zatoshi: o.orchard ?? 0n, monitored: true },
    lockbox: { zatoshi: o.lockbox ?? 0n, monitored: true },
    ironwood: { zatoshi: o.ironwood ?? 0n, monitored: true },
  });

  it("percentOf rounds down to 0.01 in integers and is null for an empty whole", () => {
    expect(percentOf(1n, 3n)).toBe(33.33);
    expect(percentOf(2n, 3n)).toBe(66.66);
    expect(percentOf(5n, 5n)).toBe(100);
    expect(percentOf(0n, 0n)).toBeNull();
  });

  it("migration percent = ironwood / (orchard + ironwood); totals and ZEC strings are exact", () => {
    const r = poolsReadout(pools({ transparent: 1_000_000_000n, sapling: 500_000_000n, orchard: 300_000_000n, ironwood: 100_000_000n, lockbox: 100_000_000n }));
    expect(r.migration).toEqual({
      ironwood_zatoshi: "100000000",
      ironwood_zec: "1",
      orchard_remainder_zatoshi: "300000000",
      orchard_remainder_zec: "3",
      migration_percent: 25,
    });
    expect(r.total_zatoshi).toBe("2000000000");
    expect(r.total_zec).toBe("20");
    expect(r.shielded_percent).toBe(45);
    expect(r.pools.lockbox).toEqual({ zatoshi: "100000000", zec: "1", monitored: true });
  });

  it("before any migration the percent is 0, with no shielded value it is null", () => {
    expect(poolsReadout(pools({ orchard: 1n })).migration.migration_percent).toBe(0);
    expect(poolsReadout(pools({ transparent: 1n })).migration.migration_percent).toBeNull();
    expect(poolsReadout(pools({})).shielded_percent).toBe(0);
  });

  it("keeps mainnet-sized sums exact past 2^53 zatoshi", () => {
    const big = 9_007_199_254_740_000n;
    const r = poolsReadout(pools({ transparent: big, orchard: big }));
    expect(r.total_zatoshi).toBe((2n * big).toString());
  });
});
