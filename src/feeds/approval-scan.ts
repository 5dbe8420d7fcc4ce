/**
 * The counter-MEV scan: a background job beside the Ethereum follower that
 * reads, per block range, the ERC-20 Approval logs (one eth_getLogs per
 * range) and the reverted transactions (eth_getBlockReceipts per block), and
 * keeps what the counter-MEV feed scores (docs/feeds.md, Counter-MEV).
 * One run:
 *   1. the range: from the block after the stored `scanned_to` (a first run
 *      starts `retention` blocks below the head) up to `batch` blocks, never
 *      past the head;
 *   2. logs and receipts of the range; for a reverted transaction, its gas
 *      limit (eth_getTransactionByHash, at most MAX_GAS_LOOKUPS per block)
 *      tells out-of-gas apart;
 *   3. the kind (eth_getCode) of each spender not seen before;
 *   4. for the approvals that are dangling candidates (value > 0 to an EOA,
 *      or to a spender on a risk list), the live allowance on chain: the
 *      last Approval log is not the allowance (OpenZeppelin v5 spends
 *      unlimited allowances without a log);
 *   5. one transaction: the rows, the new `scanned_to`, and the pruning of
 *      rows older than the retention.
 * Writes are idempotent upserts, so a run repeated by another worker stores
 * the same rows. Reorgs: the scan trails the head by `confirmations` blocks.
 */
import { sql } from "kysely";
import type { Job } from "../core/jobs.js";
import type { Queryable } from "../db/types.js";
import { withTransaction } from "../db/transaction.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import { accountKind, APPROVAL_TOPIC, failedTransactions, parseApprovalLogs, readAllowance, type ApprovalLog, type FailedTx } from "../chains/ethereum/approvals.js";
import type { RiskLists } from "../chains/ethereum/risk-lists.js";

/** Reverted transactions per block whose gas limit is looked up. */
const MAX_GAS_LOOKUPS = 16;

export interface ApprovalScanDeps {
  db: Queryable;
  rpc: EthRpc;
  lists: RiskLists;
  /** Blocks kept (and scanned back from the head on a first run). */
  retention: number;
  /** Blocks per run. */
  batch: number;
  /** Blocks the scan stays behind the head (reorg margin). */
  confirmations: number;
}

export interface ScanState {
  firstBlock: bigint;
  scannedTo: bigint;
  scannedToTime: number;
}

export async function scanState(db: Queryable, chainId: number): Promise<ScanState | null> {
  const r = await sql<{ first_block: string; scanned_to: string; scanned_to_time_s: string }>`
    SELECT first_block::text, scanned_to::text, scanned_to_time_s::text FROM cmev_scan_state WHERE chain_id = ${String(chainId)}`.execute(db);
  const row = r.rows[0];
  return row ? { firstBlock: BigInt(row.first_block), scannedTo: BigInt(row.scanned_to), scannedToTime: Number(row.scanned_to_time_s) } : null;
}

export interface ScanResult {
  chainId: number;
  from: bigint | null;
  to: bigint | null;
  approvals: number;
  failed: number;
  more: boolean;
}

const hexOf = (n: bigint) => `0x${n.toString(16)}`;

async function gasLimitsOf(rpc: EthRpc, hashes: string[], signal?: AbortSignal): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const h of hashes.slice(0, MAX_GAS_LOOKUPS)) {
    const tx = (await rpc.call("eth_getTransactionByHash", [h], signal)) as { gas?: unknown } | null;
    if (tx && typeof tx.gas === "string" && /^0x[0-9a-fA-F]+$/.test(tx.gas)) out.set(h, BigInt(tx.gas));
  }
  return out;
}

export async function scanApprovalsOnce(deps: ApprovalScanDeps, signal?: AbortSignal): Promise<ScanResult> {
  const { db, rpc } = deps;
  const chainId = await rpc.chainId(signal);
  const head = (await rpc.blockNumber(signal)) - BigInt(deps.confirmations);
  const state = await scanState(db, chainId);
  const floor = head - BigInt(deps.retention) + 1n;
  let from = state ? state.scannedTo + 1n : floor;
  if (from < floor) from = floor;
  if (from < 0n) from = 0n;
  if (from > head) return { chainId, from: null, to: null, approvals: 0, failed: 0, more: false };
  const to = from + BigInt(deps.batch) - 1n < head ? from + BigInt(deps.batch) - 1n : head;

  const approvals: ApprovalLog[] = parseApprovalLogs(
    await rpc.call("eth_getLogs", [{ fromBlock: hexOf(from), toBlock: hexOf(to), topics: [APPROVAL_TOPIC] }], signal),
  );
  const failed: FailedTx[] = [];
  for (let n = from; n <= to; n++) {
    const receipts = await rpc.call("eth_getBlockReceipts", [hexOf(n)], signal);
    const reverted = ((receipts as { status?: string; transactionHash?: string }[] | null) ?? []).filter((r) => r && r.status === "0x0").map((r) => String(r.transactionHash).toLowerCase());
    const limits = reverted.length ? await gasLimitsOf(rpc, reverted, signal) : new Map<string, bigint>();
    failed.push(...failedTransactions(n, receipts, limits));
  }
  const toHeader = await rpc.header(to, signal);

  // Spender kinds, once per address.
  const spenders = [...new Set(approvals.map((a) => a.spender))];
  const known = spenders.length
    ? new Set(
        (await sql<{ address: string }>`SELECT address FROM cmev_accounts WHERE chain_id = ${String(chainId)} AND address IN (${sql.join(spenders)})`.execute(db)).rows.map((r) => r.address),
      )
    : new Set<string>();
  const kinds = new Map<string, string>();
  for (const s of spenders.filter((x) => !known.has(x))) kinds.set(s, await accountKind(rpc, s));
  const kindOf = async (s: string) => {
    if (kinds.has(s)) return kinds.get(s)!;
    const r = await sql<{ kind: string }>`SELECT kind FROM cmev_accounts WHERE chain_id = ${String(chainId)} AND address = ${s}`.execute(db);
    return r.rows[0]?.kind ?? "contract";
  };

  // Live allowances of the dangling candidates (the newest approval per pair in the range decides).
  const latest = new Map<string, ApprovalLog>();
  for (const a of approvals) latest.set(`${a.token}:${a.owner}:${a.spender}`, a);
  const allowances: { a: ApprovalLog; allowance: bigint | null }[] = [];
  for (const a of latest.values()) {
    if (a.value === 0n) {
      allowances.push({ a, allowance: 0n });
      continue;
    }
    const candidate = (await kindOf(a.spender)) === "eoa" || deps.lists.spender(a.spender) !== undefined;
    if (candidate) allowances.push({ a, allowance: await readAllowance(rpc, a.token, a.owner, a.spender).catch(() => null) });
  }

  await withTransaction(db, async (trx) => {
    const c = String(chainId);
    for (let i = 0; i < approvals.length; i += 500) {
      const rows = approvals.slice(i, i + 500).map((a) => sql`(${c}, ${a.block.toString()}, ${a.logIndex}, ${a.txHash}, ${a.token}, ${a.owner}, ${a.spender}, ${a.value.toString()})`);
      await sql`INSERT INTO cmev_approvals (chain_id, block_number, log_index, tx_hash, token, owner, spender, value) VALUES ${sql.join(rows)}
        ON CONFLICT (chain_id, block_number, log_index) DO UPDATE SET tx_hash = excluded.tx_hash, token = excluded.token, owner = excluded.owner, spender = excluded.spender, value = excluded.value`.execute(trx);
    }
    for (let i = 0; i < failed.length; i += 500) {
      const rows = failed.slice(i, i + 500).map((f) => sql`(${c}, ${f.txHash}, ${f.block.toString()}, ${f.from}, ${f.to}, ${f.gasUsed.toString()}, ${f.burnWei.toString()}, ${f.reason})`);
      await sql`INSERT INTO cmev_failed_txs (chain_id, tx_hash, block_number, from_address, to_address, gas_used, burn_wei, reason) VALUES ${sql.join(rows)}
        ON CONFLICT (chain_id, tx_hash) DO NOTHING`.execute(trx);
    }
    if (kinds.size) {
      const rows = [...kinds].map(([a, k]) => sql`(${c}, ${a}, ${k}, ${to.toString()})`);
      await sql`INSERT INTO cmev_accounts (chain_id, address, kind, checked_block) VALUES ${sql.join(rows)}
        ON CONFLICT (chain_id, address) DO UPDATE SET kind = excluded.kind, checked_block = excluded.checked_block`.execute(trx);
    }
    if (allowances.length) {
      const rows = allowances.map(({ a, allowance }) => sql`(${c}, ${a.token}, ${a.owner}, ${a.spender}, ${allowance === null ? null : allowance.toString()}, ${to.toString()})`);
      await sql`INSERT INTO cmev_allowances (chain_id, token, owner, spender, allowance, checked_block) VALUES ${sql.join(rows)}
        ON CONFLICT (chain_id, token, owner, spender) DO UPDATE SET allowance = excluded.allowance, checked_block = excluded.checked_block`.execute(trx);
    }
    // The oldest block still held: where the scan began, or the retention's edge once pruning started.
    const keep = to - BigInt(deps.retention) + 1n;
    const began = state?.firstBlock ?? from;
    const first = began > keep ? began : keep < 0n ? 0n : keep;
    await sql`INSERT INTO cmev_scan_state (chain_id, first_block, scanned_to, scanned_to_time_s) VALUES (${c}, ${first.toString()}, ${to.toString()}, ${String(toHeader?.timestamp ?? 0)})
      ON CONFLICT (chain_id) DO UPDATE SET first_block = excluded.first_block, scanned_to = excluded.scanned_to, scanned_to_time_s = excluded.scanned_to_time_s, updated_at = now()`.execute(trx);
    const keepFrom = keep.toString();
    await sql`DELETE FROM cmev_approvals WHERE chain_id = ${c} AND block_number < ${keepFrom}`.execute(trx);
    await sql`DELETE FROM cmev_failed_txs WHERE chain_id = ${c} AND block_number < ${keepFrom}`.execute(trx);
  });
  return { chainId, from, to, approvals: approvals.length, failed: failed.length, more: to < head };
}

export function approvalScanJob(deps: ApprovalScanDeps, intervalMs: number): Job {
  return {
    name: "counter-mev scan",
    intervalMs,
    leaseSeconds: 120,
    run: async (signal) => ({ more: (await scanApprovalsOnce(deps, signal)).more }),
  };
}
