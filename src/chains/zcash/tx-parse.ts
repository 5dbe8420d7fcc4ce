/**
 * Raw Zcash transaction parser for v4 (Sapling), v5 (ZIP 225) and v6 (ZIP 229,
 * with the Ironwood action bundle). Pure: bytes in, a typed structure out.
 * Every malformed input (truncated, trailing bytes, unknown version, counts
 * that cannot fit) ends in a `TxParseError`; nothing else is thrown.
 */
import { readCompactSize } from "./bytes.js";

export type TxParseProblem = "truncated" | "trailing_bytes" | "unsupported_version" | "invalid_field";

export class TxParseError extends Error {
  constructor(
    readonly problem: TxParseProblem,
    message: string,
  ) {
    super(message);
    this.name = "TxParseError";
  }
}

export const V4_VERSION_GROUP_ID = 0x892f2085;
export const V5_VERSION_GROUP_ID = 0x26a7270a;
export const V6_VERSION_GROUP_ID = 0xd884b698;

export interface TransparentInput {
  prevoutHash: Uint8Array;
  prevoutIndex: number;
  scriptSig: Uint8Array;
  sequence: number;
}
export interface TransparentOutput {
  value: bigint;
  scriptPubKey: Uint8Array;
}
export interface SaplingSpend {
  cv: Uint8Array;
  /** v4 only: each spend carries its own anchor; v5/v6 share `SaplingBundle.anchor`. */
  anchor?: Uint8Array;
  nullifier: Uint8Array;
  rk: Uint8Array;
}
export interface SaplingOutput {
  cv: Uint8Array;
  cmu: Uint8Array;
  ephemeralKey: Uint8Array;
  encCiphertext: Uint8Array;
  outCiphertext: Uint8Array;
}
export interface SaplingBundle {
  spends: SaplingSpend[];
  outputs: SaplingOutput[];
  valueBalance: bigint;
  anchor?: Uint8Array;
  spendProofs: Uint8Array[];
  spendAuthSigs: Uint8Array[];
  outputProofs: Uint8Array[];
  bindingSig?: Uint8Array;
}
export interface OrchardAction {
  cv: Uint8Array;
  nullifier: Uint8Array;
  rk: Uint8Array;
  cmx: Uint8Array;
  ephemeralKey: Uint8Array;
  encCiphertext: Uint8Array;
  outCiphertext: Uint8Array;
}
/** An Orchard-protocol action bundle: the Orchard pool (v5, v6) or the Ironwood pool (v6). */
export interface ActionBundle {
  actions: OrchardAction[];
  flags: number;
  valueBalance: bigint;
  anchor: Uint8Array;
  proofs: Uint8Array;
  spendAuthSigs: Uint8Array[];
  bindingSig: Uint8Array;
}
export interface ParsedTx {
  version: 4 | 5 | 6;
  header: number;
  versionGroupId: number;
  /** v5/v6 only (v4 commits to it only through signatures). */
  consensusBranchId?: number;
  lockTime: number;
  expiryHeight: number;
  vin: TransparentInput[];
  vout: TransparentOutput[];
  sapling: SaplingBundle;
  /** v4 JoinSplit count (Sprout), kept for completeness; their contents are skipped. */
  joinSplitCount: number;
  orchard?: ActionBundle;
  ironwood?: ActionBundle;
  /** The raw bytes the structure was parsed from. */
  raw: Uint8Array;
}

/** Upper bound on any element count: a block is at most 2 MB, so no count can exceed this. */
const MAX_COUNT = 2_000_000;

class Reader {
  off = 0;
  constructor(readonly buf: Uint8Array) {}
  take(n: number, what: string): Uint8Array {
    if (n < 0 || this.off + n > this.buf.length) throw new TxParseError("truncated", `Transaction ends inside ${what} (offset ${this.off}, need ${n} bytes).`);
    const out = this.buf.slice(this.off, this.off + n);
    this.off += n;
    return out;
  }
  u8(what: string): number {
    return this.take(1, what)[0];
  }
  u32(what: string): number {
    const b = this.take(4, what);
    return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
  }
  i64(what: string): bigint {
    const b = this.take(8, what);
    let x = 0n;
    for (let i = 7; i >= 0; i--) x = (x << 8n) | BigInt(b[i]);
    return BigInt.asIntN(64, x);
  }
  compactSize(what: string, minItemBytes = 1): number {
    const r = readCompactSize(this.buf, this.off);
    if (!r) throw new TxParseError("truncated", `Transaction ends inside the count of ${what}.`);
    if (r.value > MAX_COUNT) throw new TxParseError("invalid_field", `Count of ${what} (${r.value}) is out of range.`);
    // A count whose items cannot fit in what is left is a truncation, caught before allocating.
    if (r.value * minItemBytes > this.buf.length - r.next) throw new TxParseError("truncated", `Transaction is too short for ${r.value} ${what}.`);
    this.off = r.next;
    return r.value;
  }
  many<T>(n: number, f: (i: number) => T): T[] {
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(f(i));
    return out;
  }
}

function readTransparent(r: Reader): { vin: TransparentInput[]; vout: TransparentOutput[] } {
  const nIn = r.compactSize("transparent inputs", 41);
  const vin = r.many(nIn, () => {
    const prevoutHash = r.take(32, "a prevout hash");
    const prevoutIndex = r.u32("a prevout index");
    const scriptSig = r.take(r.compactSize("scriptSig bytes"), "a scriptSig");
    return { prevoutHash, prevoutIndex, scriptSig, sequence: r.u32("an input sequence") };
  });
  const nOut = r.compactSize("transparent outputs", 9);
  const vout = r.many(nOut, () => {
    const value = r.i64("an output value");
    if (value < 0n) throw new TxParseError("invalid_field", "A transparent output value is negative.");
    return { value, scriptPubKey: r.take(r.compactSize("scriptPubKey bytes"), "a scriptPubKey") };
  });
  return { vin, vout };
}

function readActionBundle(r: Reader, version: 5 | 6, pool: string): ActionBundle | undefined {
  const n = r.compactSize(`${pool} actions`, 820);
  if (n === 0) return undefined;
  const actions = r.many(n, () => ({
    cv: r.take(32, `a ${pool} cv`),
    nullifier: r.take(32, `a ${pool} nullifier`),
    rk: r.take(32, `a ${pool} rk`),
    cmx: r.take(32, `a ${pool} cmx`),
    ephemeralKey: r.take(32, `a ${pool} ephemeral key`),
    encCiphertext: r.take(580, `a ${pool} encCiphertext`),
    outCiphertext: r.take(80, `a ${pool} outCiphertext`),
  }));
  const flags = r.u8(`${pool} flags`);
  // ZIP 229: bits 3..7 of both flag bytes are reserved as 0 in v6.
  if (version === 6 && (flags & 0xf8) !== 0) throw new TxParseError("invalid_field", `${pool} flags 0x${flags.toString(16)} set reserved bits.`);
  const valueBalance = r.i64(`${pool} value balance`);
  const anchor = r.take(32, `${pool} anchor`);
  const proofLen = r.compactSize(`${pool} proof bytes`);
  if (version === 6 && proofLen !== 2720 + 2272 * n) throw new TxParseError("invalid_field", `${pool} proof length ${proofLen} is not 2720 + 2272 × ${n}.`);
  const proofs = r.take(proofLen, `${pool} proofs`);
  const spendAuthSigs = r.many(n, () => r.take(64, `a ${pool} spend authorization signature`));
  const bindingSig = r.take(64, `${pool} binding signature`);
  return { actions, flags, valueBalance, anchor, proofs, spendAuthSigs, bindingSig };
}

function parseV4(r: Reader, header: number, versionGroupId: number, raw: Uint8Array): ParsedTx {
  const { vin, vout } = readTransparent(r);
  const lockTime = r.u32("lock time");
  const expiryHeight = r.u32("expiry height");
  const valueBalance = r.i64("Sapling value balance");
  const nSpends = r.compactSize("Sapling spends", 384);
  const spendProofs: Uint8Array[] = [];
  const spendAuthSigs: Uint8Array[] = [];
  const spends = r.many(nSpends, () => {
    const s = { cv: r.take(32, "a spend cv"), anchor: r.take(32, "a spend anchor"), nullifier: r.take(32, "a spend nullifier"), rk: r.take(32, "a spend rk") };
    spendProofs.push(r.take(192, "a spend proof"));
    spendAuthSigs.push(r.take(64, "a spend signature"));
    return s;
  });
  const nOutputs = r.compactSize("Sapling outputs", 948);
  const outputProofs: Uint8Array[] = [];
  const outputs = r.many(nOutputs, () => {
    const o = {
      cv: r.take(32, "an output cv"),
      cmu: r.take(32, "an output cmu"),
      ephemeralKey: r.take(32, "an output ephemeral key"),
      encCiphertext: r.take(580, "an output encCiphertext"),
      outCiphertext: r.take(80, "an output outCiphertext"),
    };
    outputProofs.push(r.take(192, "an output proof"));
    return o;
  });
  const joinSplitCount = r.compactSize("JoinSplits", 1698);
  if (joinSplitCount > 0) {
    r.take(1698 * joinSplitCount, "JoinSplits");
    r.take(32 + 64, "the JoinSplit public key and signature");
  }
  const bindingSig = nSpends + nOutputs > 0 ? r.take(64, "the Sapling binding signature") : undefined;
  if (nSpends + nOutputs === 0 && valueBalance !== 0n) throw new TxParseError("invalid_field", "Sapling value balance is non-zero without Sapling spends or outputs.");
  return {
    version: 4,
    header,
    versionGroupId,
    lockTime,
    expiryHeight,
    vin,
    vout,
    sapling: { spends, outputs, valueBalance, spendProofs, spendAuthSigs, outputProofs, bindingSig },
    joinSplitCount,
    raw,
  };
}

function parseV5V6(r: Reader, version: 5 | 6, header: number, versionGroupId: number, raw: Uint8Array): ParsedTx {
  const consensusBranchId = r.u32("consensus branch id");
  const lockTime = r.u32("lock time");
  const expiryHeight = r.u32("expiry height");
  const { vin, vout } = readTransparent(r);
  const nSpends = r.compactSize("Sapling spends", 96);
  const spends = r.many(nSpends, () => ({ cv: r.take(32, "a spend cv"), nullifier: r.take(32, "a spend nullifier"), rk: r.take(32, "a spend rk") }));
  const nOutputs = r.compactSize("Sapling outputs", 756);
  const outputs = r.many(nOutputs, () => ({
    cv: r.take(32, "an output cv"),
    cmu: r.take(32, "an output cmu"),
    ephemeralKey: r.take(32, "an output ephemeral key"),
    encCiphertext: r.take(580, "an output encCiphertext"),
    outCiphertext: r.take(80, "an output outCiphertext"),
  }));
  const any = nSpends + nOutputs > 0;
  const valueBalance = any ? r.i64("Sapling value balance") : 0n;
  const anchor = nSpends > 0 ? r.take(32, "the Sapling anchor") : undefined;
  const spendProofs = r.many(nSpends, () => r.take(192, "a spend proof"));
  const spendAuthSigs = r.many(nSpends, () => r.take(64, "a spend signature"));
  const outputProofs = r.many(nOutputs, () => r.take(192, "an output proof"));
  const bindingSig = any ? r.take(64, "the Sapling binding signature") : undefined;
  const orchard = readActionBundle(r, version, "Orchard");
  const ironwood = version === 6 ? readActionBundle(r, version, "Ironwood") : undefined;
  return {
    version,
    header,
    versionGroupId,
    consensusBranchId,
    lockTime,
    expiryHeight,
    vin,
    vout,
    sapling: { spends, outputs, valueBalance, anchor, spendProofs, spendAuthSigs, outputProofs, bindingSig },
    joinSplitCount: 0,
    ...(orchard ? { orchard } : {}),
    ...(ironwood ? { ironwood } : {}),
    raw,
  };
}

/** Parses one raw transaction; throws only `TxParseError`. */
export function parseTransaction(raw: Uint8Array): ParsedTx {
  try {
    const r = new Reader(raw);
    const header = r.u32("the header");
    const overwintered = (header & 0x80000000) !== 0;
    const version = header & 0x7fffffff;
    if (!overwintered || version < 4 || version > 6) throw new TxParseError("unsupported_version", `Transaction version ${version}${overwintered ? "" : " (not overwintered)"} is not supported; expected v4, v5 or v6.`);
    const versionGroupId = r.u32("the version group id");
    const expectedGroup = version === 4 ? V4_VERSION_GROUP_ID : version === 5 ? V5_VERSION_GROUP_ID : V6_VERSION_GROUP_ID;
    if (versionGroupId !== expectedGroup) throw new TxParseError("unsupported_version", `Version group id 0x${versionGroupId.toString(16)} does not match transaction version ${version}.`);
    const tx = version === 4 ? parseV4(r, header, versionGroupId, raw) : parseV5V6(r, version as 5 | 6, header, versionGroupId, raw);
    if (r.off !== raw.length) throw new TxParseError("trailing_bytes", `${raw.length - r.off} bytes follow the end of the transaction.`);
    return tx;
  } catch (e) {
    if (e instanceof TxParseError) throw e;
    throw new TxParseError("invalid_field", `Transaction could not be parsed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Parses a hex string (whitespace-free, even length). */
export function parseTransactionHex(hex: string): ParsedTx {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new TxParseError("invalid_field", "Transaction hex must be an even number of hexadecimal digits.");
  return parseTransaction(Uint8Array.from(Buffer.from(hex, "hex")));
}
