/**
 * Devnet Carrot sender: the FCMP++/Carrot transactions (fork v17) the
 * devnet monerod puts in its pool and blocks, as the same BuiltMoneroTx the
 * legacy sender (monero-sender.ts) returns. The enotes are built with the real
 * sender-side Carrot code (src/chains/monero/carrot/sender.ts), so a
 * view-key watch finds them exactly as it would on a v17 chain:
 *   transfer: the payments plus the sending wallet's change (a special
 *     self-send enote), RingCT type 7, inputs with random key images and no
 *     ring (the first key image is the input context), pid_enc in tx_extra;
 *   coinbase: Carrot coinbase enotes with clear amounts, RingCT type 0.
 * Serialization: monero-carrot-tx.ts. txid as monerod computes it for every v2
 * transaction (cryptonote_format_utils.cpp calculate_transaction_hash):
 * Keccak(H(prefix) ‖ H(RingCT base) ‖ H(prunable)). The prunable part
 * follows rctTypes.h of PR #10027 (BP+, varint reference_block, varint
 * n_tree_layers, the FCMP++ proof, pseudoOuts); the proof is random bytes of
 * a stand-in length (the real one comes from fcmp_pp::proof_len), since
 * nothing on the view-key side verifies it. as_json is the JSON archive's
 * rendering: `carrot_v1` targets, `rct_signatures` type 7, and
 * `rctsig_prunable` with reference_block, n_tree_layers and fcmp_pp (hex).
 */
import { decodeAddress } from "../src/chains/monero/address.js";
import { L, scalarFromBytes } from "../src/chains/monero/crypto.js";
import { bytesToHex, concatBytes, encodeVarint, hexToBytesStrict } from "../src/chains/monero/encoding.js";
import { JANUS_ANCHOR_BYTES, RCT_TYPE_FCMP_PLUS_PLUS } from "../src/chains/monero/carrot/constants.js";
import { inputContextCoinbase, inputContextRingct } from "../src/chains/monero/carrot/enote.js";
import {
  buildCarrotCoinbaseEnotes,
  buildCarrotOutputSet,
  destinationFromAddress,
  normalEphemeralKeys,
  type CarrotDestination,
  type SelfSendKeys,
} from "../src/chains/monero/carrot/sender.js";
import type { DaemonTxJson } from "../src/chains/monero/types.js";
import { randomBytes } from "node:crypto";
import { carrotCoinbasePrefix, carrotTxParts } from "./monero-carrot-tx.js";
import {
  MINED_MONEY_UNLOCK_WINDOW,
  bulletproofPlusJson,
  finishTx,
  serializeBulletproofPlus,
  simulateBulletproofPlus,
  simulatePoints,
  type BuiltMoneroTx,
  type BuiltOutput,
  type MoneroDestination,
  type RandomSource,
} from "./monero-sender.js";

const defaultRng: RandomSource = (n) => new Uint8Array(randomBytes(n));

/** The wallet a Carrot transfer comes from: its change returns to its main address as a self-send. */
export interface CarrotSenderWallet {
  address: string;
  /** Private view key, hex. */
  viewKey: string;
}

export interface BuildCarrotTransferOptions {
  destinations: MoneroDestination[];
  sender: CarrotSenderWallet;
  fee: bigint;
  /** The change back to the sender (default: a random amount below 1 XMR, as the simulated inputs leave). */
  changeAmount?: bigint;
  /** Simulated inputs (key images), default 1. */
  inputs?: number;
  /** The block the FCMP++ proof refers to, and the tree's layer count then. */
  referenceBlock?: bigint;
  nTreeLayers?: number;
  rng?: RandomSource;
}

/** The sender's keys for its self-send, from its main address and private view key. */
export function selfSendKeys(sender: CarrotSenderWallet): SelfSendKeys {
  const d = decodeAddress(sender.address);
  if (!d.ok || d.value.kind !== "standard") throw new RangeError("the Carrot sender must be a main (standard) address");
  const view = hexToBytesStrict(sender.viewKey);
  if (!view || view.length !== 32) throw new RangeError("the Carrot sender's view key must be 32 bytes of hex");
  const viewSecret = scalarFromBytes(view);
  if (viewSecret >= L) throw new RangeError("the Carrot sender's view key is not a reduced scalar");
  return { viewSecret, spendPublicKey: d.value.spendPublicKey, isSubaddress: false };
}

function randomAnchor(rng: RandomSource): Uint8Array {
  for (;;) {
    const a = rng(JANUS_ANCHOR_BYTES);
    if (a.some((b) => b !== 0)) return a;
  }
}

/** The address of each normal enote, found by its D_e (each payment's is its own: d_e hashes a random anchor). */
function addressByEphemeralKey(payments: { address: string; destination: CarrotDestination; anchor: Uint8Array }[], inputContext: Uint8Array): Map<string, string> {
  return new Map(payments.map((p) => [bytesToHex(normalEphemeralKeys(p.destination, p.anchor, inputContext).De), p.address]));
}

/** tx pub key / additional keys as the extra carries D_e (monero-carrot-tx.ts ephemeralKeysField). */
function publicKeys(De: Uint8Array[]): { txPublicKey: string; additionalPublicKeys: string[] } {
  const hex = De.map(bytesToHex);
  const shared = hex.length === 1 || (hex.length === 2 && hex[0] === hex[1]);
  return shared ? { txPublicKey: hex[0]!, additionalPublicKeys: [] } : { txPublicKey: "", additionalPublicKeys: hex };
}

const carrotTarget = (e: { onetimeAddress: Uint8Array; viewTag: Uint8Array; encryptedAnchor: Uint8Array }) => ({
  carrot_v1: { key: bytesToHex(e.onetimeAddress), view_tag: bytesToHex(e.viewTag), encrypted_janus_anchor: bytesToHex(e.encryptedAnchor) },
});

/** Stand-in length of the FCMP++ proof for `inputs` inputs over a tree of `layers` layers. */
export function simulatedFcmpProofBytes(inputs: number, layers: number): number {
  return inputs * (256 + 96 * layers);
}

/** A RingCT type 7 transfer paying each destination, with the sender's change as a self-send. */
export function buildCarrotTransfer(opts: BuildCarrotTransferOptions): BuiltMoneroTx {
  const rng = opts.rng ?? defaultRng;
  const nInputs = opts.inputs ?? 1;
  const nTreeLayers = opts.nTreeLayers ?? 1;
  if (!Number.isInteger(nInputs) || nInputs < 1 || nInputs > 8) throw new RangeError("1..8 inputs (FCMP_PLUS_PLUS_MAX_INPUTS)");
  for (const d of opts.destinations) if (d.amount <= 0n || d.amount >= 1n << 64n) throw new RangeError("amount must be a u64 bigint above 0");
  const self = selfSendKeys(opts.sender);
  const keyImages = simulatePoints(rng, nInputs);
  const inputContext = inputContextRingct(keyImages[0]!);
  const payments = opts.destinations.map((d) => ({ address: d.address, amount: d.amount, destination: destinationFromAddress(d.address), anchor: randomAnchor(rng) }));
  const changeAmount = opts.changeAmount ?? 1n + (BigInt(`0x${bytesToHex(rng(5))}`) % 999_999_999_999n);
  const set = buildCarrotOutputSet({ firstKeyImage: keyImages[0]!, payments, change: { ...self, amount: changeAmount }, rng });
  const { prefix, base, extra } = carrotTxParts({ set, keyImages, fee: opts.fee });

  const bpp = simulateBulletproofPlus(rng, set.enotes.length);
  const referenceBlock = opts.referenceBlock ?? 0n;
  const proof = rng(simulatedFcmpProofBytes(nInputs, nTreeLayers));
  const pseudoOuts = simulatePoints(rng, nInputs);
  const prunable = concatBytes(serializeBulletproofPlus(bpp), encodeVarint(referenceBlock), encodeVarint(nTreeLayers), proof, ...pseudoOuts);

  const byDe = addressByEphemeralKey(payments, inputContext);
  const outputs: BuiltOutput[] = set.enotes.map((e, i) => ({
    address: e.selfSend ? opts.sender.address : byDe.get(bytesToHex(e.ephemeralPubkey))!,
    amount: e.amount,
    outputIndex: i,
    publicKey: bytesToHex(e.onetimeAddress),
    viewTag: bytesToHex(e.viewTag),
  }));
  const json: DaemonTxJson = {
    version: 2,
    unlock_time: 0n,
    vin: keyImages.map((ki) => ({ key: { amount: 0n, key_offsets: [], k_image: bytesToHex(ki) } })),
    vout: set.enotes.map((e) => ({ amount: 0n, target: carrotTarget(e) })),
    extra: [...extra],
    rct_signatures: {
      type: RCT_TYPE_FCMP_PLUS_PLUS,
      txnFee: opts.fee,
      ecdhInfo: set.enotes.map((e) => ({ amount: bytesToHex(e.encryptedAmount) })),
      outPk: set.enotes.map((e) => bytesToHex(e.amountCommitment)),
    },
    rctsig_prunable: {
      ...bulletproofPlusJson(bpp),
      reference_block: referenceBlock,
      n_tree_layers: nTreeLayers,
      fcmp_pp: bytesToHex(proof),
      pseudoOuts: pseudoOuts.map(bytesToHex),
    },
  };
  const keys = publicKeys(set.enotes.map((e) => e.ephemeralPubkey));
  return finishTx(prefix, base, prunable, json, { ...keys, outputs, unlockTime: 0n, fee: opts.fee }, false);
}

export interface BuildCarrotCoinbaseOptions {
  /** Main addresses only (Carrot coinbase enotes are scanned against main spend keys). */
  destinations: MoneroDestination[];
  height: bigint | number;
  rng?: RandomSource;
  extraNonce?: Uint8Array;
}

/** A Carrot miner transaction: coinbase enotes with clear amounts, RingCT type 0, unlock at height + 60. */
export function buildCarrotCoinbase(opts: BuildCarrotCoinbaseOptions): BuiltMoneroTx {
  const rng = opts.rng ?? defaultRng;
  const height = BigInt(opts.height);
  if (opts.destinations.length === 0) throw new RangeError("at least one destination");
  const payments = opts.destinations.map((d) => ({ address: d.address, amount: d.amount, destination: destinationFromAddress(d.address), anchor: randomAnchor(rng) }));
  const enotes = buildCarrotCoinbaseEnotes({ blockIndex: height, payments, rng });
  const { prefix, extra } = carrotCoinbasePrefix(enotes, opts.extraNonce ?? null);
  const byDe = addressByEphemeralKey(payments, inputContextCoinbase(height));
  const outputs: BuiltOutput[] = enotes.map((e, i) => ({
    address: byDe.get(bytesToHex(e.ephemeralPubkey))!,
    amount: e.amount,
    outputIndex: i,
    publicKey: bytesToHex(e.onetimeAddress),
    viewTag: bytesToHex(e.viewTag),
  }));
  const unlockTime = height + MINED_MONEY_UNLOCK_WINDOW;
  const json: DaemonTxJson = {
    version: 2,
    unlock_time: unlockTime,
    vin: [{ gen: { height } }],
    vout: enotes.map((e) => ({ amount: e.amount, target: carrotTarget(e) })),
    extra: [...extra],
    rct_signatures: { type: 0 },
  };
  const keys = publicKeys(enotes.map((e) => e.ephemeralPubkey));
  return finishTx(prefix, Uint8Array.of(0), new Uint8Array(0), json, { ...keys, outputs, unlockTime, fee: 0n }, true);
}
