/**
 * A Monero watch's subaddresses, as its holder sets them and the tick scans them.
 *
 * - The look-ahead: the scanner finds payments to subaddresses (account i,
 *   minor j) for i < accounts and j < minors. The server's default
 *   (MONERO_SUBADDRESS_LOOKAHEAD) is kept small, because each subaddress costs
 *   a fixed-base multiplication when the watch's table is built and ~150 bytes
 *   while it is cached; a watch may ask for up to a wallet's own 50 × 200.
 * - The invoice account: Checkout hands out minors 1, 2, … of this account,
 *   one per invoice (docs/checkout.md). At most 49, so that a wallet restored
 *   from its seed (which looks 50 accounts ahead) sees it.
 * - Issued ranges: a subaddress handed out past the look-ahead is recorded
 *   here (per account, the highest minor plus one), and the tick asks the
 *   scanner for those too, so an invoice's payment is never missed whatever
 *   the look-ahead.
 * A changed look-ahead applies to the blocks scanned from then on; payments
 * made earlier to subaddresses it newly covers are found by a historical
 * scan with the same look-ahead (docs/monero.md).
 */
import { z } from "zod";
import type { Selectable } from "kysely";
import type { SubaddressScan } from "../chains/scanner.js";
import { badRequest } from "../core/errors.js";
import type { WatchesTable } from "../db/schema.js";
import type { Queryable } from "../db/types.js";

/** A wallet's own look-ahead (wallet2: 50 accounts × 200 minors): the most a watch may ask for. */
export const MAX_LOOKAHEAD_ACCOUNTS = 50;
export const MAX_LOOKAHEAD_KEYS = 50 * 200;
/** The highest invoice account: a wallet restored from its seed looks 50 accounts ahead. */
export const MAX_INVOICE_ACCOUNT = 49;

export const SubaddressLookaheadInput = z
  .object({
    accounts: z.number().int().min(1).max(MAX_LOOKAHEAD_ACCOUNTS).describe("Accounts 0..accounts−1"),
    minors: z.number().int().min(1).max(MAX_LOOKAHEAD_KEYS).describe("Minor indices 0..minors−1 in each account"),
  })
  .refine((l) => l.accounts * l.minors <= MAX_LOOKAHEAD_KEYS, { message: `accounts × minors must be at most ${MAX_LOOKAHEAD_KEYS} (a wallet's 50 × 200)` })
  .describe("Monero: the subaddresses scanned besides the main address (a primary-address watch only)");

export const InvoiceAccountInput = z
  .number()
  .int()
  .min(0)
  .max(MAX_INVOICE_ACCOUNT)
  .describe("Monero: the account whose subaddresses (minor 1, 2, …) Checkout hands out, one per invoice (default 0)");

export type Lookahead = z.infer<typeof SubaddressLookaheadInput>;

/** What a watch's holder sees of its subaddress settings (Monero primary-address watches). */
export const SubaddressSettingsSchema = z.object({
  lookahead: z.object({ accounts: z.number().int(), minors: z.number().int(), source: z.enum(["watch", "server"]) }),
  invoiceAccount: z.number().int(),
  issued: z.array(z.object({ account: z.number().int(), minors: z.number().int() })).describe("Subaddresses handed out to invoices, scanned whatever the look-ahead: minors 0..minors−1 of each account"),
});
export type SubaddressSettings = z.infer<typeof SubaddressSettingsSchema>;

type SettingsColumns = Pick<Selectable<WatchesTable>, "subaddress_accounts" | "subaddress_minors" | "invoice_account">;

/** The look-ahead a watch scans: its own, else the server's. */
export function lookaheadOf(row: SettingsColumns, serverDefault: Lookahead): Lookahead & { source: "watch" | "server" } {
  if (row.subaddress_accounts !== null && row.subaddress_minors !== null) return { accounts: row.subaddress_accounts, minors: row.subaddress_minors, source: "watch" };
  return { ...serverDefault, source: "server" };
}

/**
 * Whether a watch takes subaddress settings: Monero primary addresses only (a
 * subaddress watch sees payments to that one subaddress; Zcash scans every
 * diversified address of its key without a look-ahead).
 */
export function refuseSubaddressSettings(chain: string, isSubaddress: boolean, asked: boolean): void {
  if (!asked) return;
  if (chain !== "monero")
    throw badRequest("subaddress_settings_not_applicable", "subaddressLookahead and invoiceAccount apply to Monero watches only: a Zcash watch sees every diversified address of its key.");
  if (isSubaddress)
    throw badRequest("subaddress_settings_not_applicable", "This watch is of a Monero subaddress, which sees payments to that subaddress only: watch the wallet's primary address to scan its subaddresses.");
}

/** The ranges handed out past the look-ahead, per watch. */
async function issuedRanges(db: Queryable, watchIds: readonly string[]): Promise<Map<string, { major: number; minors: number }[]>> {
  const out = new Map<string, { major: number; minors: number }[]>();
  if (watchIds.length === 0) return out;
  const rows = await db.selectFrom("watch_issued_subaddresses").select(["watch_id", "major", "minors"]).where("watch_id", "in", watchIds).orderBy("watch_id").orderBy("major").execute();
  for (const r of rows) {
    const list = out.get(r.watch_id) ?? [];
    list.push({ major: r.major, minors: r.minors });
    out.set(r.watch_id, list);
  }
  return out;
}

/** What the scanner is asked to scan for each Monero watch of a tick batch (one query for the batch). */
export async function subaddressScans(
  db: Queryable,
  watches: readonly (SettingsColumns & { id: string; chain: string })[],
  serverDefault: Lookahead,
): Promise<Map<string, SubaddressScan>> {
  const monero = watches.filter((w) => w.chain === "monero");
  const issued = await issuedRanges(
    db,
    monero.map((w) => w.id),
  );
  return new Map(
    monero.map((w) => {
      const { accounts, minors } = lookaheadOf(w, serverDefault);
      const ranges = issued.get(w.id);
      return [w.id, ranges ? { accounts, minors, issued: ranges } : { accounts, minors }];
    }),
  );
}

/** The holder's view of a watch's settings. */
export async function subaddressSettings(db: Queryable, row: SettingsColumns & { id: string }, serverDefault: Lookahead): Promise<SubaddressSettings> {
  const ranges = (await issuedRanges(db, [row.id])).get(row.id) ?? [];
  return { lookahead: lookaheadOf(row, serverDefault), invoiceAccount: row.invoice_account, issued: ranges.map((r) => ({ account: r.major, minors: r.minors })) };
}

/**
 * Records that (major, minor) was handed out (an invoice's subaddress), so the
 * scanner scans it even past the look-ahead. Inside the caller's transaction;
 * a range only ever grows. Indices inside the look-ahead are recorded too: a
 * later, smaller look-ahead must not lose them.
 */
export async function recordIssuedSubaddress(trx: Queryable, watchId: string, index: { major: number; minor: number }): Promise<void> {
  await trx
    .insertInto("watch_issued_subaddresses")
    .values({ watch_id: watchId, major: index.major, minors: index.minor + 1 })
    .onConflict((oc) => oc.columns(["watch_id", "major"]).doUpdateSet((eb) => ({ minors: eb.fn("greatest", [eb.ref("watch_issued_subaddresses.minors"), eb.ref("excluded.minors")]) })))
    .execute();
}

/** The columns a create or an update writes: a look-ahead (null: the server's), an invoice account. */
export function settingsColumns(input: { subaddressLookahead?: Lookahead | null; invoiceAccount?: number }): { subaddress_accounts?: number | null; subaddress_minors?: number | null; invoice_account?: number } {
  return {
    ...(input.subaddressLookahead !== undefined
      ? { subaddress_accounts: input.subaddressLookahead?.accounts ?? null, subaddress_minors: input.subaddressLookahead?.minors ?? null }
      : {}),
    ...(input.invoiceAccount !== undefined ? { invoice_account: input.invoiceAccount } : {}),
  };
}
