/**
 * Ethereum fee math, pure and exact (bigint wei): the EIP-1559 base fee of the
 * next block, the EIP-4844 blob base fee with its excess-blob-gas rule, and
 * the EIP-7918 reserve price (Osaka on). The blob parameters are a data table
 * per chain (`FORK_SCHEDULES`): a new fork is a row.
 *
 * Invariants:
 *   - every quantity is a bigint; the order of multiplications and floor
 *     divisions is go-ethereum's, so results are bit-exact;
 *   - the schedule used for a block's calculations is the one active at that
 *     block's own timestamp (EIP-7892), so a projection uses the child's;
 *   - a header without blob fields (before Cancun) has no blob fee (null).
 */

export const BASE_FEE_CHANGE_DENOMINATOR = 8n;
export const ELASTICITY_MULTIPLIER = 2n;
export const GAS_PER_BLOB = 131_072n;
export const MIN_BASE_FEE_PER_BLOB_GAS = 1n;
/** EIP-7918: 2^13. */
export const BLOB_BASE_COST = 8_192n;
/** Seconds between slots; the projected child is the head plus one slot. */
export const SLOT_SECONDS = 12;

export interface BlobParams {
  readonly fork: string;
  /** Unix seconds from which the row applies (a block whose timestamp is >= this). */
  readonly activation: number;
  readonly targetBlobs: bigint;
  readonly maxBlobs: bigint;
  readonly updateFraction: bigint;
  /** EIP-7918 reserve price (excess cannot fall while blobs are too cheap against execution gas). */
  readonly reservePrice: boolean;
}

export interface ForkSchedule {
  readonly chainId: number;
  readonly name: string;
  /** Ascending by activation. */
  readonly blobs: readonly BlobParams[];
}

const row = (fork: string, activation: number, target: number, max: number, fraction: bigint, reserve: boolean): BlobParams => ({
  fork,
  activation,
  targetBlobs: BigInt(target),
  maxBlobs: BigInt(max),
  updateFraction: fraction,
  reservePrice: reserve,
});

/** The blob forks in order; timestamps are mainnet's (EIP-7691, EIP-7892, client configs). */
const MAINNET_BLOBS: readonly BlobParams[] = [
  row("cancun", 1_710_338_135, 3, 6, 3_338_477n, false),
  row("prague", 1_746_612_311, 6, 9, 5_007_716n, false),
  row("osaka", 1_764_798_551, 6, 9, 5_007_716n, true),
  row("bpo1", 1_765_290_071, 10, 15, 8_346_193n, true),
  row("bpo2", 1_767_747_671, 14, 21, 11_684_671n, true),
];

/** A local development chain runs the newest rules from genesis (geth --dev uses 1337, anvil/hardhat 31337). */
const fromGenesis = (rows: readonly BlobParams[]): BlobParams[] => [{ ...rows[rows.length - 1]!, activation: 0 }];

export const FORK_SCHEDULES: Readonly<Record<number, ForkSchedule>> = {
  1: { chainId: 1, name: "mainnet", blobs: MAINNET_BLOBS },
  1337: { chainId: 1337, name: "development chain", blobs: fromGenesis(MAINNET_BLOBS) },
  31337: { chainId: 31337, name: "development chain", blobs: fromGenesis(MAINNET_BLOBS) },
};

export function forkSchedule(chainId: number): ForkSchedule | undefined {
  return FORK_SCHEDULES[chainId];
}

/** The blob parameters active at `timestamp`, or null before the first blob fork. */
export function blobParamsAt(schedule: ForkSchedule, timestamp: number): BlobParams | null {
  let active: BlobParams | null = null;
  for (const r of schedule.blobs) if (timestamp >= r.activation) active = r;
  return active;
}

/** What the fee math needs of a header. */
export interface FeeHeader {
  readonly number: bigint;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly baseFeePerGas: bigint;
  readonly gasUsed: bigint;
  readonly gasLimit: bigint;
  /** Absent before Cancun. */
  readonly blobGasUsed: bigint | null;
  readonly excessBlobGas: bigint | null;
}

/** EIP-1559: the base fee of the child of `parent`. */
export function nextBaseFee(parent: Pick<FeeHeader, "baseFeePerGas" | "gasUsed" | "gasLimit">): bigint {
  const target = parent.gasLimit / ELASTICITY_MULTIPLIER;
  const { baseFeePerGas: fee, gasUsed } = parent;
  if (target === 0n || gasUsed === target) return fee;
  if (gasUsed > target) {
    const delta = (fee * (gasUsed - target)) / target / BASE_FEE_CHANGE_DENOMINATOR;
    return fee + (delta > 1n ? delta : 1n);
  }
  const delta = (fee * (target - gasUsed)) / target / BASE_FEE_CHANGE_DENOMINATOR;
  return fee > delta ? fee - delta : 0n;
}

/** EIP-4844's integer approximation of factor · e^(numerator / denominator). */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i += 1n;
  }
  return output / denominator;
}

/** The blob base fee (wei per blob gas) of a block with this excess under these parameters. */
export function blobBaseFee(excessBlobGas: bigint, params: BlobParams): bigint {
  return fakeExponential(MIN_BASE_FEE_PER_BLOB_GAS, excessBlobGas, params.updateFraction);
}

/**
 * The excess blob gas of the child of `parent`, under the CHILD's parameters:
 * EIP-4844's rule, and from Osaka EIP-7918's reserve branch.
 */
export function nextExcessBlobGas(
  parent: Pick<FeeHeader, "baseFeePerGas" | "blobGasUsed" | "excessBlobGas">,
  child: BlobParams,
): bigint {
  const excess = parent.excessBlobGas ?? 0n;
  const used = parent.blobGasUsed ?? 0n;
  const targetGas = child.targetBlobs * GAS_PER_BLOB;
  const maxGas = child.maxBlobs * GAS_PER_BLOB;
  if (excess + used < targetGas) return 0n;
  if (child.reservePrice && BLOB_BASE_COST * parent.baseFeePerGas > GAS_PER_BLOB * blobBaseFee(excess, child)) {
    // Blobs are too cheap against execution gas: the excess may only grow.
    return excess + (used * (maxGas - targetGas)) / maxGas;
  }
  return excess + used - targetGas;
}

export interface FeeProjection {
  /** Base fee of the head block, wei per gas. */
  baseFee: bigint;
  /** Blob base fee of the head block, wei per blob gas (null before Cancun). */
  blobBaseFee: bigint | null;
  /** gasUsed / gasLimit of the head, as the exact pair (eth_feeHistory's gasUsedRatio). */
  gasUsed: bigint;
  gasLimit: bigint;
  nextBaseFee: bigint;
  nextBlobBaseFee: bigint | null;
  /** The forks whose rules priced the head and the projected child. */
  fork: string | null;
  nextFork: string | null;
}

/** The head's fees and the next block's, the child assumed one slot after the head. */
export function projectFees(head: FeeHeader, schedule: ForkSchedule): FeeProjection {
  const headParams = blobParamsAt(schedule, head.timestamp);
  const childParams = blobParamsAt(schedule, head.timestamp + SLOT_SECONDS);
  const hasBlobs = head.excessBlobGas !== null && headParams !== null;
  return {
    baseFee: head.baseFeePerGas,
    blobBaseFee: hasBlobs ? blobBaseFee(head.excessBlobGas!, headParams) : null,
    gasUsed: head.gasUsed,
    gasLimit: head.gasLimit,
    nextBaseFee: nextBaseFee(head),
    nextBlobBaseFee: childParams ? blobBaseFee(nextExcessBlobGas(head, childParams), childParams) : null,
    fork: headParams?.fork ?? null,
    nextFork: childParams?.fork ?? null,
  };
}

/** gasUsed / gasLimit as a decimal string with `digits` decimals, rounded down (no float). */
export function ratioString(num: bigint, den: bigint, digits = 6): string {
  if (den === 0n) return "0";
  const scale = 10n ** BigInt(digits);
  const scaled = (num * scale) / den;
  const whole = scaled / scale;
  const frac = (scaled % scale).toString().padStart(digits, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}
