/**
 * tx extra parsing (tx_extra.h, parse_tx_extra). Fields are read left to
 * right; on an unknown tag or a malformed field parsing stops and what was
 * read so far is kept (as wallet2 does). Never throws.
 */
import { ByteReader, concatBytes, encodeVarint } from "./encoding.js";

export const EXTRA_TAG_PADDING = 0x00;
export const EXTRA_TAG_PUBKEY = 0x01;
export const EXTRA_TAG_NONCE = 0x02;
export const EXTRA_TAG_MERGE_MINING = 0x03;
export const EXTRA_TAG_ADDITIONAL_PUBKEYS = 0x04;
export const EXTRA_TAG_MINERGATE = 0xde;

export const NONCE_PAYMENT_ID = 0x00;
export const NONCE_ENCRYPTED_PAYMENT_ID = 0x01;

const MAX_NONCE = 255;
const MAX_PADDING = 255;

export interface ParsedExtra {
  /** Every 0x01 field, in order (wallets try each). */
  txPublicKeys: Uint8Array[];
  /** The first 0x04 field's keys (one per output when well formed). */
  additionalPublicKeys: Uint8Array[];
  /** Raw nonce bodies. */
  nonces: Uint8Array[];
  /** 8-byte encrypted short payment id from the first nonce that carries one. */
  encryptedPaymentId?: Uint8Array;
  /** 32-byte legacy unencrypted payment id. */
  paymentId?: Uint8Array;
  paddingBytes: number;
  /** True when every byte was understood. */
  complete: boolean;
  /** Why parsing stopped early, if it did. */
  error?: string;
}

export function parseExtra(extra: Uint8Array): ParsedExtra {
  const out: ParsedExtra = { txPublicKeys: [], additionalPublicKeys: [], nonces: [], paddingBytes: 0, complete: true };
  const r = new ByteReader(extra);
  let sawAdditional = false;
  try {
    while (r.remaining > 0) {
      const tag = r.byte();
      switch (tag) {
        case EXTRA_TAG_PADDING: {
          // Padding runs to the end of extra and must be all zeros.
          const rest = r.take(r.remaining);
          if (rest.length + 1 > MAX_PADDING) throw new Error("padding too long");
          if (rest.some((b) => b !== 0)) throw new Error("non-zero byte in padding");
          out.paddingBytes = rest.length + 1;
          break;
        }
        case EXTRA_TAG_PUBKEY:
          out.txPublicKeys.push(Uint8Array.from(r.take(32)));
          break;
        case EXTRA_TAG_NONCE: {
          const len = r.varintNumber(MAX_NONCE);
          const body = Uint8Array.from(r.take(len));
          out.nonces.push(body);
          if (body.length === 9 && body[0] === NONCE_ENCRYPTED_PAYMENT_ID && !out.encryptedPaymentId) {
            out.encryptedPaymentId = body.subarray(1);
          } else if (body.length === 33 && body[0] === NONCE_PAYMENT_ID && !out.paymentId) {
            out.paymentId = body.subarray(1);
          }
          break;
        }
        case EXTRA_TAG_MERGE_MINING: {
          const len = r.varintNumber(r.remaining);
          r.take(len);
          break;
        }
        case EXTRA_TAG_ADDITIONAL_PUBKEYS: {
          const count = r.varintNumber(Math.floor(r.remaining / 32));
          const keys: Uint8Array[] = [];
          for (let i = 0; i < count; i++) keys.push(Uint8Array.from(r.take(32)));
          if (!sawAdditional) out.additionalPublicKeys = keys;
          sawAdditional = true;
          break;
        }
        case EXTRA_TAG_MINERGATE: {
          const len = r.varintNumber(r.remaining);
          r.take(len);
          break;
        }
        default:
          throw new Error(`unknown extra tag 0x${tag.toString(16).padStart(2, "0")}`);
      }
    }
  } catch (e) {
    out.complete = false;
    out.error = e instanceof Error ? e.message : String(e);
  }
  return out;
}

/** Builders used by the devnet sender and tests. */
export function extraPubkeyField(key: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(EXTRA_TAG_PUBKEY), key);
}

export function extraNonceField(nonce: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(EXTRA_TAG_NONCE), encodeVarint(nonce.length), nonce);
}

export function extraAdditionalKeysField(keys: Uint8Array[]): Uint8Array {
  return concatBytes(Uint8Array.of(EXTRA_TAG_ADDITIONAL_PUBKEYS), encodeVarint(keys.length), ...keys);
}
