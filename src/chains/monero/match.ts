/**
 * Which outputs of one prepared transaction belong to which view accounts.
 * From BATCH_MIN_ACCOUNTS accounts on, the batch scanner shares each tx's
 * work among them (batch.ts, 3–5× less work than one by one); below, each
 * account takes the plain path. Malformed tx data never throws here: it
 * simply owns nothing.
 */
import { BATCH_MIN_ACCOUNTS, scanTxForAccounts } from "./batch.js";
import { derivationsFor, matchOutputs, type PreparedTx } from "./scan.js";
import type { OwnedOutput, ViewAccount } from "./types.js";

/** Watches scanned together per transaction (batch scanner) between two time-budget checks. */
export const SCAN_GROUP = 64;

/** Outputs of one prepared tx for each account, in the accounts' order. */
export function scanForAccounts(prepared: PreparedTx, accounts: ViewAccount[]): OwnedOutput[][] {
  if (accounts.length >= BATCH_MIN_ACCOUNTS) return scanTxForAccounts(prepared.tx, accounts);
  return accounts.map((a) => matchTx(prepared, a));
}

/** Outputs of one prepared tx for one account; never throws on malformed tx data. */
export function matchTx(prepared: PreparedTx, account: ViewAccount): OwnedOutput[] {
  try {
    return matchOutputs(prepared, account, derivationsFor(prepared, account.viewSecret));
  } catch {
    return [];
  }
}
