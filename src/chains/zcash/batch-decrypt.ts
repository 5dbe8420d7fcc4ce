/**
 * Trial decryption of one output against the keys of many watches at once.
 * The scanner calls only these functions; their answer for each watch is
 * exactly what `trySaplingOutput` / `tryActionOutput` answer for that
 * watch's keys alone (the batch form exists so work that depends only on the
 * output, not on the key, is done once per output).
 *
 * Per output: the ephemeral key is decoded once, a table of its multiples is
 * built once (curve-batch.ts) and every key's shared secret [ivk]·epk comes
 * out of it with about 6 field multiplications per 8 bits of scalar and no
 * doublings; the secrets are normalised together. Each key then costs one
 * KDF (BLAKE2b) and one ChaCha20 block for the lead byte of the plaintext;
 * only a plausible lead byte goes on to the full check (commitment
 * recomputation), which is the reference code itself.
 *
 * Below BATCH_MIN_KEYS keys of a protocol the table does not pay for itself,
 * and the reference path runs instead.
 *
 * The curve and symmetric work runs by default in a WebAssembly module
 * (wasm-field.ts, curve-wasm.ts): the table, every key's additions, the
 * conversion to bytes, the KDF and the lead byte; a plausible lead byte is
 * first checked by the reference's own first rejecting test, [esk]·g_d = epk,
 * in the module. setCurveEngine("bigint") selects the same method on
 * JavaScript bigints (curve-batch.ts).
 */
import { kdf64, kdfState } from "./blake2b-kdf.js";
import { asciiBytes, leBytesToBigint } from "./bytes.js";
import { buildTable, chooseWindow, multiplyMany, recode, windowCount, type Affine, type WeierstrassCurve, batchInvert } from "./curve-batch.js";
import { chacha20 } from "@noble/ciphers/chacha.js";
import { JubjubPoint, jubjubFromBytes, saplingDiversifyHash } from "./jubjub.js";
import type { ActionOutputData, DecryptedNote, SaplingOutputData, ScanKey, ScanKeys } from "./note-decrypt.js";
import { actionNoteFromKey, COMPACT_CIPHERTEXT_SIZE, ENC_CIPHERTEXT_SIZE, saplingLeadBytesAt, saplingNoteFromKey, trySaplingOutput, tryActionOutput } from "./note-decrypt.js";
import { orchardDiversifyHash, pallasFromBytes, type PallasPoint } from "./pallas.js";
import { JUBJUB_R, PALLAS_P, PALLAS_Q, prfExpand, toScalarOrchard, toScalarSapling } from "./prf.js";
import { layout, wasmBuildTable, wasmMultiplyMany, wasmScalarMul, wasmWindowBases, type WasmLayout } from "./curve-wasm.js";
import { ELEM, MEM, WasmField } from "./wasm-field.js";

/** The keys of many watches, prepared once and reused for every block. */
export interface PreparedKeys {
  readonly keys: readonly ScanKeys[];
  /** Filled by prepareKeys (and on first use otherwise): every key's scalar, flattened per protocol. */
  fast?: FastKeys;
}

export interface BatchHit {
  /** Index into the `keys` given to `prepareKeys`. */
  watch: number;
  note: DecryptedNote;
}

/** Fewer keys of a protocol than this: the reference path (the table costs more than it saves). */
export const BATCH_MIN_KEYS = 16;

export interface KeyRef {
  watch: number;
  key: ScanKey;
  /** The scalar multiplied into epk: ivk (Sapling, in [0, r_J)) or ivk mod q (Orchard). */
  scalar: bigint;
}

export interface FastKeys {
  sapling: KeyRef[];
  orchard: KeyRef[];
  /** Signed digits per window size, per protocol, in the order of the refs. */
  saplingDigits: Map<number, Int16Array[]>;
  orchardDigits: Map<number, Int16Array[]>;
  /** The same digits window-major (window i of ref j at i·refs + j), for the WebAssembly path. */
  saplingFlat: Map<number, Int16Array>;
  orchardFlat: Map<number, Int16Array>;
}

/**
 * Which curve arithmetic the table path uses: "wasm" (default; wasm-field.ts)
 * or "bigint" (curve-batch.ts, JavaScript bigints). Both give the same
 * answers; the bigint one is kept as the second implementation the tests and
 * the benchmark compare with.
 */
export type CurveEngine = "wasm" | "bigint";
let engine: CurveEngine = "wasm";
export function setCurveEngine(e: CurveEngine): void {
  engine = e;
}

const SAPLING_BITS = 252; // r_J < 2^252
const ORCHARD_BITS = 255; // q_P < 2^255

export function prepareKeys(keys: readonly ScanKeys[]): PreparedKeys {
  const prepared: PreparedKeys = { keys };
  prepared.fast = fastKeys(prepared);
  return prepared;
}

function fastKeys(prepared: PreparedKeys): FastKeys {
  if (prepared.fast) return prepared.fast;
  const sapling: KeyRef[] = [];
  const orchard: KeyRef[] = [];
  prepared.keys.forEach((k, watch) => {
    for (const key of k.sapling) {
      // The reference multiplies by ivk itself and refuses a scalar outside [0, r_J): such a key finds nothing.
      if (key.ivk >= 0n && key.ivk < JUBJUB_R) sapling.push({ watch, key, scalar: key.ivk });
      else sapling.push({ watch, key, scalar: -1n });
    }
    for (const key of k.orchard) orchard.push({ watch, key, scalar: ((key.ivk % PALLAS_Q) + PALLAS_Q) % PALLAS_Q });
  });
  const fast: FastKeys = { sapling, orchard, saplingDigits: new Map(), orchardDigits: new Map(), saplingFlat: new Map(), orchardFlat: new Map() };
  prepared.fast = fast;
  return fast;
}

function digitsFor(refs: KeyRef[], cache: Map<number, Int16Array[]>, bits: number, w: number): Int16Array[] {
  let d = cache.get(w);
  if (!d) {
    const zero = new Int16Array(windowCount(bits, w));
    d = refs.map((r) => (r.scalar < 0n ? zero : recode(r.scalar, bits, w)));
    cache.set(w, d);
  }
  return d;
}

function flatDigitsFor(refs: KeyRef[], cache: Map<number, Int16Array[]>, flatCache: Map<number, Int16Array>, bits: number, w: number): Int16Array {
  let flat = flatCache.get(w);
  if (!flat) {
    const d = digitsFor(refs, cache, bits, w);
    const S = refs.length;
    flat = new Int16Array(windowCount(bits, w) * S);
    d.forEach((digits, j) => digits.forEach((v, i) => (flat![i * S + j] = v)));
    flatCache.set(w, flat);
  }
  return flat;
}

// ---------------------------------------------------------------------------
// Symmetric part: the KDF and the first keystream byte.

const SAPLING_KDF = kdfState(asciiBytes("Zcash_SaplingKDF"));
const ORCHARD_KDF = kdfState(asciiBytes("Zcash_OrchardKDF"));

const rotl = (v: number, c: number): number => (v << c) | (v >>> (32 - c));
const CHACHA_STATE = new Uint32Array(16);

/** Byte 0 of the ChaCha20 keystream block with counter 1 and the all-zero nonce (where the plaintext starts). */
export function chachaFirstByte(key: Uint8Array): number {
  const s = CHACHA_STATE;
  s[0] = 0x61707865;
  s[1] = 0x3320646e;
  s[2] = 0x79622d32;
  s[3] = 0x6b206574;
  for (let i = 0; i < 8; i++) s[4 + i] = key[4 * i]! | (key[4 * i + 1]! << 8) | (key[4 * i + 2]! << 16) | (key[4 * i + 3]! << 24);
  s[12] = 1;
  s[13] = 0;
  s[14] = 0;
  s[15] = 0;
  let x0 = s[0]!, x1 = s[1]!, x2 = s[2]!, x3 = s[3]!, x4 = s[4]!, x5 = s[5]!, x6 = s[6]!, x7 = s[7]!;
  let x8 = s[8]!, x9 = s[9]!, x10 = s[10]!, x11 = s[11]!, x12 = 1, x13 = 0, x14 = 0, x15 = 0;
  for (let r = 0; r < 10; r++) {
    x0 = (x0 + x4) | 0; x12 = rotl(x12 ^ x0, 16); x8 = (x8 + x12) | 0; x4 = rotl(x4 ^ x8, 12);
    x0 = (x0 + x4) | 0; x12 = rotl(x12 ^ x0, 8); x8 = (x8 + x12) | 0; x4 = rotl(x4 ^ x8, 7);
    x1 = (x1 + x5) | 0; x13 = rotl(x13 ^ x1, 16); x9 = (x9 + x13) | 0; x5 = rotl(x5 ^ x9, 12);
    x1 = (x1 + x5) | 0; x13 = rotl(x13 ^ x1, 8); x9 = (x9 + x13) | 0; x5 = rotl(x5 ^ x9, 7);
    x2 = (x2 + x6) | 0; x14 = rotl(x14 ^ x2, 16); x10 = (x10 + x14) | 0; x6 = rotl(x6 ^ x10, 12);
    x2 = (x2 + x6) | 0; x14 = rotl(x14 ^ x2, 8); x10 = (x10 + x14) | 0; x6 = rotl(x6 ^ x10, 7);
    x3 = (x3 + x7) | 0; x15 = rotl(x15 ^ x3, 16); x11 = (x11 + x15) | 0; x7 = rotl(x7 ^ x11, 12);
    x3 = (x3 + x7) | 0; x15 = rotl(x15 ^ x3, 8); x11 = (x11 + x15) | 0; x7 = rotl(x7 ^ x11, 7);
    x0 = (x0 + x5) | 0; x15 = rotl(x15 ^ x0, 16); x10 = (x10 + x15) | 0; x5 = rotl(x5 ^ x10, 12);
    x0 = (x0 + x5) | 0; x15 = rotl(x15 ^ x0, 8); x10 = (x10 + x15) | 0; x5 = rotl(x5 ^ x10, 7);
    x1 = (x1 + x6) | 0; x12 = rotl(x12 ^ x1, 16); x11 = (x11 + x12) | 0; x6 = rotl(x6 ^ x11, 12);
    x1 = (x1 + x6) | 0; x12 = rotl(x12 ^ x1, 8); x11 = (x11 + x12) | 0; x6 = rotl(x6 ^ x11, 7);
    x2 = (x2 + x7) | 0; x13 = rotl(x13 ^ x2, 16); x8 = (x8 + x13) | 0; x7 = rotl(x7 ^ x8, 12);
    x2 = (x2 + x7) | 0; x13 = rotl(x13 ^ x2, 8); x8 = (x8 + x13) | 0; x7 = rotl(x7 ^ x8, 7);
    x3 = (x3 + x4) | 0; x14 = rotl(x14 ^ x3, 16); x9 = (x9 + x14) | 0; x4 = rotl(x4 ^ x9, 12);
    x3 = (x3 + x4) | 0; x14 = rotl(x14 ^ x3, 8); x9 = (x9 + x14) | 0; x4 = rotl(x4 ^ x9, 7);
  }
  return (x0 + s[0]!) & 0xff;
}

/** Whether a ciphertext has a length the reference decrypts at all (compact or full). */
const decryptableLength = (ct: Uint8Array): boolean => ct.length === COMPACT_CIPHERTEXT_SIZE || ct.length === ENC_CIPHERTEXT_SIZE;

/**
 * Runs the symmetric part for every key in order and collects one hit per
 * watch at most (its first key, in key order, that yields a note — as the
 * reference loop does). `leadAt(i)` is key i's first plaintext byte, or −1
 * when the key has no secret (a key the reference refuses).
 */
function finish(
  refs: KeyRef[],
  leadAt: (i: number) => number,
  secretAt: (i: number) => Uint8Array,
  epk: Uint8Array,
  kdfInit: Uint32Array,
  plausible: (ref: KeyRef, lead: number) => boolean,
  full: (ref: KeyRef, key: Uint8Array) => DecryptedNote | null,
): BatchHit[] {
  const hits: BatchHit[] = [];
  const buf = new Uint8Array(64);
  buf.set(epk, 32);
  let doneWatch = -1;
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i]!;
    if (ref.watch === doneWatch) continue;
    const lead = leadAt(i);
    if (lead < 0 || !plausible(ref, lead)) continue;
    buf.set(secretAt(i), 0);
    const key = kdf64(kdfInit, buf);
    let note: DecryptedNote | null = null;
    try {
      note = full(ref, key);
    } catch {
      note = null; // malformed data is simply not our note
    }
    if (note) {
      hits.push({ watch: ref.watch, note });
      doneWatch = ref.watch;
    }
  }
  return hits;
}

/** Lead bytes computed here, key by key (the bigint engine's secrets). */
function leadsOf(secrets: (Uint8Array | null)[], epk: Uint8Array, ciphertext: Uint8Array, kdfInit: Uint32Array): (i: number) => number {
  const buf = new Uint8Array(64);
  buf.set(epk, 32);
  const c0 = ciphertext[0]!;
  return (i) => {
    const secret = secrets[i];
    if (!secret) return -1;
    buf.set(secret, 0);
    return c0 ^ chachaFirstByte(kdf64(kdfInit, buf));
  };
}

/**
 * The secrets left at L.secrets by the WebAssembly path: every lead byte at
 * once (the KDF and ChaCha20 in the module), keys with a negative scalar
 * excluded.
 */
function wasmLeads(f: WasmField, L: WasmLayout, refs: KeyRef[], epk: Uint8Array, ciphertext: Uint8Array, kdfInit: Uint32Array): { leadAt: (i: number) => number; secretAt: (i: number) => Uint8Array } {
  const bytes = f.bytes;
  bytes.set(epk, L.epk);
  f.words.set(kdfInit, L.kdf >> 2);
  f.fx.leads(L.scalars, L.secrets, L.epk, L.kdf, ciphertext[0]!, L.leads);
  return {
    leadAt: (i) => (refs[i]!.scalar < 0n ? -1 : bytes[L.leads + i]!),
    secretAt: (i) => bytes.slice(L.secrets + 32 * i, L.secrets + 32 * i + 32),
  };
}

// ---------------------------------------------------------------------------
// Jubjub through the Weierstrass model of its Montgomery form.

const JJ = JubjubPoint.CURVE();
const Fq = JJ.p;
const mod = (v: bigint): bigint => {
  const r = v % Fq;
  return r < 0n ? r + Fq : r;
};
const inv = (v: bigint): bigint => {
  const xs = [mod(v)];
  batchInvert(xs, Fq);
  return xs[0]!;
};
// Montgomery form B·y² = x³ + A·x² + x of a·u² + v² = 1 + d·u²·v².
const MONT_A = mod(2n * (JJ.a + JJ.d) * inv(JJ.a - JJ.d));
const MONT_B = mod(4n * inv(JJ.a - JJ.d));
const INV_B = inv(MONT_B);
const A_THIRD = mod(MONT_A * inv(3n));
// Weierstrass model X = x/B + A/(3B), Y = y/B: Y² = X³ + a_W·X + b_W.
export const JUBJUB_W: WeierstrassCurve = { p: Fq, a: mod((3n - MONT_A * MONT_A) * inv(3n * MONT_B * MONT_B)) };

/** Edwards affine points (none the identity nor of order 2) to Weierstrass affine, with one inversion. */
export function edwardsToW(points: readonly { x: bigint; y: bigint }[]): { x: bigint; y: bigint }[] {
  // x_M = (1+v)/(1−v), y_M = x_M/u.
  const den: bigint[] = [];
  for (const { x: u, y: v } of points) den.push(mod(1n - v), u);
  batchInvert(den, Fq);
  return points.map(({ y: v }, i) => {
    const xm = mod((1n + v) * den[2 * i]!);
    const ym = mod(xm * den[2 * i + 1]!);
    return { x: mod((xm + A_THIRD) * INV_B), y: mod(ym * INV_B) };
  });
}

/** repr_J of Weierstrass affine results (null = identity), with one inversion for all. */
function wToJubjubBytes(points: Affine[]): Uint8Array[] {
  const den: bigint[] = [];
  const xm: bigint[] = [];
  const ym: bigint[] = [];
  for (const pt of points) {
    if (pt === null) continue;
    const x = mod(MONT_B * pt.x - A_THIRD);
    const y = mod(MONT_B * pt.y);
    xm.push(x);
    ym.push(y);
    den.push(y, mod(x + 1n));
  }
  batchInvert(den, Fq);
  let k = 0;
  return points.map((pt) => {
    const out = new Uint8Array(32);
    if (pt === null) {
      out[0] = 1; // (0, 1)
      return out;
    }
    const u = mod(xm[k]! * den[2 * k]!);
    const v = mod((xm[k]! - 1n) * den[2 * k + 1]!);
    k++;
    writeLe(out, v);
    if (u & 1n) out[31]! |= 0x80;
    return out;
  });
}

function writeLe(out: Uint8Array, v: bigint): void {
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

function windowBases<T extends { double(): T }>(q: T, w: number, windows: number): T[] {
  const out: T[] = [];
  let b = q;
  for (let i = 0; i < windows; i++) {
    out.push(b);
    if (i + 1 < windows) for (let j = 0; j < w; j++) b = b.double();
  }
  return out;
}

/** [s]·Q as repr_J for every key's digits (Q of order r_J). */
function jubjubSecrets(q: InstanceType<typeof JubjubPoint>, digits: Int16Array[], w: number): Uint8Array[] {
  const windows = digits[0]!.length;
  const bases = windowBases(q, w, windows).map((b) => b.toAffine());
  const table = buildTable(JUBJUB_W, edwardsToW(bases), w);
  return wToJubjubBytes(multiplyMany(JUBJUB_W, table, digits));
}

// The same in WebAssembly: one field instance per prime and thread, made on first use.
let jubjubField: WasmField | null = null;
function jubjubWasm(): WasmField {
  if (!jubjubField) {
    jubjubField = new WasmField(Fq, JUBJUB_W.a);
    jubjubField.write(MEM.C1, MONT_B);
    jubjubField.write(MEM.C2, A_THIRD);
  }
  return jubjubField;
}

/**
 * repr_J of the accumulators (Weierstrass, Montgomery form in wasm memory):
 * x_M = B·X − A/3, y_M = B·Y, u = x_M/y_M, v = (x_M − 1)/(x_M + 1), with one
 * inversion of all the y_M·(x_M + 1) (Montgomery's trick).
 */
function wasmToJubjubBytes(f: WasmField, L: WasmLayout, isZero: Uint8Array): void {
  const { fx } = f;
  const S = L.scalars;
  // per scalar: x_M, y_M in place of the accumulator; x_M + 1 at den[j]; the running product at prefix[j]
  let prev = 0;
  for (let j = 0; j < S; j++) {
    if (isZero[j] === 1) continue;
    const x = L.acc + 2 * ELEM * j;
    const y = x + ELEM;
    const e = L.den + ELEM * j;
    const pr = L.prefix + ELEM * j;
    fx.mul(x, x, MEM.C1);
    fx.sub(x, x, MEM.C2);
    fx.mul(y, y, MEM.C1);
    fx.add(e, x, MEM.ONE);
    fx.mul(MEM.U, y, e); // y_M·(x_M + 1)
    if (prev === 0) fx.add(pr, MEM.U, MEM.ZERO);
    else fx.mul(pr, prev, MEM.U);
    prev = pr;
  }
  if (prev !== 0) fx.inv(MEM.INV, prev);
  const bytes = f.bytes;
  for (let j = S - 1; j >= 0; j--) {
    const r = L.secrets + 32 * j;
    if (isZero[j] === 1) {
      bytes.fill(0, r, r + 32);
      bytes[r] = 1; // (0, 1)
      continue;
    }
    const x = L.acc + 2 * ELEM * j;
    const y = x + ELEM;
    const e = L.den + ELEM * j;
    // d = 1/(y_M·e): inv·prefix[previous non-zero]; then inv ← inv·y_M·e
    let before = 0;
    for (let k = j - 1; k >= 0; k--)
      if (isZero[k] !== 1) {
        before = L.prefix + ELEM * k;
        break;
      }
    if (before === 0) fx.add(MEM.INVK, MEM.INV, MEM.ZERO);
    else {
      fx.mul(MEM.INVK, MEM.INV, before);
      fx.mul(MEM.U, y, e);
      fx.mul(MEM.INV, MEM.INV, MEM.U);
    }
    // u = x_M·d·e, v = (x_M − 1)·d·y_M
    fx.mul(MEM.LAM, MEM.INVK, e);
    fx.mul(MEM.X3, x, MEM.LAM);
    fx.mul(MEM.LAM, MEM.INVK, y);
    fx.sub(MEM.Y3, x, MEM.ONE);
    fx.mul(MEM.Y3, MEM.Y3, MEM.LAM);
    fx.pack(r, MEM.Y3);
    fx.pack(MEM.PACKED, MEM.X3);
    if (bytes[MEM.PACKED]! & 1) bytes[r + 31]! |= 0x80;
  }
}

/** Every key's repr_J([s]·Q) at L.secrets of the returned layout. */
function jubjubSecretsWasm(q: InstanceType<typeof JubjubPoint>, digits: Int16Array, S: number, w: number, windows: number): { f: WasmField; L: WasmLayout } {
  const f = jubjubWasm();
  const L = layout(w, windows, S);
  wasmWindowBases(f, L, edwardsToW([q.toAffine()])[0]!);
  wasmBuildTable(f, L, null);
  const isZero = wasmMultiplyMany(f, L, JUBJUB_W, digits);
  wasmToJubjubBytes(f, L, isZero);
  return { f, L };
}

// ---------------------------------------------------------------------------
// Pallas.

const PALLAS_W: WeierstrassCurve = { p: PALLAS_P, a: 0n };

function pallasBytes(pt: Affine): Uint8Array {
  const out = new Uint8Array(32);
  if (pt === null) return out;
  writeLe(out, pt.x);
  if (pt.y & 1n) out[31]! |= 0x80;
  return out;
}

let pallasField: WasmField | null = null;
const pallasWasm = (): WasmField => (pallasField ??= new WasmField(PALLAS_P, 0n));

/** Every key's repr_P([s]·Q) at L.secrets of the returned layout. */
function pallasSecretsWasm(q: PallasPoint, digits: Int16Array, S: number, w: number, windows: number): { f: WasmField; L: WasmLayout } {
  const f = pallasWasm();
  const L = layout(w, windows, S);
  wasmWindowBases(f, L, q.toAffine());
  wasmBuildTable(f, L, null);
  const isZero = wasmMultiplyMany(f, L, PALLAS_W, digits);
  const { fx } = f;
  const bytes = f.bytes;
  for (let j = 0; j < S; j++) {
    const r = L.secrets + 32 * j;
    if (isZero[j] === 1) {
      bytes.fill(0, r, r + 32); // the identity encodes as zeros
      continue;
    }
    const x = L.acc + 2 * ELEM * j;
    fx.pack(MEM.PACKED, x + ELEM);
    const sign = bytes[MEM.PACKED]! & 1;
    fx.pack(r, x);
    if (sign) bytes[r + 31]! |= 0x80;
  }
  return { f, L };
}

function pallasSecrets(q: PallasPoint, digits: Int16Array[], w: number): Uint8Array[] {
  const windows = digits[0]!.length;
  const bases = windowBases(q, w, windows).map((b) => b.toAffine());
  const table = buildTable(PALLAS_W, bases, w);
  return multiplyMany(PALLAS_W, table, digits).map(pallasBytes);
}

// ---------------------------------------------------------------------------
// Early rejection of a plausible lead byte.
//
// A wrong key passes the lead-byte test for about 1 key in 256; the
// reference then spends most of its time on the ephemeral-key re-derivation
// [esk]·g_d (two scalar multiplications on @noble, about 4 ms). With lead
// 0x02 / 0x03 that check comes before anything else that could accept the
// note, so it is done first here, in the module: when [esk]·g_d differs from
// epk the reference answers null for this key too, and otherwise the
// reference runs in full. Any doubt (esk = 0, an exception) also goes to the
// reference.

const ZERO_NONCE = new Uint8Array(12);
/** The first 52 plaintext bytes (ChaCha20 from counter 1; the full path's tag is the reference's business). */
const compactPlaintext = (key: Uint8Array, ciphertext: Uint8Array): Uint8Array => chacha20(key, ZERO_NONCE, ciphertext.subarray(0, COMPACT_CIPHERTEXT_SIZE), undefined, 1);

const bytesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

/** False only when the reference surely rejects this Sapling key (lead 0x02: g_d invalid, or [esk]·g_d ≠ epk). */
export function saplingMayMatch(key: Uint8Array, out: SaplingOutputData): boolean {
  try {
    const p = compactPlaintext(key, out.ciphertext);
    if (p[0] !== 0x02) return true;
    const gd = saplingDiversifyHash(p.slice(1, 12));
    if (!gd) return false;
    const esk = toScalarSapling(prfExpand(p.slice(20, 52), Uint8Array.of(0x05)));
    if (esk === 0n) return true;
    const r = wasmScalarMul(jubjubWasm(), edwardsToW([gd.toAffine()])[0]!, esk);
    return bytesEqual(wToJubjubBytes([r])[0]!, out.ephemeralKey);
  } catch {
    return true;
  }
}

/** False only when the reference surely rejects this Orchard/Ironwood key ([esk]·g_d ≠ epk). */
export function actionMayMatch(key: Uint8Array, out: ActionOutputData): boolean {
  try {
    const p = compactPlaintext(key, out.ciphertext);
    const esk = toScalarOrchard(prfExpand(p.slice(20, 52), Uint8Array.of(0x04), out.nullifier));
    if (esk === 0n) return true;
    const r = wasmScalarMul(pallasWasm(), orchardDiversifyHash(p.slice(1, 12)).toAffine(), esk);
    return bytesEqual(pallasBytes(r), out.ephemeralKey);
  } catch {
    return true;
  }
}

// ---------------------------------------------------------------------------
// The scanner's entry points.

export function batchTrySapling(prepared: PreparedKeys, out: SaplingOutputData, height?: number): BatchHit[] {
  const fast = fastKeys(prepared);
  if (fast.sapling.length < BATCH_MIN_KEYS) return referenceSapling(prepared, out, height);
  if (out.cmu.length !== 32 || out.ephemeralKey.length !== 32) return [];
  if (!decryptableLength(out.ciphertext)) return [];
  const epk = jubjubFromBytes(out.ephemeralKey);
  if (!epk) return [];
  const q = epk.clearCofactor();
  const refs = fast.sapling;
  let leadAt: (i: number) => number;
  let secretAt: (i: number) => Uint8Array;
  if (!q.is0() && engine === "wasm") {
    const w = chooseWindow(refs.length, SAPLING_BITS);
    const { f, L } = jubjubSecretsWasm(q, flatDigitsFor(refs, fast.saplingDigits, fast.saplingFlat, SAPLING_BITS, w), refs.length, w, windowCount(SAPLING_BITS, w));
    ({ leadAt, secretAt } = wasmLeads(f, L, refs, out.ephemeralKey, out.ciphertext, SAPLING_KDF));
  } else {
    let secrets: (Uint8Array | null)[];
    if (q.is0()) {
      const identity = q.toBytes();
      secrets = refs.map((r) => (r.scalar < 0n ? null : identity));
    } else {
      const w = chooseWindow(refs.length, SAPLING_BITS);
      const all = jubjubSecrets(q, digitsFor(refs, fast.saplingDigits, SAPLING_BITS, w), w);
      secrets = refs.map((r, i) => (r.scalar < 0n ? null : all[i]!));
    }
    leadAt = leadsOf(secrets, out.ephemeralKey, out.ciphertext, SAPLING_KDF);
    secretAt = (i) => secrets[i]!;
  }
  // The lead bytes allowed depend on the watch's network.
  const allowedByNetwork = new Map<string, readonly number[]>();
  const allowedFor = (watch: number): readonly number[] => {
    const network = prepared.keys[watch]!.network;
    let a = allowedByNetwork.get(network);
    if (!a) allowedByNetwork.set(network, (a = saplingLeadBytesAt(network, height)));
    return a;
  };
  return finish(
    refs,
    leadAt,
    secretAt,
    out.ephemeralKey,
    SAPLING_KDF,
    (ref, lead) => allowedFor(ref.watch).includes(lead),
    (ref, key) => (engine === "wasm" && !saplingMayMatch(key, out) ? null : saplingNoteFromKey(ref.key, key, out, allowedFor(ref.watch))),
  );
}

export function batchTryAction(prepared: PreparedKeys, pool: "orchard" | "ironwood", out: ActionOutputData): BatchHit[] {
  const fast = fastKeys(prepared);
  if (fast.orchard.length < BATCH_MIN_KEYS) return referenceAction(prepared, pool, out);
  if (out.cmx.length !== 32 || out.ephemeralKey.length !== 32 || out.nullifier.length !== 32) return [];
  const rhoInt = leBytesToBigint(out.nullifier);
  if (rhoInt >= PALLAS_P) return [];
  if (!decryptableLength(out.ciphertext)) return [];
  const epk = pallasFromBytes(out.ephemeralKey);
  if (!epk || epk.is0()) return [];
  const refs = fast.orchard;
  const w = chooseWindow(refs.length, ORCHARD_BITS);
  let leadAt: (i: number) => number;
  let secretAt: (i: number) => Uint8Array;
  if (engine === "wasm") {
    const { f, L } = pallasSecretsWasm(epk, flatDigitsFor(refs, fast.orchardDigits, fast.orchardFlat, ORCHARD_BITS, w), refs.length, w, windowCount(ORCHARD_BITS, w));
    ({ leadAt, secretAt } = wasmLeads(f, L, refs, out.ephemeralKey, out.ciphertext, ORCHARD_KDF));
  } else {
    const secrets = pallasSecrets(epk, digitsFor(refs, fast.orchardDigits, ORCHARD_BITS, w), w);
    leadAt = leadsOf(secrets, out.ephemeralKey, out.ciphertext, ORCHARD_KDF);
    secretAt = (i) => secrets[i]!;
  }
  const wantLead = pool === "orchard" ? 0x02 : 0x03;
  return finish(
    refs,
    leadAt,
    secretAt,
    out.ephemeralKey,
    ORCHARD_KDF,
    (_ref, lead) => lead === wantLead,
    (ref, key) => (engine === "wasm" && !actionMayMatch(key, out) ? null : actionNoteFromKey(ref.key, pool, key, out, rhoInt)),
  );
}

// ---------------------------------------------------------------------------
// Reference path (few keys): one key set at a time.

function referenceSapling(prepared: PreparedKeys, out: SaplingOutputData, height?: number): BatchHit[] {
  const hits: BatchHit[] = [];
  prepared.keys.forEach((k, watch) => {
    if (k.sapling.length === 0) return;
    const note = trySaplingOutput(k, out, height);
    if (note) hits.push({ watch, note });
  });
  return hits;
}

function referenceAction(prepared: PreparedKeys, pool: "orchard" | "ironwood", out: ActionOutputData): BatchHit[] {
  const hits: BatchHit[] = [];
  prepared.keys.forEach((k, watch) => {
    if (k.orchard.length === 0) return;
    const note = tryActionOutput(k, pool, out);
    if (note) hits.push({ watch, note });
  });
  return hits;
}
