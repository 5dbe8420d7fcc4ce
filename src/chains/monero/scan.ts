/**
 * View-key output scanning of one transaction (research/monero.md §2.11):
 * derivations 8·a·R for every tx public key (and per-output additional keys),
 * view tag, derivation scalar s_i, candidate spend key P_i − s_i·G looked up in
 * the account's spend-key table, then the amount (clear for coinbase/v1;
 * RingCT decoded and counted only when it opens the commitment).
 * Never throws on malformed transaction data: bad keys simply do not match.
 * A Carrot transaction (fork v17 on; carrot/tx.ts) takes the Carrot scan
 * instead and reports the same OwnedOutput; consensus never mixes the two
 * output kinds in one transaction, so its legacy work is skipped.
 */
import { decodeAmountV1, decodeAmountV2 } from "./amount.js";
import { decodePoint, deriveViewTag, derivationToScalar, generateKeyDerivation, keccak, scalarToBytes, type EdPoint } from "./crypto.js";
import { pointMinusBaseMul } from "./edwards-fast.js";
import { bytesToHex, concatBytes } from "./encoding.js";
import { parseExtra, type ParsedExtra } from "./extra.js";
import { carrotEnotesOf, carrotOwnedOutputs, type CarrotTxEnotes } from "./carrot/tx.js";
import type { KnownSharedSecrets } from "./carrot/scan.js";
import type { OwnedOutput, ScanOutput, ScanTx, SubaddressIndex, ViewAccount } from "./types.js";

/** Per-transaction data computed once and shared by every account scanned against the tx. */
export interface PreparedTx {
  tx: ScanTx;
  extra: ParsedExtra;
  /** The 0x04 list is used only when it has exactly one key per output (as monero-lws requires). */
  additionalUsable: boolean;
  /** Decoded one-time keys, filled lazily and shared by every account (null: does not decode). */
  outputPoints: (EdPoint | null | undefined)[];
  /** The Carrot enotes ("none" for a legacy transaction; "invalid" owns nothing on either path). */
  carrot: CarrotTxEnotes;
}

/** True when the legacy (CryptoNote) scan applies: no Carrot output in the transaction. */
export const isLegacyTx = (prepared: PreparedTx): boolean => prepared.carrot.kind === "none";

export function prepareTx(tx: ScanTx): PreparedTx {
  const extra = parseExtra(tx.extra);
  return {
    tx,
    extra,
    carrot: carrotEnotesOf(tx, extra),
    additionalUsable: extra.additionalPublicKeys.length > 0 && extra.additionalPublicKeys.length === tx.outputs.length,
    outputPoints: new Array<EdPoint | null | undefined>(tx.outputs.length),
  };
}

function outputPoint(prepared: PreparedTx, i: number): EdPoint | null {
  let p = prepared.outputPoints[i];
  if (p === undefined) prepared.outputPoints[i] = p = decodePoint(prepared.tx.outputs[i]!.publicKey);
  return p;
}

/** Source of derivations for one account: main ones (null where R did not decode) and lazy per-output additional ones. */
export interface AccountDerivations {
  main: (Uint8Array | null)[];
  additional(outputIndex: number): Uint8Array | null;
  /** Carrot: the account's k_v·D_e by D_e hex, when computed ahead (batch.ts); the Carrot scan computes missing ones. */
  carrot?: KnownSharedSecrets;
}

export function derivationsFor(prepared: PreparedTx, viewSecret: bigint): AccountDerivations {
  const main = isLegacyTx(prepared) ? prepared.extra.txPublicKeys.map((R) => generateKeyDerivation(R, viewSecret)) : [];
  const cache = new Map<number, Uint8Array | null>();
  return {
    main,
    additional(i) {
      if (!prepared.additionalUsable || !isLegacyTx(prepared)) return null;
      if (!cache.has(i)) cache.set(i, generateKeyDerivation(prepared.extra.additionalPublicKeys[i]!, viewSecret));
      return cache.get(i)!;
    },
  };
}

const PID_SALT = Uint8Array.of(0x8d); // HASH_KEY_ENCRYPTED_PAYMENT_ID

/** Encrypted short payment id: nonce ⊕ Keccak(D ‖ 0x8d)[0..8] (involution: also encrypts). */
export function cryptPaymentId(pid: Uint8Array, derivation: Uint8Array): Uint8Array {
  const pad = keccak(concatBytes(derivation, PID_SALT));
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = pid[i]! ^ pad[i]!;
  return out;
}

/** Tries one derivation against output i: returns the derivation scalar and the spend key found, or null. */
function tryDerivation(
  prepared: PreparedTx,
  derivation: Uint8Array,
  i: number,
  out: ScanOutput,
  spendKeys: Map<string, SubaddressIndex>,
): { scalar: bigint; index: SubaddressIndex } | null {
  if (out.viewTag !== undefined && deriveViewTag(derivation, i) !== out.viewTag) return null;
  const P = outputPoint(prepared, i);
  if (!P) return null;
  const s = derivationToScalar(derivation, i);
  const index = spendKeys.get(bytesToHex(pointMinusBaseMul(P, s))); // K = P − s·G
  return index ? { scalar: s, index } : null;
}

function outputAmount(tx: ScanTx, out: ScanOutput, scalar: bigint): bigint | null {
  if (tx.isCoinbase || tx.version === 1 || tx.rctType === 0) return out.amount ?? 0n;
  const k = scalarToBytes(scalar);
  if (tx.rctType >= 4 && tx.rctType <= 6) {
    if (!out.encryptedAmount || !out.commitment) return null;
    return decodeAmountV2(out.encryptedAmount, out.commitment, k)?.amount ?? null;
  }
  if (tx.rctType >= 1 && tx.rctType <= 3) {
    if (!out.encryptedMaskV1 || !out.encryptedAmountV1 || !out.commitment) return null;
    return decodeAmountV1(out.encryptedMaskV1, out.encryptedAmountV1, out.commitment, k)?.amount ?? null;
  }
  return null; // unknown RingCT type: cannot value it, so it is not counted
}

/**
 * Matches every output of a prepared tx for one account, given that account's
 * derivations. Shared by scanTx and the batch scanner so both run the same checks.
 */
export function matchOutputs(prepared: PreparedTx, account: ViewAccount, derivations: AccountDerivations): OwnedOutput[] {
  if (!isLegacyTx(prepared)) return carrotOwnedOutputs(prepared.carrot, account, derivations.carrot);
  const { tx } = prepared;
  const found = new Map<string, OwnedOutput>();
  for (let i = 0; i < tx.outputs.length; i++) {
    const out = tx.outputs[i]!;
    let hit: { scalar: bigint; index: SubaddressIndex } | null = null;
    for (const D of derivations.main) {
      if (D && (hit = tryDerivation(prepared, D, i, out, account.spendKeys))) break;
    }
    if (!hit && prepared.additionalUsable) {
      const Da = derivations.additional(i);
      if (Da) hit = tryDerivation(prepared, Da, i, out, account.spendKeys);
    }
    if (!hit) continue;
    const amount = outputAmount(tx, out, hit.scalar);
    if (amount === null) continue; // does not open its commitment: not counted
    const publicKey = bytesToHex(out.publicKey);
    const owned: OwnedOutput = {
      outputIndex: i,
      publicKey,
      amount,
      subaddress: account.kind === "subaddress" ? account.subaddressIndex : hit.index,
    };
    const D0 = derivations.main.find((d) => d !== null);
    if (prepared.extra.encryptedPaymentId && D0) owned.paymentId = bytesToHex(cryptPaymentId(prepared.extra.encryptedPaymentId, D0));
    // Burning bug: one one-time key counts once; keep the larger amount, as wallet2 does.
    const prev = found.get(publicKey);
    if (!prev || prev.amount < amount) found.set(publicKey, owned);
  }
  return [...found.values()].sort((a, b) => a.outputIndex - b.outputIndex);
}

/** All outputs of `tx` that belong to `account`. Never throws for malformed tx data. */
export function scanTx(tx: ScanTx, account: ViewAccount): OwnedOutput[] {
  try {
    const prepared = prepareTx(tx);
    return matchOutputs(prepared, account, derivationsFor(prepared, account.viewSecret));
  } catch {
    return [];
  }
}

/** Per-output hints for operators ("why was my payment not seen?"): did any derivation's view tag match? */
export function explainViewTags(tx: ScanTx, account: ViewAccount): { outputIndex: number; viewTag: string | null; viewTagMatches: boolean | null }[] {
  try {
    const prepared = prepareTx(tx);
    const d = derivationsFor(prepared, account.viewSecret);
    return tx.outputs.map((out, i) => {
      if (out.viewTag === undefined) return { outputIndex: i, viewTag: null, viewTagMatches: null };
      const candidates = [...d.main, prepared.additionalUsable ? d.additional(i) : null].filter((x): x is Uint8Array => x !== null);
      return {
        outputIndex: i,
        viewTag: out.viewTag.toString(16).padStart(2, "0"),
        viewTagMatches: candidates.some((D) => deriveViewTag(D, i) === out.viewTag),
      };
    });
  } catch {
    return [];
  }
}
