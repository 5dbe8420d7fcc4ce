/**
 * Private Watch operations. Each is a plain async function over WatchDeps and
 * the request's database handle (a transaction on paid routes), used by the
 * REST routes and, later, the MCP tools alike.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { z } from "zod";
import { ServiceError, conflict, unauthorized, unavailable } from "../core/errors.js";
import { hashToken, newToken, tokenMatches } from "../core/tokens.js";
import type { Queryable } from "../db/types.js";
import { checkWebhookUrl } from "../webhooks/url-guard.js";
import { generateWebhookSecret } from "../webhooks/sign.js";
import {
  applyIdleDrain,
  applyTopup,
  CREATE_CREDIT,
  creditBlock,
  forfeitCredit,
  IDLE_RATE_PER_DAY,
  LOW_CREDIT_THRESHOLD,
  openMeter,
  PER_DELIVERY,
  type LedgerEntry,
} from "./meter.js";
import { eventBody, expiresAtFor, meterColumns, meterOf, snapshotOf } from "./model.js";
import { insertEvents } from "./outbox.js";
import type { WatchDeps } from "./deps.js";
import type { ChainId, ChainScanner, ValidatedWatchKey } from "../chains/scanner.js";

export const ChainSchema = z.enum(["monero", "zcash"]);

export const CreateWatchInput = z.object({
  chain: ChainSchema,
  address: z.string().trim().min(1).max(512),
  viewKey: z.string().trim().min(1).max(2048),
  webhookUrl: z.string().trim().min(1).max(2048),
  birthdayHeight: z.number().int().min(0).max(100_000_000).optional(),
  /** Legacy input: accepted and ignored. */
  durationDays: z.unknown().optional(),
});
export type CreateWatchInput = z.infer<typeof CreateWatchInput>;

export const WatchAuthInput = z.object({
  watchId: z.string().uuid(),
  watchToken: z.string().min(1).max(256),
});

function scannerFor(deps: WatchDeps, chain: ChainId): ChainScanner {
  const s = deps.scanners[chain];
  if (!s) throw unavailable("chain_not_configured", `${chain} is not configured on this service.`);
  return s;
}

function requireSecretBox(deps: WatchDeps) {
  if (!deps.secretBox) throw unavailable("master_key_not_configured", "This service has no MASTER_KEY; watches cannot be created.");
  return deps.secretBox;
}

/** Everything about a create request that can be refused before any payment: chain, keys, webhook URL. */
export async function checkCreateWatch(deps: WatchDeps, input: CreateWatchInput): Promise<ValidatedWatchKey> {
  const scanner = scannerFor(deps, input.chain);
  requireSecretBox(deps);
  const key = scanner.validateWatchKey(input.address, input.viewKey);
  await checkWebhookUrl(input.webhookUrl, deps.urlPolicy, deps.resolver);
  return key;
}

function ledgerRows(watchId: string, entries: readonly LedgerEntry[], ref: string | null) {
  return entries.map((e) => ({
    watch_id: watchId,
    kind: e.kind,
    amount_atomic: e.amountAtomic.toString(),
    balance_after: e.balanceAfter.toString(),
    reason: e.reason,
    ref,
  }));
}

export const TOPUP_PATHS = {
  topup: "/v1/private/topup",
  "topup-1": "/v1/private/topup-1",
  "topup-5": "/v1/private/topup-5",
  "topup-custom": "/v1/private/topup-custom",
} as const;

export async function createWatch(
  deps: WatchDeps,
  db: Queryable,
  input: CreateWatchInput,
  opts: { openingCredit: bigint; funding: string; paymentRef: string | null },
) {
  const key = await checkCreateWatch(deps, input);
  const box = requireSecretBox(deps);
  const scanner = scannerFor(deps, input.chain);
  const startHeight = input.birthdayHeight ?? (await scanner.defaultStartHeight());
  const id = randomUUID();
  const watchToken = newToken("wt_");
  const webhookSecret = generateWebhookSecret();
  const nowMs = deps.clock.now();
  const opened = openMeter(opts.openingCredit, nowMs, `watch created (${opts.funding})`);
  const expiresAt = expiresAtFor(opened.state, nowMs);
  await db
    .insertInto("watches")
    .values({
      id,
      chain: input.chain,
      network: key.network,
      address: key.address,
      view_key_enc: box.seal(input.viewKey, `viewkey:${id}`),
      webhook_secret_enc: box.seal(webhookSecret, `webhook:${id}`),
      token_hash: hashToken(watchToken),
      webhook_url: input.webhookUrl,
      status: "active",
      funding: opts.funding,
      ...meterColumns(opened.state),
      start_height: startHeight,
      scan_state: null,
      snapshot: null,
      initial_scan_done: false,
      next_poll_at: new Date(nowMs),
      lease_owner: null,
      lease_until: null,
      consecutive_failures: 0,
      delivery_count: 0,
      last_event_type: null,
      last_polled_at: null,
      expires_at: expiresAt,
    })
    .execute();
  if (opened.entries.length) await db.insertInto("watch_ledger").values(ledgerRows(id, opened.entries, opts.paymentRef)).execute();
  return {
    watchId: id,
    watchToken,
    webhookSecret,
    chain: input.chain,
    network: key.network,
    address: key.address,
    startHeight,
    expiresAt: expiresAt.toISOString(),
    creditAtomic: opened.state.creditAtomic.toString(),
    ratePerDayAtomic: IDLE_RATE_PER_DAY.toString(),
    ratePerCallAtomic: PER_DELIVERY.toString(),
    credit: creditBlock(opened.state, deps.clock),
    topupEndpoints: Object.values(TOPUP_PATHS).map((p) => `POST ${p}`),
    testEndpoint: `/v1/private/watch/${id}/test`,
    statusEndpoint: `/v1/private/watch/${id}`,
    notice: "watchToken and webhookSecret are shown only now: store them. The view key is encrypted at rest and never returned.",
  };
}

const AUTH_FAILED = () => unauthorized("invalid_watch_token", "Unknown watch or wrong watch token.");

/** Loads a watch for a token holder; an unknown id and a wrong token get the same answer. */
async function authorizedWatch(db: Queryable, watchId: string, token: string | undefined, lock = false) {
  let q = db.selectFrom("watches").selectAll().where("id", "=", watchId);
  if (lock) q = q.forUpdate();
  const w = await q.executeTakeFirst();
  if (!w || !tokenMatches(token, w.token_hash) || w.status === "cancelled") throw AUTH_FAILED();
  return w;
}

/** Refusals a top-up gets before any payment: credentials and a watch that can take credit. */
export async function checkTopup(db: Queryable, input: { watchId: string; watchToken: string }): Promise<void> {
  const w = await authorizedWatch(db, input.watchId, input.watchToken);
  if (w.status === "dead")
    throw conflict("watch_dead", "This watch was retired after 50 consecutive failed deliveries; create a new watch instead.");
}

export async function topupWatch(deps: WatchDeps, db: Queryable, input: { watchId: string; watchToken: string }, amount: bigint, ref: string | null) {
  const w = await authorizedWatch(db, input.watchId, input.watchToken, true);
  if (w.status === "dead")
    throw conflict("watch_dead", "This watch was retired after 50 consecutive failed deliveries; create a new watch instead.");
  const nowMs = deps.clock.now();
  const drained = applyIdleDrain(meterOf(w), nowMs);
  const wasPaused = drained.state.creditAtomic === 0n;
  const topped = applyTopup(drained.state, amount, nowMs, "top-up");
  const meter = topped.state;
  const expiresAt = expiresAtFor(meter, nowMs);
  const entries = [...drained.entries, ...topped.entries];
  await db.insertInto("watch_ledger").values(ledgerRows(w.id, entries, ref)).execute();
  await db
    .updateTable("watches")
    .set({ ...meterColumns(meter), expires_at: expiresAt, ...(wasPaused ? { next_poll_at: new Date(nowMs) } : {}) })
    .where("id", "=", w.id)
    .execute();
  if (wasPaused) {
    const snap = snapshotOf(w.snapshot, w.start_height);
    await insertEvents(db, [
      {
        watchId: w.id,
        billable: true,
        body: eventBody({ id: w.id, chain: w.chain, address: w.address }, "status_change", snap, snap, meter, deps.clock, {
          status: { previous: "paused", current: "active", reason: "credit topped up" },
        }),
      },
    ]);
  }
  return {
    watchId: w.id,
    addedAtomic: amount.toString(),
    creditAtomic: meter.creditAtomic.toString(),
    expiresAt: expiresAt.toISOString(),
    credit: creditBlock(meter, deps.clock),
    lowCreditRearmed: amount >= LOW_CREDIT_THRESHOLD,
  };
}

export async function watchStatus(deps: WatchDeps, db: Queryable, watchId: string, token: string | undefined) {
  const w = await authorizedWatch(db, watchId, token);
  const meter = meterOf(w);
  const now = deps.clock.now();
  const paused = w.status === "active" && meter.creditAtomic === 0n;
  const pending = await db
    .selectFrom("webhook_outbox")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("watch_id", "=", w.id)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return {
    watchId: w.id,
    chain: w.chain,
    network: w.network,
    address: w.address,
    status: paused ? "paused" : w.status,
    credit: creditBlock(meter, deps.clock),
    lastPolledAt: w.last_polled_at?.toISOString() ?? null,
    nextPollAt: w.status === "active" && !paused ? new Date(w.next_poll_at).toISOString() : null,
    nextPollInSeconds: w.status === "active" && !paused ? Math.max(0, Math.ceil((new Date(w.next_poll_at).getTime() - now) / 1000)) : null,
    deliveryCount: w.delivery_count,
    pendingDeliveries: Number(pending?.n ?? 0),
    consecutiveFailures: w.consecutive_failures,
    lastEventType: w.last_event_type,
    lastSnapshot: snapshotOf(w.snapshot, w.start_height),
    startHeight: w.start_height,
    initialScanComplete: w.initial_scan_done,
    webhookUrl: w.webhook_url,
    expiresAt: new Date(w.expires_at).toISOString(),
    createdAt: new Date(w.created_at).toISOString(),
  };
}

export async function cancelWatch(deps: WatchDeps, db: Queryable, watchId: string, token: string | undefined) {
  const w = await authorizedWatch(db, watchId, token, true);
  const forfeited = forfeitCredit(meterOf(w), "watch cancelled: remaining credit forfeited");
  if (forfeited.entries.length) await db.insertInto("watch_ledger").values(ledgerRows(w.id, forfeited.entries, null)).execute();
  await db.deleteFrom("webhook_outbox").where("watch_id", "=", w.id).where("status", "=", "pending").execute();
  // The row goes at the next tick's expiry sweep; until then it answers like an unknown watch.
  await db
    .updateTable("watches")
    .set({ status: "cancelled", ...meterColumns(forfeited.state), expires_at: new Date(deps.clock.now()), lease_owner: null, lease_until: null })
    .where("id", "=", w.id)
    .execute();
  return { watchId: w.id, status: "cancelled", forfeitedAtomic: (-(forfeited.entries[0]?.amountAtomic ?? 0n)).toString() };
}

/** Queues one synthetic_test event (not billed) and returns its outbox id. */
export async function queueTestEvent(deps: WatchDeps, db: Queryable, watchId: string, token: string | undefined) {
  const w = await authorizedWatch(db, watchId, token);
  if (w.status === "dead") throw conflict("watch_dead", "This watch was retired after 50 consecutive failed deliveries.");
  const snap = snapshotOf(w.snapshot, w.start_height);
  const body = eventBody({ id: w.id, chain: w.chain, address: w.address }, "synthetic_test", snap, snap, meterOf(w), deps.clock, {
    test: true,
  });
  await insertEvents(db, [{ watchId: w.id, billable: false, body }]);
  const row = await db.selectFrom("webhook_outbox").select("id").where("nonce", "=", body.nonce).executeTakeFirstOrThrow();
  return { outboxId: row.id, nonce: body.nonce };
}

/** Counters for GET /v1/private/health. */
export async function watchCounters(db: Queryable) {
  const byStatus = await sql<{ chain: string; status: string; paused: boolean; n: string; credit: string | null }>`
    SELECT chain, status, (credit_atomic = 0) AS paused, count(*)::text AS n, sum(credit_atomic)::text AS credit
    FROM watches GROUP BY chain, status, (credit_atomic = 0)`.execute(db);
  const outbox = await sql<{ status: string; n: string }>`SELECT status, count(*)::text AS n FROM webhook_outbox GROUP BY status`.execute(db);
  const ledger = await sql<{ kind: string; total: string; n: string }>`
    SELECT kind, sum(amount_atomic)::text AS total, count(*)::text AS n FROM watch_ledger GROUP BY kind`.execute(db);
  const watches = { total: 0, active: 0, paused: 0, dead: 0, cancelled: 0, by_chain: {} as Record<string, number> };
  let credit = 0n;
  for (const r of byStatus.rows) {
    const n = Number(r.n);
    watches.total += n;
    watches.by_chain[r.chain] = (watches.by_chain[r.chain] ?? 0) + n;
    if (r.status === "active") {
      if (r.paused) watches.paused += n;
      else watches.active += n;
      credit += BigInt(r.credit ?? "0");
    } else if (r.status === "dead") watches.dead += n;
    else watches.cancelled += n;
  }
  return {
    watches,
    credit: {
      outstanding_atomic: credit.toString(),
      ledger: Object.fromEntries(ledger.rows.map((r) => [r.kind, { total_atomic: r.total, entries: Number(r.n) }])),
    },
    deliveries: Object.fromEntries(outbox.rows.map((r) => [r.status, Number(r.n)])),
  };
}

