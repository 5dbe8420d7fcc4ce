/**
 * Scanning one transaction against many watches with the work shared per
 * transaction. Every (watch, tx) pair still gets the full check — its own
 * derivation 8·a·R, view tags, and for tag hits the one-time key and
 * commitment checks of scan.ts — but:
 *
 *  - each tx public key R is decoded once and expanded into a fixed-window
 *    table of multiples (k·2^(w·j)·R, signed digits), so a·R for a watch costs
 *    about 253/w mixed additions instead of ~253 doublings plus additions;
 *  - the field arithmetic is 16-limb float (field25519.ts) without encode/decode
 *    round trips, and the projective results for all watches are normalised
 *    together with one field inversion (Montgomery's trick);
 *  - the window width is chosen from the number of watches, so one watch does
 *    not pay for a big table.
 *
 * The result is byte-identical to generateKeyDerivation (tests compare them
 * on Monero's vectors, torsion cases included): a is used as an integer,
 * never reduced together with the cofactor.
 */
import { L, decodePoint } from "./crypto.js";
import { buildPointTable, chooseWindow, encodeExtBatch, ext, signedDigits, tableMul, type Ext } from "./edwards-fast.js";
import { isLegacyTx, matchOutputs, prepareTx, scanTx, type AccountDerivations } from "./scan.js";
import type { OwnedOutput, ScanTx, ViewAccount } from "./types.js";

/** Below this many watches a tx is scanned with the plain per-watch path (no table). */
export const BATCH_MIN_ACCOUNTS = 3;
const digitCache = new WeakMap<ViewAccount, Map<number, Int32Array>>();
function digitsFor(account: ViewAccount, w: number): Int32Array {
  let m = digitCache.get(account);
  if (!m) digitCache.set(account, (m = new Map()));
  let d = m.get(w);
  if (!d) m.set(w, (d = signedDigits(account.viewSecret, w)));
  return d;
}


/**
 * D = 8·a·R for every account, sharing R's table; null for all when R does
 * not decode. Byte-identical to generateKeyDerivation.
 */
export function batchDerivations(txPublicKey: Uint8Array, accounts: ViewAccount[], w = chooseWindow(accounts.length)): (Uint8Array | null)[] {
  const R = decodePoint(txPublicKey);
  if (!R) return accounts.map(() => null);
  // a·(8·R) = 8·(a·R) as integer multiples, so the cofactor is applied once to R
  // instead of three doublings per watch. (Not (8a mod l)·R, which differs when R has torsion.)
  const table = buildPointTable(R.clearCofactor(), w);
  // An account with an out-of-range key (never produced by makeViewAccount) gets no derivation
  // rather than failing the whole batch.
  const valid = accounts.map((acc) => acc.viewSecret > 0n && acc.viewSecret < L);
  const results: Ext[] = [];
  accounts.forEach((acc, i) => {
    if (!valid[i]) return;
    const Q = ext();
    tableMul(table, digitsFor(acc, w), Q);
    results.push(Q);
  });
  const encoded = encodeExtBatch(results);
  let k = 0;
  return valid.map((ok) => (ok ? encoded[k++]! : null));
}


// ---------------------------------------------------------------------------
// Scanning

/** Outputs of one tx for each account ([account] → owned outputs). Never throws for malformed tx data. */
export function scanTxForAccounts(tx: ScanTx, accounts: ViewAccount[]): OwnedOutput[][] {
  if (accounts.length < BATCH_MIN_ACCOUNTS) return accounts.map((a) => scanTx(tx, a));
  try {
    const prepared = prepareTx(tx);
    const w = chooseWindow(accounts.length);
    // A Carrot transaction has no legacy derivations to share: matchOutputs runs the Carrot scan.
    const legacy = isLegacyTx(prepared);
    const main = legacy ? prepared.extra.txPublicKeys.map((R) => batchDerivations(R, accounts, w)) : [];
    // Additional keys: derived for every account up front (each account may need any of them).
    const additional = legacy && prepared.additionalUsable ? prepared.extra.additionalPublicKeys.map((R) => batchDerivations(R, accounts, w)) : [];
    return accounts.map((account, ai) => {
      const derivations: AccountDerivations = {
        main: main.map((perAccount) => perAccount[ai]!),
        additional: (i) => additional[i]?.[ai] ?? null,
      };
      try {
        return matchOutputs(prepared, account, derivations);
      } catch {
        return [];
      }
    });
  } catch {
    return accounts.map(() => []);
  }
}

/** A block's worth: result[tx][account]. */
export function scanTxsForAccounts(txs: ScanTx[], accounts: ViewAccount[]): OwnedOutput[][][] {
  return txs.map((tx) => scanTxForAccounts(tx, accounts));
}


export { batchBasePlusPoint, buildPointTable, chooseWindow, signedDigits } from "./edwards-fast.js";
