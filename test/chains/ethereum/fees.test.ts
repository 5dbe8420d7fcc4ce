/**
 * The fee math against the vectors of the research notes (worked out there
 * with a separate big-integer implementation of the EIPs' formulas), the
 * schedule table at each fork's boundary, and properties that must hold for
 * any header.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  blobBaseFee,
  blobParamsAt,
  fakeExponential,
  FORK_SCHEDULES,
  forkSchedule,
  GAS_PER_BLOB,
  nextBaseFee,
  nextExcessBlobGas,
  projectFees,
  ratioString,
  type BlobParams,
} from "../../../src/chains/ethereum/fees.js";
import { formatGwei } from "../../../src/core/money.js";

const mainnet = forkSchedule(1)!;
const at = (fork: string): BlobParams => mainnet.blobs.find((b) => b.fork === fork)!;

describe("EIP-1559 base fee", () => {
  const parent = (gasUsed: bigint) => ({ baseFeePerGas: 1_000_000_000n, gasLimit: 60_000_000n, gasUsed });
  it.each([
    [0n, 875_000_000n],
    [15_000_000n, 937_500_000n],
    [22_500_000n, 968_750_000n],
    [30_000_000n, 1_000_000_000n],
    [36_000_000n, 1_025_000_000n],
    [45_000_000n, 1_062_500_000n],
    [60_000_000n, 1_125_000_000n],
  ])("1 gwei parent, 60M limit, %s gas used → %s wei", (used, next) => {
    expect(nextBaseFee(parent(used))).toBe(next);
  });

  it("rises by at least 1 wei above target, and a tiny fee does not fall below its rounding", () => {
    expect(nextBaseFee({ baseFeePerGas: 7n, gasLimit: 30_000_000n, gasUsed: 30_000_000n })).toBe(8n);
    expect(nextBaseFee({ baseFeePerGas: 7n, gasLimit: 30_000_000n, gasUsed: 0n })).toBe(7n);
  });

  it("moves at most 12.5 % either way (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.bigInt({ min: 2n, max: 100_000_000n }), fc.double({ min: 0, max: 1, noNaN: true }), (fee, limit, f) => {
        // The bound holds up to twice the target (floor(limit / 2)); an odd limit's last gas unit adds a hair more.
        const full = (limit / 2n) * 2n;
        const used = (full * BigInt(Math.floor(f * 1e6))) / 1_000_000n;
        const next = nextBaseFee({ baseFeePerGas: fee, gasLimit: limit, gasUsed: used });
        expect(next * 8n).toBeGreaterThanOrEqual(fee * 7n - 8n);
        expect(next * 8n).toBeLessThanOrEqual(fee * 9n + 8n);
      }),
    );
  });
});

describe("EIP-4844 fake_exponential", () => {
  const fractions = [3_338_477n, 5_007_716n, 8_346_193n, 11_684_671n];
  it.each([
    [0n, [1n, 1n, 1n, 1n]],
    [393_216n, [1n, 1n, 1n, 1n]],
    [7_864_320n, [10n, 4n, 2n, 1n]],
    [10_000_000n, [19n, 7n, 3n, 2n]],
    [50_000_000n, [3_194_333n, 21_689n, 399n, 72n]],
    [100_000_000n, [10_203_769_476_395n, 470_442_149n, 159_773n, 5_209n]],
  ])("excess %s under Cancun, Prague/Osaka, BPO1, BPO2", (excess, want) => {
    expect(fractions.map((f) => fakeExponential(1n, excess, f))).toEqual(want);
  });

  it("reaches 1 gwei at the excess the notes give per schedule", () => {
    for (const [fork, excess] of [
      ["prague", 103_776_230n],
      ["bpo1", 172_960_377n],
      ["bpo2", 242_144_544n],
    ] as const) {
      expect(blobBaseFee(excess, at(fork))).toBeGreaterThanOrEqual(1_000_000_000n);
      expect(blobBaseFee(excess - 1n, at(fork))).toBeLessThan(1_000_000_000n);
    }
  });

  it("never decreases as the excess grows (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 400_000_000n }), fc.bigInt({ min: 0n, max: 5_000_000n }), (e, d) => {
        const p = at("bpo2");
        expect(blobBaseFee(e + d, p)).toBeGreaterThanOrEqual(blobBaseFee(e, p));
      }),
    );
  });
});

describe("excess blob gas (EIP-4844, EIP-7918 from Osaka)", () => {
  it("Cancun rule: parent excess + used − target, floored at 0", () => {
    const cancun = at("cancun");
    expect(nextExcessBlobGas({ baseFeePerGas: 10n ** 10n, excessBlobGas: 0n, blobGasUsed: 6n * GAS_PER_BLOB }, cancun)).toBe(393_216n);
    expect(nextExcessBlobGas({ baseFeePerGas: 10n ** 10n, excessBlobGas: 100_000n, blobGasUsed: 0n }, cancun)).toBe(0n);
  });

  it("BPO1 vectors: below target, the reserve branch, a stuck excess, a normal decrease", () => {
    const bpo1 = at("bpo1");
    expect(nextExcessBlobGas({ baseFeePerGas: 10n ** 10n, excessBlobGas: 0n, blobGasUsed: 6n * GAS_PER_BLOB }, bpo1)).toBe(0n);
    expect(nextExcessBlobGas({ baseFeePerGas: 10n ** 10n, excessBlobGas: 0n, blobGasUsed: 12n * GAS_PER_BLOB }, bpo1)).toBe(524_288n);
    expect(nextExcessBlobGas({ baseFeePerGas: 10n ** 10n, excessBlobGas: 100_000_000n, blobGasUsed: 0n }, bpo1)).toBe(100_000_000n);
    expect(nextExcessBlobGas({ baseFeePerGas: 10n ** 9n, excessBlobGas: 200_000_000n, blobGasUsed: 0n }, bpo1)).toBe(198_689_280n);
    expect(blobBaseFee(200_000_000n, bpo1)).toBe(25_527_476_631n);
  });

  it("without the reserve price (Prague) the same parent's excess falls to the old rule", () => {
    const prague = at("prague");
    expect(nextExcessBlobGas({ baseFeePerGas: 10n ** 10n, excessBlobGas: 0n, blobGasUsed: 12n * GAS_PER_BLOB }, prague)).toBe(6n * GAS_PER_BLOB);
  });
});

describe("the blob schedule table", () => {
  it.each([
    [1_710_338_134, null],
    [1_710_338_135, "cancun"],
    [1_746_612_310, "cancun"],
    [1_746_612_311, "prague"],
    [1_764_798_551, "osaka"],
    [1_765_290_071, "bpo1"],
    [1_767_747_670, "bpo1"],
    [1_767_747_671, "bpo2"],
  ])("mainnet at %s is %s", (ts, fork) => {
    expect(blobParamsAt(mainnet, ts)?.fork ?? null).toBe(fork);
  });

  it("target and max blob gas follow the rows (BPO2: 1,835,008 / 2,752,512)", () => {
    const b = at("bpo2");
    expect(b.targetBlobs * GAS_PER_BLOB).toBe(1_835_008n);
    expect(b.maxBlobs * GAS_PER_BLOB).toBe(2_752_512n);
  });

  it("development chains run the newest rules from genesis; mainnet's id is not among them", () => {
    expect(blobParamsAt(FORK_SCHEDULES[1337]!, 0)?.fork).toBe("bpo2");
    expect(forkSchedule(5)).toBeUndefined();
  });
});

describe("projection of the next block", () => {
  it("prices the child under the schedule active one slot later (a head just before BPO1)", () => {
    const head = {
      number: 1n,
      timestamp: 1_765_290_071 - 6,
      baseFeePerGas: 10n ** 10n,
      gasUsed: 30_000_000n,
      gasLimit: 60_000_000n,
      blobGasUsed: 12n * GAS_PER_BLOB,
      excessBlobGas: 0n,
    };
    const p = projectFees(head, mainnet);
    expect(p.fork).toBe("osaka");
    expect(p.nextFork).toBe("bpo1");
    // Under BPO1 (target 10) the reserve branch: 12·2^17·5/15.
    expect(p.nextBlobBaseFee).toBe(blobBaseFee(524_288n, at("bpo1")));
    expect(p.nextBaseFee).toBe(10n ** 10n);
    expect(p.blobBaseFee).toBe(1n);
  });

  it("a header before Cancun has no blob fee", () => {
    const p = projectFees(
      { number: 1n, timestamp: 1_700_000_000, baseFeePerGas: 30n * 10n ** 9n, gasUsed: 1n, gasLimit: 30_000_000n, blobGasUsed: null, excessBlobGas: null },
      mainnet,
    );
    expect(p.blobBaseFee).toBeNull();
    expect(p.nextBlobBaseFee).toBeNull();
  });
});

describe("exact text forms", () => {
  it("gwei strings carry every wei; the ratio is rounded down without float", () => {
    expect(formatGwei(1n)).toBe("0.000000001");
    expect(formatGwei(62_500_000n)).toBe("0.0625");
    expect(formatGwei(1_125_000_000n)).toBe("1.125");
    expect(formatGwei(25_527_476_631n)).toBe("25.527476631");
    expect(ratioString(13_875_029n, 30_000_000n)).toBe("0.4625");
    expect(ratioString(1n, 3n)).toBe("0.333333");
    expect(ratioString(0n, 30_000_000n)).toBe("0");
    expect(ratioString(30_000_000n, 30_000_000n)).toBe("1");
  });
});
