/**
 * The payment reconciler: settles every `pending` payment row one way or the
 * other, by the chain's word, and lists what it cannot settle.
 *
 * A row is pending from the moment an authorisation is accepted until its
 * work commits with the settlement. A row still pending after the grace
 * period was left by a process that died (or an unknown settlement outcome):
 *   - the authorisation is unused and can no longer be executed (validBefore
 *     passed): nothing moved, the row becomes `failed` (expired_unsettled);
 *   - it is unused but still valid: left pending (its owner may yet settle);
 *   - the chain shows it paid us this price: the row becomes `settled` with
 *     `work_done = false` (error work_not_committed): money moved, no work.
 *     The client's retry with the same authorisation does the work then,
 *     once; until then the operator sees it in `vigil payments pending`;
 *   - it was used by some other transaction, or cancelled: `failed` (nothing
 *     reached us). Only on that evidence: an authorisation marked used whose
 *     transaction is not found is left pending and listed, never failed;
 *   - the chain cannot be read (no EVM_RPC_URL, RPC down): left as is and
 *     listed.
 * It also purges stored answers whose time is up (docs/idempotency.md).
 */
import type { Logger } from "pino";
import type { Database } from "../db/types.js";
import type { Clock } from "../core/clock.js";
import type { Job } from "../core/jobs.js";
import type { AuthorizationFinding, AuthorizationReader } from "./authorization-state.js";
import * as store from "./payment-store.js";
import type { PaymentRow } from "./payment-store.js";

/** A pending row younger than this may still be in flight (verify, work, settle with its receipt wait). */
export const RECONCILE_GRACE_SECONDS = 120;
const BATCH = 100;

export interface OpenPayment {
  id: string;
  status: "pending" | "settled" | "failed";
  payer: string;
  route: string;
  amount_atomic: string;
  network: string;
  nonce: string;
  tx_hash: string | null;
  error: string | null;
  created_at: string;
  /** What is wrong, for the operator. */
  state: "settled_without_work" | "pending_unresolved";
}

export interface ReconcileDeps {
  db: Database;
  chain: AuthorizationReader | null;
  clock: Clock;
  log: Pick<Logger, "warn" | "info" | "error">;
  /** Pending rows younger than this are left alone (default RECONCILE_GRACE_SECONDS). */
  graceSeconds?: number;
  /** Told of each finding (the vigil_reconciler_findings_total metric). */
  onFinding?: (finding: "chain_unreadable" | "still_pending" | "expired_unsettled" | "used_elsewhere" | "used_unattributed" | "settled_without_work") => void;
}

export interface ReconcileResult {
  checked: number;
  failed: number;
  orphaned: number;
  purged: number;
  /** Rows that stay open (pending, or settled without work), as the operator sees them; the warning names only those past the grace period. */
  open: OpenPayment[];
}

/** Rows that need a person or a client retry: pending ones, and settled ones whose work never committed. */
export async function openPayments(db: Database): Promise<OpenPayment[]> {
  return (await store.openRows(db)).map(describe);
}

function describe(r: PaymentRow): OpenPayment {
  return {
    id: r.id,
    status: r.status,
    payer: r.payer,
    route: r.route,
    amount_atomic: String(r.amount_atomic),
    network: r.network,
    nonce: r.nonce,
    tx_hash: r.tx_hash,
    error: r.error,
    created_at: new Date(r.created_at).toISOString(),
    state: r.status === "settled" ? "settled_without_work" : "pending_unresolved",
  };
}

export async function reconcilePayments(deps: ReconcileDeps): Promise<ReconcileResult> {
  const { db, chain, clock, log } = deps;
  const purged = await store.purgeExpiredAnswers(db, new Date(clock.now()));
  const cutoff = new Date(clock.now() - (deps.graceSeconds ?? RECONCILE_GRACE_SECONDS) * 1000);
  const pending = await store.pendingBefore(db, cutoff, BATCH);
  let failed = 0;
  let orphaned = 0;
  for (const row of pending) {
    if (!chain) continue;
    const verdict = await settleByChain(deps, chain, row);
    if (verdict === "failed") failed++;
    if (verdict === "orphaned") orphaned++;
  }
  const open = await openPayments(db);
  // A pending row inside the grace period is a payment in flight, not one that needs a person:
  // the warning waits for the same grace as the settling above.
  const attention = open.filter((o) => o.state === "settled_without_work" || new Date(o.created_at) < cutoff);
  if (attention.length) {
    log.warn(
      { open: attention.map((o) => ({ id: o.id, state: o.state, route: o.route, payer: o.payer, tx: o.tx_hash })) },
      `payment reconciler: ${attention.length} payment(s) need attention (vigil payments pending)`,
    );
  }
  return { checked: pending.length, failed, orphaned, purged, open };
}

/** One pending row past the grace period, by the chain's word: failed, settled without its work, or left pending. */
async function settleByChain(deps: ReconcileDeps, chain: AuthorizationReader, row: PaymentRow): Promise<"failed" | "orphaned" | "left"> {
  const { db, clock, log } = deps;
  let finding: AuthorizationFinding;
  try {
    finding = await chain.check(row.payer, row.nonce, BigInt(row.amount_atomic), { txHash: row.tx_hash });
  } catch (e) {
    log.warn({ payment: row.id, err: (e as Error).message }, "payment reconciler: the chain could not be read");
    deps.onFinding?.("chain_unreadable");
    return "left";
  }
  const at = new Date(clock.now());
  // Each write is conditional on `pending`: a client's retry that resumed the work meanwhile wins.
  if (finding.state === "unused") {
    const expired = row.valid_before !== null && BigInt(row.valid_before) * 1000n < BigInt(clock.now());
    if (expired) {
      await store.failPending(db, row.id, "expired_unsettled", at);
      deps.onFinding?.("expired_unsettled");
      return "failed";
    }
    await store.notePendingChecked(db, row.id, at);
    deps.onFinding?.("still_pending");
    return "left";
  }
  if (finding.state === "used_unattributed") {
    // Marked used, but no log says by whom (outside the search window, a lagging node): no verdict; listed.
    await store.notePendingChecked(db, row.id, at);
    deps.onFinding?.("used_unattributed");
    log.warn({ payment: row.id, route: row.route, payer: row.payer }, "payment reconciler: the authorisation is used on chain but its transaction was not found; left pending");
    return "left";
  }
  if (finding.state === "used_elsewhere") {
    await store.failPending(db, row.id, "authorization_used_elsewhere", at);
    deps.onFinding?.("used_elsewhere");
    return "failed";
  }
  await store.markSettledWithoutWork(db, row.id, { txHash: finding.txHash, settledAt: at, checkedAt: at });
  deps.onFinding?.("settled_without_work");
  log.error({ payment: row.id, route: row.route, payer: row.payer, tx: finding.txHash }, "payment settled on chain without its work: the client's retry with the same authorisation gets the work");
  return "orphaned";
}

/** The reconciler as a background job: at start-up, then every minute. */
export function paymentReconcilerJob(deps: ReconcileDeps, intervalMs = 60_000): Job {
  return {
    name: "payment reconciler",
    intervalMs,
    run: async () => {
      const r = await reconcilePayments(deps);
      if (r.failed || r.orphaned || r.purged) deps.log.info({ ...r, open: r.open.length }, "payment reconciler");
      return { more: r.failed + r.orphaned >= BATCH };
    },
  };
}
