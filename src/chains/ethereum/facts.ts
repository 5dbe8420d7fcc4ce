/**
 * Plain fact functions of Ethereum for the Penny Oracle: the fee answer
 * built from a stored head header, and the flash-loan reads done on chain
 * (Aave's premium, reserve flags, balances, the DssFlash ceiling).
 */
import { formatGwei } from "../../core/money.js";
import { projectFees, ratioString, type FeeHeader, type ForkSchedule } from "./fees.js";
import {
  ASSETS,
  decodeUint,
  encodeAddressCall,
  SELECTOR_BALANCE_OF,
  SELECTOR_DSS_FLASH_MAX,
  SELECTOR_GET_FLASHLOAN_ENABLED,
  SELECTOR_GET_PAUSED,
  type CheckedCandidate,
  type FlashLoanProvider,
} from "./flashloans.js";
import type { EthRpc } from "./rpc.js";
import { probeChainHealth, type ChainHealth } from "../health.js";

export interface BaseFeeFacts {
  block: number;
  block_timestamp: number;
  base_fee_wei: string;
  base_fee_gwei: string;
  blob_base_fee_wei: string | null;
  blob_base_fee_gwei: string | null;
  gas_used_ratio: string;
  next_base_fee_wei: string;
  next_base_fee_gwei: string;
  next_blob_base_fee_wei: string | null;
  next_blob_base_fee_gwei: string | null;
  fork: string | null;
  next_fork: string | null;
  chain_id: number;
}

const s = (v: bigint | null) => (v === null ? null : v.toString());
const g = (v: bigint | null) => (v === null ? null : formatGwei(v));

export function baseFeeFacts(head: FeeHeader, schedule: ForkSchedule): BaseFeeFacts {
  const p = projectFees(head, schedule);
  return {
    block: Number(head.number),
    block_timestamp: head.timestamp,
    base_fee_wei: p.baseFee.toString(),
    base_fee_gwei: formatGwei(p.baseFee),
    blob_base_fee_wei: s(p.blobBaseFee),
    blob_base_fee_gwei: g(p.blobBaseFee),
    gas_used_ratio: ratioString(p.gasUsed, p.gasLimit),
    next_base_fee_wei: p.nextBaseFee.toString(),
    next_base_fee_gwei: formatGwei(p.nextBaseFee),
    next_blob_base_fee_wei: s(p.nextBlobBaseFee),
    next_blob_base_fee_gwei: g(p.nextBlobBaseFee),
    fork: p.fork,
    next_fork: p.nextFork,
    chain_id: schedule.chainId,
  };
}

/** Fees of the providers whose fee lives on chain (id → bps); a provider that cannot be read is left out. */
export async function readOnchainFees(rpc: EthRpc, providers: readonly FlashLoanProvider[], signal?: AbortSignal): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const reads = await Promise.allSettled(
    providers
      .filter((p) => p.feeSource === "onchain" && p.feeCall)
      .map(async (p) => {
        const ret = await rpc.ethCall(p.feeCall!.to, p.feeCall!.selector, signal);
        const bps = decodeUint(ret);
        if (bps <= 10_000n) out.set(p.id, Number(bps));
      }),
  );
  // Every read failed: the node is down, which the caller reports rather than an empty map.
  const failed = reads.filter((r) => r.status === "rejected");
  if (failed.length === reads.length && failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
  return out;
}

/** How much of `symbol` a provider can lend now (0 = none), and its fee. */
export async function checkCandidate(
  rpc: EthRpc,
  p: FlashLoanProvider,
  symbol: string,
  fees: ReadonlyMap<string, number>,
  signal?: AbortSignal,
): Promise<CheckedCandidate | null> {
  const asset = ASSETS[symbol]!.address;
  const feeBps = p.feeSource === "onchain" ? fees.get(p.id) : (p.fixedFeeBps ?? undefined);
  if (feeBps === undefined) return null;
  const l = p.liquidity;
  let available = 0n;
  if (l.kind === "balance") {
    available = decodeUint(await rpc.ethCall(asset, encodeAddressCall(SELECTOR_BALANCE_OF, l.holder), signal));
  } else if (l.kind === "mint-ceiling") {
    available = decodeUint(await rpc.ethCall(p.address, SELECTOR_DSS_FLASH_MAX, signal));
  } else if (l.kind === "aave-reserve") {
    const [enabled, paused] = await Promise.all([
      rpc.ethCall(l.dataProvider, encodeAddressCall(SELECTOR_GET_FLASHLOAN_ENABLED, asset), signal),
      rpc.ethCall(l.dataProvider, encodeAddressCall(SELECTOR_GET_PAUSED, asset), signal),
    ]);
    // The reserve's flags; its depth is not read here, so an enabled reserve counts as one unit available.
    available = decodeUint(enabled) === 1n && decodeUint(paused) === 0n ? 1n : 0n;
  } else {
    return null;
  }
  return { provider: p, feeBps, available };
}

export type EthereumHealth = ChainHealth;

/** Ethereum's entry in /v1/health: the chain id and head, with a short deadline. Never throws. */
export function ethereumHealth(rpc: EthRpc, opts: { timeoutMs?: number } = {}): Promise<EthereumHealth> {
  return probeChainHealth(
    rpc.configured,
    async (signal) => {
      const [chainId, head] = await Promise.all([rpc.chainId(signal), rpc.blockNumber(signal)]);
      return { height: Number(head), network: `eip155:${chainId}` };
    },
    opts.timeoutMs,
  );
}
