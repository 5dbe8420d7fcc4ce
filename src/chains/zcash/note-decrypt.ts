/**
 * Trial decryption of shielded outputs with incoming viewing keys (protocol
 * spec §4.20, ZIP 212, ZIP 2005 for Ironwood). Pure and total: a ciphertext
 * that is not ours, or is malformed, yields null, never an exception.
 *
 * Sapling: lead byte 0x01 before Canopy and during its grace window, 0x02 from
 * Canopy on. Orchard pool: 0x02 only. Ironwood pool: 0x03 only (rcm per ZIP 2005).
 * A note counts only when its commitment recomputes to the on-chain cmu / cmx,
 * and (for 0x02/0x03) when the ephemeral key re-derives from rseed.
 */
import { chacha20, chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { bigintToLeBytes, bytesToBitsLE, bytesToHex, equalBytes, intToBitsLE, leBytesToBigint } from "./bytes.js";
import { DiversifierKey } from "./ff1.js";
import { JubjubPoint, jubjubExtract, jubjubFromBytes, jubjubMul, saplingBases, saplingDiversifyHash, saplingPedersenBase } from "./jubjub.js";
import type { ZcashNetwork } from "./network.js";
import { orchardIvkParts } from "./orchard-keys.js";
import { orchardDiversifyHash, pallasExtract, pallasFromBytes, pallasMul, pallasToBytes, type PallasPoint } from "./pallas.js";
import { blake2bPers, JUBJUB_R, PALLAS_P, prfExpand, toBaseOrchard, toScalarOrchard, toScalarSapling } from "./prf.js";
import { saplingInternalDfvk, saplingIvk } from "./sapling-keys.js";
import { orchardNullifier } from "./nullifier.js";
import { sinsemillaCommit } from "./sinsemilla.js";
import type { UnifiedFullViewingKey } from "./zip316.js";

export type ShieldedPool = "sapling" | "orchard" | "ironwood";
export type KeyScope = "external" | "internal";

export const COMPACT_CIPHERTEXT_SIZE = 52;
export const ENC_CIPHERTEXT_SIZE = 580;
export const MEMO_SIZE = 512;

/** One incoming viewing key of one protocol and scope. */
export interface ScanKey {
  scope: KeyScope;
  ivk: bigint;
  /** Diversifier key, to recover the diversifier index of a found note. */
  dk: Uint8Array;
  /** Orchard nullifier key (same for both scopes): when present, found Orchard/Ironwood notes carry their nullifier. */
  nk?: bigint;
}

/** The incoming keys a UFVK gives for trial decryption (a pool absent from the UFVK is simply not scanned). */
export interface ScanKeys {
  network: ZcashNetwork;
  sapling: ScanKey[];
  /** Orchard-protocol keys: used for both the Orchard and the Ironwood pool. */
  orchard: ScanKey[];
}

export function scanKeysFromUfvk(ufvk: UnifiedFullViewingKey): ScanKeys {
  const sapling: ScanKey[] = [];
  if (ufvk.sapling) {
    const ext = ufvk.sapling;
    sapling.push({ scope: "external", ivk: saplingIvk(ext.ak, ext.nk), dk: ext.dk });
    const int = saplingInternalDfvk(ext);
    sapling.push({ scope: "internal", ivk: saplingIvk(int.ak, int.nk), dk: int.dk });
  }
  const orchard: ScanKey[] = [];
  if (ufvk.orchard) {
    const nk = ufvk.orchard.fvk.nk;
    orchard.push({ scope: "external", ivk: ufvk.orchard.external.ivk, dk: ufvk.orchard.external.dk, nk });
    const int = orchardIvkParts(ufvk.orchard.fvk, "internal");
    if (int) orchard.push({ scope: "internal", ivk: int.ivk, dk: int.dk, nk });
  }
  return { network: ufvk.network, sapling, orchard };
}

/** A shielded output as it appears in a transaction or a compact block. */
export interface SaplingOutputData {
  cmu: Uint8Array;
  ephemeralKey: Uint8Array;
  /** 52 bytes (compact) or 580 bytes (full, with the memo and the tag). */
  ciphertext: Uint8Array;
}
export interface ActionOutputData {
  /** The action's nullifier field: ρ of the new note. */
  nullifier: Uint8Array;
  cmx: Uint8Array;
  ephemeralKey: Uint8Array;
  ciphertext: Uint8Array;
}

export interface DecryptedNote {
  pool: ShieldedPool;
  scope: KeyScope;
  leadByte: number;
  value: bigint;
  diversifier: Uint8Array;
  /** ZIP 32 diversifier index (recovered with dk); absent when the diversifier does not decrypt to an index < 2^88. */
  diversifierIndex?: bigint;
  rseed: Uint8Array;
  /** The 512-byte memo field: only from a full (580-byte) ciphertext. */
  memo?: Uint8Array;
  /**
   * Orchard/Ironwood: the note's nullifier (needs the key's nk), to be looked for
   * in the same pool's spends. Sapling nullifiers need the tree position: `saplingNullifier`.
   */
  nullifier?: Uint8Array;
}

// ---- heights and lead bytes ----

/** Canopy activation heights (ZIP 212 applies from there; 0x01 stays valid for 32,256 more blocks). */
const CANOPY_HEIGHT: Record<ZcashNetwork, number> = { mainnet: 1_046_400, testnet: 1_028_500, regtest: 1 };
export const ZIP212_GRACE_BLOCKS = 32_256;

/** Sapling lead bytes allowed at a height; without a height both are accepted (and reported). */
export function saplingLeadBytesAt(network: ZcashNetwork, height?: number): readonly number[] {
  if (height === undefined) return [0x01, 0x02];
  const canopy = CANOPY_HEIGHT[network];
  if (height < canopy) return [0x01];
  if (height < canopy + ZIP212_GRACE_BLOCKS) return [0x01, 0x02];
  return [0x02];
}

// ---- shared symmetric part ----

function decryptWith(key: Uint8Array, ciphertext: Uint8Array): Uint8Array | null {
  const nonce = new Uint8Array(12);
  if (ciphertext.length === COMPACT_CIPHERTEXT_SIZE) return chacha20(key, nonce, ciphertext, undefined, 1);
  if (ciphertext.length !== ENC_CIPHERTEXT_SIZE) return null;
  try {
    return chacha20poly1305(key, nonce).decrypt(ciphertext);
  } catch {
    return null;
  }
}

const u64le = (v: bigint): Uint8Array => bigintToLeBytes(v, 8);

function diversifierIndex(dk: Uint8Array, d: Uint8Array): bigint | undefined {
  try {
    return new DiversifierKey(dk).index(d);
  } catch {
    return undefined;
  }
}

// ---- Sapling ----

let pedersenBases: JubjubPoint[] | undefined;
function pedersenBase(i: number): JubjubPoint {
  pedersenBases ??= [];
  return (pedersenBases[i] ??= saplingPedersenBase(i));
}

/** Sapling windowed Pedersen NoteCommit (protocol spec §5.4.8.2): the full commitment point. */
export function saplingNoteCommit(gd: JubjubPoint, pkd: JubjubPoint, value: bigint, rcm: bigint): JubjubPoint {
  const bits = [1, 1, 1, 1, 1, 1, ...intToBitsLE(value, 64), ...bytesToBitsLE(gd.toBytes()), ...bytesToBitsLE(pkd.toBytes())];
  while (bits.length % 3 !== 0) bits.push(0);
  let acc = JubjubPoint.ZERO;
  for (let seg = 0; seg * 189 < bits.length; seg++) {
    const chunk = bits.slice(seg * 189, seg * 189 + 189);
    let scalar = 0n;
    for (let j = 0; j * 3 < chunk.length; j++) {
      const [s0, s1, s2] = [chunk[3 * j], chunk[3 * j + 1], chunk[3 * j + 2]];
      const enc = BigInt((1 - 2 * s2) * (1 + s0 + 2 * s1));
      scalar += enc << BigInt(4 * j);
    }
    scalar = ((scalar % JUBJUB_R) + JUBJUB_R) % JUBJUB_R;
    acc = acc.add(jubjubMul(pedersenBase(seg + 1), scalar));
  }
  return acc.add(jubjubMul(saplingBases().R, rcm));
}

/** KDF^Sapling key for one ivk and ephemeral key, or null when epk is not a valid point. */
export function saplingKdf(ivk: bigint, ephemeralKey: Uint8Array): Uint8Array | null {
  const epk = jubjubFromBytes(ephemeralKey);
  if (!epk) return null;
  const shared = jubjubMul(epk, ivk).clearCofactor();
  return blake2bPers("Zcash_SaplingKDF", 32, shared.toBytes(), ephemeralKey);
}

export function trySaplingOutput(keys: ScanKeys, out: SaplingOutputData, height?: number): DecryptedNote | null {
  if (out.cmu.length !== 32 || out.ephemeralKey.length !== 32) return null;
  const allowed = saplingLeadBytesAt(keys.network, height);
  for (const k of keys.sapling) {
    try {
      const key = saplingKdf(k.ivk, out.ephemeralKey);
      if (!key) return null;
      const note = saplingNoteFromKey(k, key, out, allowed);
      if (note) return note;
    } catch {
      // Malformed data never escapes as an exception: it is simply not our note.
    }
  }
  return null;
}

/**
 * The rest of a Sapling trial decryption once the KDF key is known: decrypt,
 * then check the plaintext (lead byte, ephemeral key, commitment). May throw
 * on malformed data; callers treat a throw as "not ours".
 */
export function saplingNoteFromKey(k: ScanKey, key: Uint8Array, out: SaplingOutputData, allowed: readonly number[]): DecryptedNote | null {
  const p = decryptWith(key, out.ciphertext);
  if (!p) return null;
  return checkSaplingPlaintext(k, p, out, allowed);
}

function checkSaplingPlaintext(k: ScanKey, p: Uint8Array, out: SaplingOutputData, allowed: readonly number[]): DecryptedNote | null {
  const lead = p[0];
  if (!allowed.includes(lead)) return null;
  const d = p.slice(1, 12);
  const value = leBytesToBigint(p.subarray(12, 20));
  const rseed = p.slice(20, 52);
  const gd = saplingDiversifyHash(d);
  if (!gd) return null;
  let rcm: bigint;
  if (lead === 0x02) {
    const esk = toScalarSapling(prfExpand(rseed, Uint8Array.of(0x05)));
    if (!equalBytes(jubjubMul(gd, esk).toBytes(), out.ephemeralKey)) return null;
    rcm = toScalarSapling(prfExpand(rseed, Uint8Array.of(0x04)));
  } else {
    rcm = leBytesToBigint(rseed);
    if (rcm >= JUBJUB_R) return null;
  }
  const pkd = jubjubMul(gd, k.ivk);
  if (!equalBytes(jubjubExtract(saplingNoteCommit(gd, pkd, value, rcm)), out.cmu)) return null;
  const idx = diversifierIndex(k.dk, d);
  return {
    pool: "sapling",
    scope: k.scope,
    leadByte: lead,
    value,
    diversifier: d,
    ...(idx !== undefined ? { diversifierIndex: idx } : {}),
    rseed,
    ...(p.length >= 52 + MEMO_SIZE ? { memo: p.slice(52, 52 + MEMO_SIZE) } : {}),
  };
}

// ---- Orchard and Ironwood ----

/** NoteCommit^Orchard (protocol spec §5.4.8.4): the commitment point, or null on ⊥. */
export function orchardNoteCommit(gd: Uint8Array, pkd: Uint8Array, value: bigint, rho: bigint, psi: bigint, rcm: bigint): PallasPoint | null {
  const bits = [...bytesToBitsLE(gd), ...bytesToBitsLE(pkd), ...intToBitsLE(value, 64), ...intToBitsLE(rho, 255), ...intToBitsLE(psi, 255)];
  return sinsemillaCommit("z.cash:Orchard-NoteCommit", bits, rcm);
}

/** rcm for an Orchard-protocol note: v2 (lead 0x02) or ZIP 2005 v3 (lead 0x03, Ironwood). */
export function orchardRcm(lead: number, rseed: Uint8Array, rho: Uint8Array, gd: Uint8Array, pkd: Uint8Array, value: bigint, psi: bigint): bigint {
  if (lead === 0x02) return toScalarOrchard(prfExpand(rseed, Uint8Array.of(0x05), rho));
  return toScalarOrchard(prfExpand(rseed, Uint8Array.of(0x0b), gd, pkd, u64le(value), rho, bigintToLeBytes(psi, 32)));
}

export function orchardKdf(ivk: bigint, ephemeralKey: Uint8Array): Uint8Array | null {
  const epk = pallasFromBytes(ephemeralKey);
  if (!epk || epk.is0()) return null;
  return blake2bPers("Zcash_OrchardKDF", 32, pallasToBytes(pallasMul(epk, ivk)), ephemeralKey);
}

/**
 * The rest of an Orchard/Ironwood trial decryption once the KDF key is known
 * (ρ = the action's nullifier field, already checked to be < p). May throw on
 * malformed data; callers treat a throw as "not ours".
 */
export function actionNoteFromKey(k: ScanKey, pool: "orchard" | "ironwood", key: Uint8Array, out: ActionOutputData, rhoInt: bigint): DecryptedNote | null {
  const wantLead = pool === "orchard" ? 0x02 : 0x03;
  const p = decryptWith(key, out.ciphertext);
  if (!p || p[0] !== wantLead) return null;
  const d = p.slice(1, 12);
  const value = leBytesToBigint(p.subarray(12, 20));
  const rseed = p.slice(20, 52);
  const gdP = orchardDiversifyHash(d);
  const esk = toScalarOrchard(prfExpand(rseed, Uint8Array.of(0x04), out.nullifier));
  if (!equalBytes(pallasToBytes(pallasMul(gdP, esk)), out.ephemeralKey)) return null;
  const gd = pallasToBytes(gdP);
  const pkd = pallasToBytes(pallasMul(gdP, k.ivk));
  const psi = toBaseOrchard(prfExpand(rseed, Uint8Array.of(0x09), out.nullifier));
  const rcm = orchardRcm(wantLead, rseed, out.nullifier, gd, pkd, value, psi);
  const cm = orchardNoteCommit(gd, pkd, value, rhoInt, psi, rcm);
  if (!cm || !equalBytes(bigintToLeBytes(pallasExtract(cm), 32), out.cmx)) return null;
  const idx = diversifierIndex(k.dk, d);
  return {
    pool,
    scope: k.scope,
    leadByte: wantLead,
    value,
    diversifier: d,
    ...(idx !== undefined ? { diversifierIndex: idx } : {}),
    rseed,
    ...(p.length >= 52 + MEMO_SIZE ? { memo: p.slice(52, 52 + MEMO_SIZE) } : {}),
    ...(k.nk !== undefined ? { nullifier: orchardNullifier(k.nk, rhoInt, psi, cm) } : {}),
  };
}

export function tryActionOutput(keys: ScanKeys, pool: "orchard" | "ironwood", out: ActionOutputData): DecryptedNote | null {
  if (out.cmx.length !== 32 || out.ephemeralKey.length !== 32 || out.nullifier.length !== 32) return null;
  const rhoInt = leBytesToBigint(out.nullifier);
  if (rhoInt >= PALLAS_P) return null;
  for (const k of keys.orchard) {
    try {
      const key = orchardKdf(k.ivk, out.ephemeralKey);
      if (!key) return null;
      const note = actionNoteFromKey(k, pool, key, out, rhoInt);
      if (note) return note;
    } catch {
      // not ours
    }
  }
  return null;
}

// ---- memos (ZIP 302) ----

export type DecodedMemo = { text: string } | { hex: string } | null;

/**
 * ZIP 302: first byte ≤ 0xF4 → UTF-8 text with trailing zero bytes removed;
 * 0xF6 followed by zeros → empty (null); 0xFF → arbitrary data (the 511 bytes
 * after the marker, as hex); anything else, including text that is not valid
 * UTF-8, → the whole 512 bytes as hex.
 */
export function decodeMemo(memo: Uint8Array): DecodedMemo {
  if (memo.length !== MEMO_SIZE) return { hex: bytesToHex(memo) };
  const first = memo[0];
  if (first <= 0xf4) {
    let end = memo.length;
    while (end > 0 && memo[end - 1] === 0) end--;
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(memo.subarray(0, end)) };
    } catch {
      return { hex: bytesToHex(memo) };
    }
  }
  if (first === 0xf6 && memo.subarray(1).every((b) => b === 0)) return null;
  if (first === 0xff) return { hex: bytesToHex(memo.subarray(1)) };
  return { hex: bytesToHex(memo) };
}

/** Encodes a text memo (ZIP 302), or the empty memo for "". Throws when the text exceeds 512 bytes. */
export function encodeTextMemo(text: string): Uint8Array {
  const out = new Uint8Array(MEMO_SIZE);
  if (text === "") {
    out[0] = 0xf6;
    return out;
  }
  const b = new TextEncoder().encode(text);
  if (b.length > MEMO_SIZE) throw new Error("memo text longer than 512 bytes");
  out.set(b);
  return out;
}


// ---- whole transactions ----

/** A note found in a transaction, with its index inside its own bundle. */
export interface FoundNote extends DecryptedNote {
  outputIndex: number;
}

/**
 * Trial-decrypts every shielded output of a parsed transaction with the keys:
 * Sapling outputs, Orchard actions (lead 0x02) and, in v6, Ironwood actions (lead 0x03).
 */
export function decryptTransaction(
  tx: { sapling: { outputs: { cmu: Uint8Array; ephemeralKey: Uint8Array; encCiphertext: Uint8Array }[] }; orchard?: { actions: ActionLike[] }; ironwood?: { actions: ActionLike[] } },
  keys: ScanKeys,
  height?: number,
): FoundNote[] {
  const found: FoundNote[] = [];
  if (keys.sapling.length > 0)
    tx.sapling.outputs.forEach((o, i) => {
      const n = trySaplingOutput(keys, { cmu: o.cmu, ephemeralKey: o.ephemeralKey, ciphertext: o.encCiphertext }, height);
      if (n) found.push({ ...n, outputIndex: i });
    });
  if (keys.orchard.length > 0)
    for (const pool of ["orchard", "ironwood"] as const)
      tx[pool]?.actions.forEach((a, i) => {
        const n = tryActionOutput(keys, pool, { nullifier: a.nullifier, cmx: a.cmx, ephemeralKey: a.ephemeralKey, ciphertext: a.encCiphertext });
        if (n) found.push({ ...n, outputIndex: i });
      });
  return found;
}

interface ActionLike {
  nullifier: Uint8Array;
  cmx: Uint8Array;
  ephemeralKey: Uint8Array;
  encCiphertext: Uint8Array;
}
