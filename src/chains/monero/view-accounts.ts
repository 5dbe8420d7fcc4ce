/**
 * View accounts kept in memory between scanner calls, so a primary
 * address's subaddress look-ahead table (the costly part of a cold start)
 * is not rebuilt every tick. Entries are keyed by a SHA-256 of address,
 * view key and look-ahead: the key itself is never a map key, never
 * written and never logged.
 *
 * A watch whose issued subaddresses grow (a new invoice past the look-ahead)
 * gets a new entry built from its previous one: the table is copied and only
 * the new indices are derived.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { decodePoint } from "./crypto.js";
import { lookaheadProblem, makeViewAccount, normalizeLookahead } from "./keys.js";
import { addSpendKeys } from "./subaddress.js";
import type { MoneroNetwork, SubaddressIndex, SubaddressLookahead, ViewAccount } from "./types.js";

const issuedText = (l: SubaddressLookahead) => (l.issued ?? []).map((r) => `${r.major}:${r.minors}`).join(",");

/** Names an account in caches and in the scan pool: address, key and look-ahead, hashed. */
export function accountKeyOf(address: string, viewKey: string, lookahead: SubaddressLookahead): string {
  const l = normalizeLookahead(lookahead);
  return createHash("sha256")
    .update(`${address}\u0000${viewKey.trim().toLowerCase()}\u0000${l.accounts}x${l.minors}\u0000${issuedText(l)}`)
    .digest("hex");
}

/** Names the wallet alone (address and key), whatever its look-ahead. */
function walletKeyOf(address: string, viewKey: string): string {
  return createHash("sha256").update(`${address}\u0000${viewKey.trim().toLowerCase()}`).digest("hex");
}

/** The indices `next` covers and `prev` does not, when both share a rectangle (else null: build afresh). */
export function addedIndices(prev: SubaddressLookahead, next: SubaddressLookahead): SubaddressIndex[] | null {
  if (prev.accounts !== next.accounts || prev.minors !== next.minors) return null;
  const had = new Map((prev.issued ?? []).map((r) => [r.major, r.minors]));
  const added: SubaddressIndex[] = [];
  for (const r of next.issued ?? []) {
    const floor = Math.max(had.get(r.major) ?? 0, r.major < next.accounts ? next.minors : 0, r.major === 0 ? 1 : 0);
    for (let minor = floor; minor < r.minors; minor++) added.push({ major: r.major, minor });
  }
  // A range that shrank keeps keys the new look-ahead does not name: build afresh instead.
  for (const [major, minors] of had) if ((next.issued ?? []).every((r) => r.major !== major || r.minors < minors)) return null;
  return added;
}

export class ViewAccountCache {
  private readonly accounts: LRUCache<string, ViewAccount>;
  /** Wallet → the key of its newest account, to grow a table instead of rebuilding it. */
  private readonly newest: LRUCache<string, string>;

  constructor(
    private readonly lookahead: SubaddressLookahead,
    private readonly network: MoneroNetwork | undefined,
    max: number,
  ) {
    this.accounts = new LRUCache({ max: Math.max(1, max) });
    this.newest = new LRUCache({ max: Math.max(1, max) });
  }

  /** Whether the account is built already (a cold one is the costly case). */
  has(address: string, viewKey: string, lookahead: SubaddressLookahead = this.lookahead): boolean {
    return this.accounts.get(accountKeyOf(address, viewKey, lookahead)) !== undefined;
  }

  /** The account for a watch, built on first use; throws a 400 ServiceError on a bad key. */
  get(address: string, viewKey: string, lookahead: SubaddressLookahead = this.lookahead): { account: ViewAccount; key: string } {
    const key = accountKeyOf(address, viewKey, lookahead);
    let account = this.accounts.get(key);
    if (!account) {
      const wallet = walletKeyOf(address, viewKey);
      account = this.grown(wallet, lookahead) ?? makeViewAccount(address, viewKey, { lookahead, ...(this.network ? { network: this.network } : {}) });
      this.accounts.set(key, account);
      this.newest.set(wallet, key);
    }
    return { account, key };
  }

  /** The wallet's newest account with the indices `lookahead` adds, when only issued ranges grew. */
  private grown(wallet: string, lookahead: SubaddressLookahead): ViewAccount | null {
    const prevKey = this.newest.get(wallet);
    const prev = prevKey ? this.accounts.get(prevKey) : undefined;
    if (!prev || prev.kind === "subaddress" || lookaheadProblem(lookahead)) return null;
    const next = normalizeLookahead(lookahead);
    const added = addedIndices(prev.lookahead, next);
    const B = decodePoint(prev.spendPublicKey);
    if (!added || !B) return null;
    const spendKeys = new Map(prev.spendKeys);
    addSpendKeys(spendKeys, prev.viewSecretBytes, B, added);
    return { ...prev, spendKeys, lookahead: next };
  }
}
