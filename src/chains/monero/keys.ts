/**
 * Watch-key checks and view accounts. A private view key a belongs to a
 * primary (standard/integrated) address when a·G = A, and to a subaddress
 * when a·D = C. Errors are 400 ServiceErrors that say which part is wrong.
 */
import { badRequest } from "../../core/errors.js";
import type { ValidatedWatchKey } from "../scanner.js";
import { decodeAddressOrThrow } from "./address.js";
import { decodePoint, isCanonicalScalar, mulBase, mulPoint, scalarFromBytes } from "./crypto.js";
import { bytesToHex, equalBytes, hexToBytesStrict } from "./encoding.js";
import { addSpendKeys, buildSpendKeyTable } from "./subaddress.js";
import type { DecodedAddress, MoneroNetwork, SubaddressIndex, SubaddressLookahead, ViewAccount } from "./types.js";

/**
 * Default look-ahead for a primary-address watch: accounts 0..1 × minors
 * 0..199 (400 spend keys). Wallets use 50 × 200; ours is smaller because each
 * key costs a fixed-base multiplication at account creation, and invoices are
 * issued from account 0 (and optionally 1). Documented in docs/monero.md.
 */
export const DEFAULT_LOOKAHEAD: SubaddressLookahead = { accounts: 2, minors: 200 };
/** Upper bound on accounts × minors a caller may ask for. */
export const MAX_LOOKAHEAD_KEYS = 50 * 200;
/**
 * Upper bound on the subaddresses handed out past the look-ahead (invoice
 * subaddresses) that one watch scans: each costs ~150 bytes in the cached
 * account and a fixed-base multiplication when it is built.
 */
export const MAX_ISSUED_KEYS = 100_000;

/** Whether a look-ahead is within bounds: a rectangle of 1..MAX_LOOKAHEAD_KEYS keys, issued ranges of u32 accounts within MAX_ISSUED_KEYS. */
export function lookaheadProblem(l: SubaddressLookahead): string | null {
  const count = (n: number) => Number.isInteger(n) && n >= 1;
  if (!count(l.accounts) || !count(l.minors) || l.accounts * l.minors > MAX_LOOKAHEAD_KEYS) return `Subaddress look-ahead must be 1..${MAX_LOOKAHEAD_KEYS} keys in total.`;
  let issued = 0;
  for (const r of l.issued ?? []) {
    if (!Number.isInteger(r.major) || r.major < 0 || r.major > 0xffffffff || !Number.isInteger(r.minors) || r.minors < 0) return "Issued subaddress ranges name a u32 account and a count of minor indices.";
    issued += r.minors;
  }
  return issued > MAX_ISSUED_KEYS ? `At most ${MAX_ISSUED_KEYS} issued subaddresses are scanned per watch.` : null;
}

/** The same look-ahead with one issued range per account (the widest), in account order. */
export function normalizeLookahead(l: SubaddressLookahead): SubaddressLookahead {
  if (!l.issued || l.issued.length === 0) return { accounts: l.accounts, minors: l.minors };
  const widest = new Map<number, number>();
  for (const r of l.issued) widest.set(r.major, Math.max(widest.get(r.major) ?? 0, r.minors));
  const issued = [...widest].filter(([major, minors]) => minors > (major < l.accounts ? l.minors : 0)).sort((a, b) => a[0] - b[0]).map(([major, minors]) => ({ major, minors }));
  return issued.length ? { accounts: l.accounts, minors: l.minors, issued } : { accounts: l.accounts, minors: l.minors };
}

/** Parses a private view key: 64 hex chars, canonical scalar, not zero. Throws 400 invalid_view_key. */
export function parseViewKey(viewKeyHex: string): Uint8Array {
  const bytes = typeof viewKeyHex === "string" ? hexToBytesStrict(viewKeyHex.trim()) : null;
  if (!bytes || bytes.length !== 32) {
    throw badRequest("invalid_view_key", "The private view key must be 64 hexadecimal characters (32 bytes).");
  }
  if (!isCanonicalScalar(bytes) || scalarFromBytes(bytes) === 0n) {
    throw badRequest("invalid_view_key", "The private view key is not a valid (reduced, non-zero) Ed25519 scalar.");
  }
  return bytes;
}

/** Throws 400 view_key_mismatch unless the view key belongs to the decoded address. */
export function assertViewKeyMatches(decoded: DecodedAddress, viewSecretBytes: Uint8Array): void {
  const a = scalarFromBytes(viewSecretBytes);
  if (decoded.kind === "subaddress") {
    const D = decodePoint(decoded.spendPublicKey);
    if (!D || !equalBytes(mulPoint(D, a).toBytes(), decoded.viewPublicKey)) {
      throw badRequest(
        "view_key_mismatch",
        "The private view key does not belong to this subaddress (a·D differs from the subaddress's public view key).",
      );
    }
    return;
  }
  if (!equalBytes(mulBase(a).toBytes(), decoded.viewPublicKey)) {
    throw badRequest(
      "view_key_mismatch",
      `The private view key does not belong to this ${decoded.kind} address (a·G differs from the address's public view key).`,
    );
  }
}

export interface ValidateOptions {
  /** When set, an address of another network is refused (400 invalid_address). */
  network?: MoneroNetwork;
}

/** Checks address and view key; the address is returned as given (Monero base58 has one spelling per payload). */
export function validateMoneroWatchKey(address: string, viewKeyHex: string, opts: ValidateOptions = {}): ValidatedWatchKey {
  const decoded = decodeAddressOrThrow(typeof address === "string" ? address.trim() : address, opts.network);
  const viewSecret = parseViewKey(viewKeyHex);
  assertViewKeyMatches(decoded, viewSecret);
  return { chain: "monero", address: decoded.address, network: decoded.network };
}

export interface ViewAccountOptions extends ValidateOptions {
  /** Primary-address watches only. */
  lookahead?: SubaddressLookahead;
  /** Subaddress watches only: the index, if the caller knows it (reported in OwnedOutput.subaddress). */
  subaddressIndex?: SubaddressIndex;
}

/** Builds the scanning material for a watch (validates exactly like validateMoneroWatchKey). */
export function makeViewAccount(address: string, viewKeyHex: string, opts: ViewAccountOptions = {}): ViewAccount {
  const decoded = decodeAddressOrThrow(typeof address === "string" ? address.trim() : address, opts.network);
  const viewSecretBytes = parseViewKey(viewKeyHex);
  assertViewKeyMatches(decoded, viewSecretBytes);
  const viewSecret = scalarFromBytes(viewSecretBytes);
  const given = opts.lookahead ?? DEFAULT_LOOKAHEAD;
  const problem = lookaheadProblem(given);
  if (problem) throw badRequest("invalid_lookahead", problem);
  const lookahead = normalizeLookahead(given);
  if (decoded.kind === "subaddress") {
    const spendKeys = new Map<string, SubaddressIndex>();
    const index = opts.subaddressIndex ?? null;
    // The table only needs the key; matches on a subaddress watch report account.subaddressIndex (null if unknown).
    spendKeys.set(bytesToHex(decoded.spendPublicKey), index ?? { major: -1, minor: -1 });
    return {
      network: decoded.network,
      address: decoded.address,
      kind: decoded.kind,
      viewSecret,
      viewSecretBytes,
      spendPublicKey: decoded.spendPublicKey,
      spendKeys,
      lookahead: { accounts: 0, minors: 0 },
      subaddressIndex: index,
    };
  }
  return {
    network: decoded.network,
    address: decoded.address,
    kind: decoded.kind,
    viewSecret,
    viewSecretBytes,
    spendPublicKey: decoded.spendPublicKey,
    spendKeys: buildSpendKeyTable(viewSecretBytes, decoded.spendPublicKey, lookahead),
    lookahead,
    subaddressIndex: { major: 0, minor: 0 },
  };
}

/**
 * Extends a primary-address account with explicitly issued subaddress indices
 * beyond its look-ahead (e.g. invoice subaddresses). Subaddress accounts
 * cannot be extended (their spend key table is the subaddress itself).
 */
export function addSubaddressesToAccount(account: ViewAccount, indices: SubaddressIndex[]): void {
  if (account.kind === "subaddress") throw new RangeError("a subaddress watch covers only its own subaddress");
  const B = decodePoint(account.spendPublicKey);
  if (!B) throw new RangeError("account spend key is not a point");
  addSpendKeys(account.spendKeys, account.viewSecretBytes, B, indices.filter((i) => !account.spendKeys.has(bytesToHex(account.spendPublicKey)) || i.major !== 0 || i.minor !== 0));
}
