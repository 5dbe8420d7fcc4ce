/**
 * Subaddresses handed out past a watch's look-ahead (invoice subaddresses):
 * the spend-key table covers them, a cached account grows by the new indices
 * only (and ends equal to one built afresh), and the bounds are kept.
 * Round trips: the devnet's sender pays the subaddress, the scanner finds it
 * with its (major, minor) index.
 */
import { describe, expect, it } from "vitest";
import { lookaheadProblem, makeViewAccount, MAX_ISSUED_KEYS, normalizeLookahead } from "../../../src/chains/monero/keys.js";
import { scanTx } from "../../../src/chains/monero/scan.js";
import { parseTransactionBlob } from "../../../src/chains/monero/tx-binary.js";
import { addedIndices, accountKeyOf, ViewAccountCache } from "../../../src/chains/monero/view-accounts.js";
import { buildTransfer, seededRng } from "../../../devnet/monero-sender.js";
import { makeWallet } from "./helpers.js";

const RECT = { accounts: 2, minors: 20 };

describe("issued subaddress ranges", () => {
  const w = makeWallet("issued-ranges");

  it("the table holds the rectangle and every issued minor past it, and nothing else", () => {
    const account = makeViewAccount(w.address, w.viewSecretHex, { lookahead: { ...RECT, issued: [{ major: 0, minors: 35 }, { major: 7, minors: 3 }] } });
    // 2 × 20 (with (0,0) → B) + minors 20..34 of account 0 + minors 0..2 of account 7.
    expect(account.spendKeys.size).toBe(40 + 15 + 3);
    const indices = new Set([...account.spendKeys.values()].map((i) => `${i.major}/${i.minor}`));
    for (const k of ["0/0", "1/19", "0/34", "7/0", "7/2"]) expect(indices.has(k), k).toBe(true);
    for (const k of ["0/35", "1/20", "7/3", "2/0"]) expect(indices.has(k), k).toBe(false);
  });

  it("a payment to an issued subaddress past the look-ahead is found with its index; without the range it is not", () => {
    const built = buildTransfer({ destinations: [{ address: w.sub(0, 30), amount: 1234n }, { address: w.sub(7, 2), amount: 99n }], rng: seededRng("issued-pay") });
    const parsed = parseTransactionBlob(built.blob);
    if (!parsed.ok) throw new Error(parsed.error);
    const tx = { tx: parsed.value };
    const plain = makeViewAccount(w.address, w.viewSecretHex, { lookahead: RECT });
    expect(scanTx(tx.tx, plain)).toEqual([]);
    const issued = makeViewAccount(w.address, w.viewSecretHex, { lookahead: { ...RECT, issued: [{ major: 0, minors: 31 }, { major: 7, minors: 3 }] } });
    expect(scanTx(tx.tx, issued).map((o) => [o.amount, o.subaddress])).toEqual([
      [1234n, { major: 0, minor: 30 }],
      [99n, { major: 7, minor: 2 }],
    ]);
  });

  it("normalizes ranges: one per account, the widest, none inside the rectangle", () => {
    expect(normalizeLookahead({ ...RECT, issued: [{ major: 0, minors: 5 }, { major: 3, minors: 2 }, { major: 3, minors: 9 }, { major: 1, minors: 20 }] })).toEqual({ ...RECT, issued: [{ major: 3, minors: 9 }] });
    expect(normalizeLookahead({ ...RECT, issued: [] })).toEqual(RECT);
  });

  it("bounds: the rectangle within a wallet's 50 × 200, issued ranges within MAX_ISSUED_KEYS", () => {
    expect(lookaheadProblem({ accounts: 50, minors: 200 })).toBeNull();
    expect(lookaheadProblem({ accounts: 51, minors: 200 })).toMatch(/1\.\.10000 keys/);
    expect(lookaheadProblem({ ...RECT, issued: [{ major: 0, minors: MAX_ISSUED_KEYS }] })).toBeNull();
    expect(lookaheadProblem({ ...RECT, issued: [{ major: 0, minors: MAX_ISSUED_KEYS }, { major: 1, minors: 1 }] })).toMatch(/at most/i);
    expect(lookaheadProblem({ ...RECT, issued: [{ major: -1, minors: 1 }] })).toMatch(/u32/);
    expect(() => makeViewAccount(w.address, w.viewSecretHex, { lookahead: { ...RECT, issued: [{ major: 0, minors: MAX_ISSUED_KEYS + 1 }] } })).toThrow(/at most/i);
  });

  it("what a grown look-ahead adds: the new minors only; a changed rectangle or a shrunk range builds afresh", () => {
    expect(addedIndices({ ...RECT, issued: [{ major: 0, minors: 22 }] }, { ...RECT, issued: [{ major: 0, minors: 24 }, { major: 4, minors: 1 }] })).toEqual([
      { major: 0, minor: 22 },
      { major: 0, minor: 23 },
      { major: 4, minor: 0 },
    ]);
    expect(addedIndices(RECT, { accounts: 3, minors: 20 })).toBeNull();
    expect(addedIndices({ ...RECT, issued: [{ major: 0, minors: 30 }] }, { ...RECT, issued: [{ major: 0, minors: 25 }] })).toBeNull();
  });

  it("the cache grows a watch's account by the new indices only, to the same table as one built afresh, under a new key", () => {
    const cache = new ViewAccountCache(RECT, undefined, 10);
    const first = cache.get(w.address, w.viewSecretHex, { ...RECT, issued: [{ major: 0, minors: 25 }] });
    const grown = cache.get(w.address, w.viewSecretHex, { ...RECT, issued: [{ major: 0, minors: 40 }] });
    expect(grown.key).not.toBe(first.key);
    expect(grown.account).not.toBe(first.account);
    const fresh = makeViewAccount(w.address, w.viewSecretHex, { lookahead: { ...RECT, issued: [{ major: 0, minors: 40 }] } });
    expect([...grown.account.spendKeys].sort()).toEqual([...fresh.spendKeys].sort());
    expect(grown.account.lookahead).toEqual(fresh.lookahead);
    // The first account is untouched (the scan pool may hold it), and asking again returns the cached one.
    expect(first.account.spendKeys.size).toBe(40 + 5);
    expect(cache.get(w.address, w.viewSecretHex, { ...RECT, issued: [{ major: 0, minors: 40 }] }).account).toBe(grown.account);
    expect(cache.has(w.address, w.viewSecretHex, { ...RECT, issued: [{ major: 0, minors: 40 }] })).toBe(true);
    // The key names the look-ahead; the view key is never in it.
    expect(accountKeyOf(w.address, w.viewSecretHex, RECT)).not.toContain(w.viewSecretHex);
  });
});
