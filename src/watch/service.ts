/**
 * Private Watch operations. Each is one plain async function of
 * `{ ctx, input }`: `ctx` carries the module's deps and the database handle of
 * the call (on paid routes the paywall's transaction, so the writes commit
 * with the settlement), `input` is already validated. Writes run in
 * withTransaction, which joins that outer transaction or opens one. The REST
 * routes and the MCP tools adapt these functions; they hold no logic of their own.
 */
import { randomUUID } from "node:crypto";
import { sql, type Selectable } from "kysely";
import { z } from "zod";
import { badRequest, conflict, unauthorized, unavailable } from "../core/errors.js";
import { hashToken, newToken, tokenMatches } from "../core/tokens.js";
import { withTransaction } from "../db/transaction.js";
import type { Queryable } from "../db/types.js";
import type { WatchesTable } from "../db/schema.js";
import { checkWebhookUrl } from "../webhooks/url-guard.js";
import { checkHeightAgainstTip } from "../chains/historical.js";
import { generateWebhookSecret } from "../webhooks/sign.js";
import { CREATE_CREDIT, creditBlock, IDLE_RATE_PER_DAY, LOW_CREDIT_THRESHOLD, openMeter, PER_DELIVERY } from "./meter.js";
import { eventBody, meterOf, serializeEvent, snapshotOf } from "./model.js";
import { closeAccount, creditTopup, insertEvents, openAccount } from "./account.js";
import { buildDeliveryHeaders } from "../webhooks/deliver.js";
import { signBody } from "../webhooks/sign.js";
import { TOPUP_PATHS } from "./topups.js";
import { sealKeyMaterial, writeKeyMaterial } from "./key-material.js";
import type { WatchDeps } from "./deps.js";
import type { ChainId, ChainScanner, ValidatedWatchKey } from "../chains/scanner.js";
import { decodeAddress } from "../chains/monero/address.js";
import {
  InvoiceAccountInput,
  refuseSubaddressSettings,
  settingsColumns,
  subaddressSettings,
  SubaddressLookaheadInput,
  type SubaddressSettings,
} from "./subaddresses.js";

/** What every operation receives besides its input. */
export interface WatchCtx {
  deps: WatchDeps;
  /** The call's handle: inside a paid route, the transaction that commits with settlement. */
  db: Queryable;
  /** Reference of the payment funding this call (the x402 nonce), recorded on its ledger rows. */
  paymentRef?: string | null;
  /** Names the call in delivery leases (the request id on HTTP). */
  callId?: string;
}

/** The arguments of every operation. */
export interface Op<I> {
  ctx: WatchCtx;
  input: I;
}

export const ChainSchema = z.enum(["monero", "zcash"]);

export const CreateWatchInput = z.object({
  chain: ChainSchema,
  address: z.string().trim().min(1).max(512),
  viewKey: z.string().trim().min(1).max(2048),
  webhookUrl: z.string().trim().min(1).max(2048),
  birthdayHeight: z
    .number()
    .int()
    .min(0)
    .max(100_000_000)
    .optional()
    .describe("First block scanned. At most about three days of blocks above the chain tip (Monero 2160, Zcash 3456): a later height is refused (400 invalid_height) before payment. Default: the tip (Zcash mainnet: 3042000)."),
  subaddressLookahead: SubaddressLookaheadInput.optional(),
  invoiceAccount: InvoiceAccountInput.optional(),
  /** Legacy input: accepted and ignored. */
  durationDays: z.unknown().optional(),
});
export type CreateWatchInput = z.infer<typeof CreateWatchInput>;

export const WatchAuthInput = z.object({
  watchId: z.string().uuid(),
  watchToken: z.string().min(1).max(256),
});
export type WatchAuthInput = z.infer<typeof WatchAuthInput>;

/** A watch named by id, with the token its holder presents (a header on GET/DELETE). */
export interface WatchRef {
  id: string;
  watchToken?: string | undefined;
}

function scannerFor(deps: WatchDeps, chain: ChainId): ChainScanner {
  const s = deps.scanners[chain];
  if (!s) throw unavailable("chain_not_configured", `${chain} is not configured on this service.`);
  return s;
}

function requireSecretBox(deps: WatchDeps) {
  if (!deps.secretBox) throw unavailable("master_key_not_configured", "This service has no MASTER_KEY; watches cannot be created.");
  return deps.secretBox;
}

/**
 * How far above the chain tip a watch's `birthdayHeight` may be: about three
 * days of blocks (Monero 2-minute blocks, Zcash 75-second blocks). A wallet
 * made just before it is used may name a height a little ahead of a node;
 * a height further out is a mistake that would make a watch that never fires.
 */
export const BIRTHDAY_MARGIN_BLOCKS: Readonly<Record<ChainId, number>> = { monero: 3 * 720, zcash: 3 * 1152 };

/** Everything about a create request that can be refused before any payment: chain, keys, birthday height, webhook URL. */
export async function checkCreateWatch({ ctx, input }: Op<CreateWatchInput>): Promise<ValidatedWatchKey> {
  const scanner = scannerFor(ctx.deps, input.chain);
  requireSecretBox(ctx.deps);
  const key = scanner.validateWatchKey(input.address, input.viewKey);
  refuseSubaddressSettings(input.chain, isMoneroSubaddress(input.chain, key.address), input.subaddressLookahead !== undefined || input.invoiceAccount !== undefined);
  if (input.birthdayHeight !== undefined && scanner.tipHeight) {
    checkHeightAgainstTip(input.birthdayHeight, await scanner.tipHeight(), { name: "birthdayHeight", detail: "birthday_height" }, BIRTHDAY_MARGIN_BLOCKS[input.chain]);
  }
  await checkWebhookUrl(input.webhookUrl, ctx.deps.urlPolicy, ctx.deps.resolver);
  return key;
}

/** Whether a watch's address is a Monero subaddress (which scans that one subaddress, with no look-ahead). */
function isMoneroSubaddress(chain: string, address: string): boolean {
  if (chain !== "monero") return false;
  const d = decodeAddress(address);
  return d.ok && d.value.kind === "subaddress";
}

/** The subaddress settings of a watch that has them (Monero primary addresses), else null. */
async function settingsOf(db: Queryable, deps: WatchDeps, w: Selectable<WatchesTable>): Promise<SubaddressSettings | null> {
  if (w.chain !== "monero" || isMoneroSubaddress(w.chain, w.address)) return null;
  return subaddressSettings(db, w, deps.subaddressDefault);
}

/** Said with every new watch. */
export const CREATE_NOTICE = "watchToken and webhookSecret are shown only now: store them. The view key is encrypted at rest and never returned.";

/** How a new watch is funded: its opening credit and where that came from (ledger reason). */
export interface WatchOpening {
  creditAtomic: bigint;
  funding: string;
}

/** The paid create route's opening: the $0.10 fee, paid in USDC, becomes the credit. */
export const USDC_OPENING: WatchOpening = { creditAtomic: CREATE_CREDIT, funding: "usdc" };

export async function createWatch({ ctx, input, opening = USDC_OPENING }: Op<CreateWatchInput> & { opening?: WatchOpening }) {
  const { deps } = ctx;
  // Checks and the chain tip come first, so a transaction this call opens is never held across DNS or node calls.
  const key = await checkCreateWatch({ ctx, input });
  const box = requireSecretBox(deps);
  const scanner = scannerFor(deps, input.chain);
  const startHeight = input.birthdayHeight ?? (await scanner.defaultStartHeight());
  const id = randomUUID();
  const watchToken = newToken("wt_");
  const webhookSecret = generateWebhookSecret();
  const nowMs = deps.clock.now();
  const opened = openMeter(opening.creditAtomic, nowMs, `watch created (${opening.funding})`);
  const expiresAt = await withTransaction(ctx.db, async (trx) => {
    const expires = await openAccount(
      trx,
      {
        id,
        chain: input.chain,
        network: key.network,
        address: key.address,
        view_key_enc: box.seal(input.viewKey, `viewkey:${id}`),
        webhook_secret_enc: box.seal(webhookSecret, `webhook:${id}`),
        token_hash: hashToken(watchToken),
        webhook_url: input.webhookUrl,
        status: "active",
        funding: opening.funding,
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
        ...settingsColumns(input),
      },
      opened,
      { nowMs, ref: ctx.paymentRef ?? null },
    );
    if (key.keyMaterial !== undefined) await writeKeyMaterial(trx, [{ watchId: id, sealed: sealKeyMaterial(box, id, key.keyMaterial) }]);
    return expires;
  });
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
    topupEndpoints: TOPUP_PATHS.map((p) => `POST ${p}`),
    testEndpoint: `/v1/private/watch/${id}/test`,
    statusEndpoint: `/v1/private/watch/${id}`,
    notice: CREATE_NOTICE,
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
export async function checkTopup({ ctx, input }: Op<WatchAuthInput>): Promise<void> {
  const w = await authorizedWatch(ctx.db, input.watchId, input.watchToken);
  if (w.status === "dead")
    throw conflict("watch_dead", "This watch was retired after 50 consecutive failed deliveries; create a new watch instead.");
}

/** Adds `amountAtomic` of credit (the price paid); a paused watch wakes up and says so with status_change. */
export async function topupWatch({ ctx, input }: Op<WatchAuthInput & { amountAtomic: bigint }>) {
  return withTransaction(ctx.db, async (trx) => {
    const w = await authorizedWatch(trx, input.watchId, input.watchToken, true);
    if (w.status === "dead")
      throw conflict("watch_dead", "This watch was retired after 50 consecutive failed deliveries; create a new watch instead.");
    return addCredit(ctx, trx, w, input.amountAtomic, "top-up");
  });
}

/**
 * Adds credit paid outside x402 (a settled coin quote), with no token: the
 * caller proved the payment. Joins the caller's transaction. Null when the
 * watch can take no credit (gone, cancelled or dead); the caller records why.
 */
export async function creditWatch({ ctx, input }: Op<{ watchId: string; amountAtomic: bigint; reason: string }>) {
  return withTransaction(ctx.db, async (trx) => {
    const w = await trx.selectFrom("watches").selectAll().where("id", "=", input.watchId).forUpdate().executeTakeFirst();
    if (!w || w.status !== "active") return null;
    return addCredit(ctx, trx, w, input.amountAtomic, input.reason);
  });
}

async function addCredit(ctx: WatchCtx, trx: Queryable, w: Selectable<WatchesTable>, amount: bigint, reason: string) {
  const { deps } = ctx;
  const nowMs = deps.clock.now();
  const { meter, expiresAt, resumed: wasPaused } = await creditTopup(trx, w, { amountAtomic: amount, reason, nowMs, ref: ctx.paymentRef ?? null });
  if (wasPaused) {
    const snap = snapshotOf(w.snapshot, w.start_height);
    await insertEvents(trx, [
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

/** The watch as its token holder sees it (GET /v1/private/watch/:id). */
export async function getWatchStatus({ ctx, input }: Op<WatchRef>) {
  const { db, deps } = ctx;
  const w = await authorizedWatch(db, input.id, input.watchToken);
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
    status: paused ? ("paused" as const) : w.status,
    credit: creditBlock(meter, deps.clock),
    lastPolledAt: w.last_polled_at?.toISOString() ?? null,
    nextPollAt: w.status === "active" && !paused ? new Date(w.next_poll_at).toISOString() : null,
    nextPollInSeconds: w.status === "active" && !paused ? Math.max(0, Math.ceil((new Date(w.next_poll_at).getTime() - now) / 1000)) : null,
    deliveryCount: w.delivery_count,
    pendingDeliveries: Number(pending?.n ?? 0),
    consecutiveFailures: w.consecutive_failures,
    lastEventType: w.last_event_type,
    lastSnapshot: snapshotOf(w.snapshot, w.start_height),
    subaddresses: await settingsOf(db, deps, w),
    startHeight: w.start_height,
    initialScanComplete: w.initial_scan_done,
    webhookUrl: w.webhook_url,
    expiresAt: new Date(w.expires_at).toISOString(),
    createdAt: new Date(w.created_at).toISOString(),
  };
}

export const UpdateWatchInput = z.object({
  id: z.string().uuid(),
  watchToken: z.string().max(256).optional(),
  subaddressLookahead: SubaddressLookaheadInput.nullable().optional().describe("Monero: the watch's own look-ahead; null goes back to the server's"),
  invoiceAccount: InvoiceAccountInput.optional(),
});

/**
 * Changes a watch's settings (x-watch-token): its Monero look-ahead and the
 * account its invoice subaddresses come from. A larger look-ahead applies to
 * the blocks scanned from the next tick on; invoice subaddresses already
 * handed out stay scanned whatever it becomes.
 */
export async function updateWatch({ ctx, input }: Op<z.infer<typeof UpdateWatchInput>>) {
  const asked = input.subaddressLookahead !== undefined || input.invoiceAccount !== undefined;
  if (!asked) throw badRequest("nothing_to_update", "Send subaddressLookahead or invoiceAccount.");
  return withTransaction(ctx.db, async (trx) => {
    const w = await authorizedWatch(trx, input.id, input.watchToken, true);
    refuseSubaddressSettings(w.chain, isMoneroSubaddress(w.chain, w.address), true);
    const cols = settingsColumns(input);
    // Settings only: never the credit columns (src/watch/account.ts is their one writer).
    const after = await trx
      .updateTable("watches")
      .set({ subaddress_accounts: cols.subaddress_accounts, subaddress_minors: cols.subaddress_minors, invoice_account: cols.invoice_account })
      .where("id", "=", w.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { watchId: w.id, subaddresses: (await settingsOf(trx, ctx.deps, after))! };
  });
}

/** Cancels a watch: the remaining credit is forfeited (one ledger row) and pending deliveries dropped. */
export async function cancelWatch({ ctx, input }: Op<WatchRef>) {
  return withTransaction(ctx.db, async (trx) => {
    const w = await authorizedWatch(trx, input.id, input.watchToken, true);
    const forfeited = await closeAccount(trx, w, { reason: "watch cancelled: remaining credit forfeited", nowMs: ctx.deps.clock.now() });
    return { watchId: w.id, status: "cancelled" as const, forfeitedAtomic: forfeited.toString() };
  });
}

/**
 * Sends one signed synthetic_test event to the watch's webhook now and
 * answers what happened: the receiver's status, the latency, the error. The
 * event goes around the outbox: it is attempted exactly once, never retried
 * later, never billed, and never counted toward the consecutive failures that
 * retire a watch (nor does a success reset them): the watch row is only read.
 */
export async function sendTestEvent({ ctx, input }: Op<WatchRef>) {
  const { deps } = ctx;
  const w = await authorizedWatch(ctx.db, input.id, input.watchToken);
  if (w.status === "dead") throw conflict("watch_dead", "This watch was retired after 50 consecutive failed deliveries.");
  const secret = requireSecretBox(deps).open(w.webhook_secret_enc, `webhook:${w.id}`);
  const snap = snapshotOf(w.snapshot, w.start_height);
  const body = eventBody({ id: w.id, chain: w.chain, address: w.address }, "synthetic_test", snap, snap, meterOf(w), deps.clock, { test: true });
  const bytes = serializeEvent(body);
  const started = performance.now();
  const result = await deps.sender.send({ url: w.webhook_url, body: bytes, headers: buildDeliveryHeaders(w.id, "synthetic_test", signBody(secret, bytes)) });
  return {
    watchId: w.id,
    event: "synthetic_test" as const,
    nonce: body.nonce,
    delivered: result.ok,
    receiverStatus: result.status ?? null,
    latencyMs: Math.max(0, Math.round(performance.now() - started)),
    error: result.ok ? null : (result.error ?? `HTTP ${result.status ?? "?"}`),
    retried: false as const,
  };
}

/** The funding of the service's own watches (its coin receiving wallets, checkout/quotes.ts): not merchants' money. */
export const SERVICE_FUNDING = "service";

interface WatchCounters {
  watches: { total: number; active: number; paused: number; dead: number; cancelled: number; by_chain: Record<string, number> };
  credit: { outstanding_atomic: string; ledger: Record<string, { total_atomic: string; entries: number }> };
  deliveries: Record<string, number>;
}

const emptyCounters = (): WatchCounters & { outstanding: bigint } => ({
  watches: { total: 0, active: 0, paused: 0, dead: 0, cancelled: 0, by_chain: {} },
  credit: { outstanding_atomic: "0", ledger: {} },
  deliveries: {},
  outstanding: 0n,
});

/**
 * Counters for GET /v1/private/health: watches by state and chain, credit,
 * ledger and deliveries — the merchants' at the top level, and the service's
 * own coin-wallet watches (funding `service`, opened with decades of credit)
 * apart under `service_watches`, so their internal credit never reads as
 * merchants' money. Ledger rows of a deleted watch count as a merchant's.
 */
export async function countWatches({ ctx }: { ctx: WatchCtx }) {
  const { db } = ctx;
  const byStatus = await sql<{ own: boolean; chain: string; status: string; paused: boolean; n: string; credit: string | null }>`
    SELECT (funding = ${SERVICE_FUNDING}) AS own, chain, status, (credit_atomic = 0) AS paused, count(*)::text AS n, sum(credit_atomic)::text AS credit
    FROM watches GROUP BY 1, chain, status, (credit_atomic = 0)`.execute(db);
  const outbox = await sql<{ own: boolean; status: string; n: string }>`
    SELECT (w.funding = ${SERVICE_FUNDING}) AS own, o.status, count(*)::text AS n
    FROM webhook_outbox o JOIN watches w ON w.id = o.watch_id GROUP BY 1, o.status`.execute(db);
  const ledger = await sql<{ own: boolean; kind: string; total: string; n: string }>`
    SELECT coalesce(w.funding = ${SERVICE_FUNDING}, false) AS own, l.kind, sum(l.amount_atomic)::text AS total, count(*)::text AS n
    FROM watch_ledger l LEFT JOIN watches w ON w.id = l.watch_id GROUP BY 1, l.kind`.execute(db);
  const merchants = emptyCounters();
  const service = emptyCounters();
  const side = (own: boolean) => (own ? service : merchants);
  for (const r of byStatus.rows) {
    const c = side(r.own);
    const n = Number(r.n);
    c.watches.total += n;
    c.watches.by_chain[r.chain] = (c.watches.by_chain[r.chain] ?? 0) + n;
    if (r.status === "active") {
      if (r.paused) c.watches.paused += n;
      else c.watches.active += n;
      c.outstanding += BigInt(r.credit ?? "0");
    } else if (r.status === "dead") c.watches.dead += n;
    else c.watches.cancelled += n;
  }
  for (const r of ledger.rows) side(r.own).credit.ledger[r.kind] = { total_atomic: r.total, entries: Number(r.n) };
  for (const r of outbox.rows) side(r.own).deliveries[r.status] = Number(r.n);
  const view = ({ outstanding, ...c }: ReturnType<typeof emptyCounters>): WatchCounters => ({ ...c, credit: { ...c.credit, outstanding_atomic: outstanding.toString() } });
  return { ...view(merchants), service_watches: view(service), chains: Object.keys(ctx.deps.scanners) };
}

