/**
 * View accounts kept in memory between scanner calls, so a primary
 * address's subaddress look-ahead table (the costly part of a cold start)
 * is not rebuilt every tick. Entries are keyed by a SHA-256 of address,
 * view key and look-ahead: the key itself is never a map key, never
 * written and never logged.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { makeViewAccount } from "./keys.js";
import type { MoneroNetwork, SubaddressLookahead, ViewAccount } from "./types.js";

export function accountKeyOf(address: string, viewKey: string, lookahead: SubaddressLookahead): string {
  return createHash("sha256")
    .update(`${address}\u0000${viewKey.trim().toLowerCase()}\u0000${lookahead.accounts}x${lookahead.minors}`)
    .digest("hex");
}

export class ViewAccountCache {
  private readonly accounts: LRUCache<string, ViewAccount>;

  constructor(
    private readonly lookahead: SubaddressLookahead,
    private readonly network: MoneroNetwork | undefined,
    max: number,
  ) {
    this.accounts = new LRUCache({ max: Math.max(1, max) });
  }

  /** Whether the account is built already (a cold one is the costly case). */
  has(address: string, viewKey: string): boolean {
    return this.accounts.get(accountKeyOf(address, viewKey, this.lookahead)) !== undefined;
  }

  /** The account for a watch, built on first use; throws a 400 ServiceError on a bad key. */
  get(address: string, viewKey: string): { account: ViewAccount; key: string } {
    const key = accountKeyOf(address, viewKey, this.lookahead);
    let account = this.accounts.get(key);
    if (!account) {
      account = makeViewAccount(address, viewKey, { lookahead: this.lookahead, ...(this.network ? { network: this.network } : {}) });
      this.accounts.set(key, account);
    }
    return { account, key };
  }
}
