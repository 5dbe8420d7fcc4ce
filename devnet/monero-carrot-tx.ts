/**
 * Serializes Carrot output sets (src/chains/monero/carrot/sender.ts) into the
 * FCMP++ transaction and block format of monero-project/monero PR #10027 @
 * 5e2890bb (format_utils.cpp store_carrot_to_transaction_v1,
 * store_carrot_to_coinbase_transaction_v1; cryptonote_basic.h; rctTypes.h
 * serialize_rctsig_base): for the devnet's Carrot sender
 * (monero-carrot-sender.ts), for the parser's tests (what was built is what
 * must be read back) and for bench:monero. The prunable part (BP+, the
 * FCMP++ proof) is the caller's: the parser only hashes it.
 */
import { concatBytes, encodeVarint } from "../src/chains/monero/encoding.js";
import { extraAdditionalKeysField, extraNonceField, extraPubkeyField } from "../src/chains/monero/extra.js";
import type { BuiltCarrotCoinbaseEnote, BuiltCarrotOutputSet } from "../src/chains/monero/carrot/sender.js";

const TXIN_TO_KEY = 0x02;
const TXIN_GEN = 0xff;
const TXOUT_CARROT_V1 = 0x00;
const RCT_FCMP_PLUS_PLUS = 7;
const RCT_NULL = 0;

interface CarrotOut {
  onetimeAddress: Uint8Array;
  viewTag: Uint8Array;
  encryptedAnchor: Uint8Array;
}

function carrotOutput(amount: bigint, e: CarrotOut): Uint8Array {
  return concatBytes(encodeVarint(amount), Uint8Array.of(TXOUT_CARROT_V1), e.onetimeAddress, e.viewTag, e.encryptedAnchor);
}

/** D_e in tx_extra as the reference stores it: one 0x01 key when shared (1 output, or 2 with equal keys), else 0x04 with one per output. */
export function ephemeralKeysField(keys: Uint8Array[]): Uint8Array {
  const shared = keys.length === 1 || (keys.length === 2 && keys[0]!.every((b, i) => b === keys[1]![i]));
  return shared ? extraPubkeyField(keys[0]!) : extraAdditionalKeysField(keys);
}

/** tx_extra sorted as sort_tx_extra leaves it: 0x01, then the nonce (0x02), then 0x04. */
function sortedExtra(keysField: Uint8Array, nonce: Uint8Array | null): Uint8Array {
  const nonceField = nonce ? extraNonceField(nonce) : new Uint8Array(0);
  return keysField[0] === 0x01 ? concatBytes(keysField, nonceField) : concatBytes(nonceField, keysField);
}

export interface CarrotTxBlobOptions {
  set: BuiltCarrotOutputSet;
  /** Every input's key image; the first must be the set's (its input context). */
  keyImages: Uint8Array[];
  fee: bigint;
  /** Stand-in for the FCMP++ proof bytes; empty gives a pruned blob. */
  prunable?: Uint8Array;
  /** Replaces the tx_extra the set implies (to test bad extras). */
  extra?: Uint8Array;
}

/** The prefix and RingCT base of a type 7 transaction carrying `set` (the txid hashes them apart). */
export function carrotTxParts(o: Omit<CarrotTxBlobOptions, "prunable">): { prefix: Uint8Array; base: Uint8Array; extra: Uint8Array } {
  const pidNonce = concatBytes(Uint8Array.of(0x01), o.set.encryptedPaymentId);
  const extra = o.extra ?? sortedExtra(ephemeralKeysField(o.set.enotes.map((e) => e.ephemeralPubkey)), pidNonce);
  const prefix = concatBytes(
    encodeVarint(2), // version
    encodeVarint(0), // unlock_time
    encodeVarint(o.keyImages.length),
    ...o.keyImages.map((ki) => concatBytes(Uint8Array.of(TXIN_TO_KEY), encodeVarint(0), encodeVarint(0), ki)), // amount 0, no key offsets
    encodeVarint(o.set.enotes.length),
    ...o.set.enotes.map((e) => carrotOutput(0n, e)),
    encodeVarint(extra.length),
    extra,
  );
  const base = concatBytes(
    Uint8Array.of(RCT_FCMP_PLUS_PLUS),
    encodeVarint(o.fee),
    ...o.set.enotes.map((e) => e.encryptedAmount),
    ...o.set.enotes.map((e) => e.amountCommitment),
  );
  return { prefix, base, extra };
}

/** A full (or pruned) RingCT type 7 transaction carrying `set`. */
export function carrotTxBlob(o: CarrotTxBlobOptions): Uint8Array {
  const { prefix, base } = carrotTxParts(o);
  return concatBytes(prefix, base, o.prunable ?? new Uint8Array(0));
}

/** The prefix of a Carrot miner transaction (unlock at height + 60); its RingCT base is the single byte 0. */
export function carrotCoinbasePrefix(enotes: BuiltCarrotCoinbaseEnote[], extraNonce: Uint8Array | null = null): { prefix: Uint8Array; extra: Uint8Array } {
  const height = enotes[0]!.blockIndex;
  const extra = sortedExtra(ephemeralKeysField(enotes.map((e) => e.ephemeralPubkey)), extraNonce);
  const prefix = concatBytes(
    encodeVarint(2),
    encodeVarint(height + 60n),
    encodeVarint(1),
    Uint8Array.of(TXIN_GEN),
    encodeVarint(height),
    encodeVarint(enotes.length),
    ...enotes.map((e) => carrotOutput(e.amount, e)),
    encodeVarint(extra.length),
    extra,
  );
  return { prefix, extra };
}

/** A Carrot miner transaction (RingCT type 0, clear amounts, unlock at height + 60). */
export function carrotCoinbaseBlob(enotes: BuiltCarrotCoinbaseEnote[], extraNonce: Uint8Array | null = null): Uint8Array {
  return concatBytes(carrotCoinbasePrefix(enotes, extraNonce).prefix, Uint8Array.of(RCT_NULL));
}

/** A block of fork version `major` (17 on: with the FCMP++ tree after tx_hashes). */
export function carrotBlockBlob(p: { major: number; minerTx: Uint8Array; txHashes: Uint8Array[]; prevId: Uint8Array; tree?: { nTreeLayers: number; treeRoot: Uint8Array } }): Uint8Array {
  return concatBytes(
    encodeVarint(p.major),
    encodeVarint(p.major),
    encodeVarint(1_800_000_000),
    p.prevId,
    Uint8Array.of(1, 2, 3, 4), // nonce
    p.minerTx,
    encodeVarint(p.txHashes.length),
    ...p.txHashes,
    ...(p.tree ? [Uint8Array.of(p.tree.nTreeLayers), p.tree.treeRoot] : []),
  );
}
