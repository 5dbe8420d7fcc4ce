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
 *
 * A Carrot transaction shares its ECDH the same way: per distinct enote
 * ephemeral key D_e (one for a 2-output set, one per output above that), the
 * X25519 products k_v·D_e of all watches come from one window table of D_e's
 * Edwards point and one inversion (carrot/x25519.ts x25519UnclampedMany,
 * byte-identical to the ladder), and are handed to the Carrot scan, which
 * otherwise runs a 255-step ladder per watch and D_e. The view tag
 * transcript of each enote is read into its BLAKE2b block once per
 * transaction, so a watch's view tag costs one keyed hash of that block
 * (carrot/scan.ts shareCarrotTx, ownedCarrotEnotes).
 */
import { L, decodePoint } from "./crypto.js";
import { buildPointTable, chooseWindow, encodeExtBatch, ext, signedDigits, tableMul, type Ext } from "./edwards-fast.js";
import { isLegacyTx, matchOutputs, prepareTx, scanTx, type AccountDerivations } from "./scan.js";
import type { OwnedOutput, ScanTx, ViewAccount } from "./types.js";
import { carrotSharedSecrets, shareCarrotTx, type CarrotTxShared } from "./carrot/scan.js";
import type { CarrotTxEnotes } from "./carrot/tx.js";

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


/**
 * k_v·D_e (carrotSharedSecret) for every account, sharing D_e's table; null
 * where the product is the point at infinity, for all when D_e is not 32 bytes.
 */
export function batchCarrotSharedSecrets(ephemeralPubkey: Uint8Array, accounts: ViewAccount[], w = chooseWindow(accounts.length)): (Uint8Array | null)[] {
  return carrotSharedSecrets(
    accounts.map((a) => a.viewSecret),
    ephemeralPubkey,
    // Cached digits only for a k_v the table takes (x25519UnclampedMany asks for no others).
    { window: w, digits: (i) => digitsFor(accounts[i]!, w) },
  );
}

/**
 * A Carrot transaction's shared scan work (carrot/scan.ts shareCarrotTx):
 * every account's k_v·D_e for each distinct D_e, and the view tag transcripts
 * read once for all accounts. A coinbase is scanned for primary-address
 * watches only, so subaddress watches get no secret (their scan refuses
 * before it needs one). Null for a transaction with no Carrot enotes to scan.
 */
function carrotShared(carrot: CarrotTxEnotes, accounts: ViewAccount[], w: number): CarrotTxShared | null {
  if (carrot.kind !== "transfer" && carrot.kind !== "coinbase") return null;
  if (carrot.kind === "transfer") return shareCarrotTx(carrot.context, carrot.enotes, (De) => batchCarrotSharedSecrets(De, accounts, w));
  const needing = accounts.flatMap((a, i) => (a.kind === "subaddress" ? [] : [i]));
  const subset = needing.length === accounts.length ? accounts : needing.map((i) => accounts[i]!);
  return shareCarrotTx(null, carrot.enotes, (De) => {
    if (needing.length === 0) return [];
    const secrets = batchCarrotSharedSecrets(De, subset, w);
    if (subset === accounts) return secrets;
    const perAccount = new Array<Uint8Array | null | undefined>(accounts.length);
    needing.forEach((ai, k) => (perAccount[ai] = secrets[k]!));
    return perAccount;
  });
}

// ---------------------------------------------------------------------------
// Scanning

const noDerivation = (): null => null;

/** Outputs of one tx for each account ([account] → owned outputs). Never throws for malformed tx data. */
export function scanTxForAccounts(tx: ScanTx, accounts: ViewAccount[]): OwnedOutput[][] {
  if (accounts.length < BATCH_MIN_ACCOUNTS) return accounts.map((a) => scanTx(tx, a));
  try {
    const prepared = prepareTx(tx);
    const w = chooseWindow(accounts.length);
    // A Carrot transaction has no legacy derivations; its shared secrets are computed here instead.
    const legacy = isLegacyTx(prepared);
    const main = legacy ? prepared.extra.txPublicKeys.map((R) => batchDerivations(R, accounts, w)) : [];
    // Additional keys: derived for every account up front (each account may need any of them).
    const additional = legacy && prepared.additionalUsable ? prepared.extra.additionalPublicKeys.map((R) => batchDerivations(R, accounts, w)) : [];
    const carrot = legacy ? null : carrotShared(prepared.carrot, accounts, w);
    return accounts.map((account, ai) => {
      // A Carrot transaction reads only its shared work (no per-account closures on that path).
      const derivations: AccountDerivations = legacy
        ? { main: main.map((perAccount) => perAccount[ai]!), additional: (i) => additional[i]?.[ai] ?? null }
        : carrot
          ? { main: [], additional: noDerivation, carrot: { shared: carrot, watch: ai } }
          : { main: [], additional: noDerivation };
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
