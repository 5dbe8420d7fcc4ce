/**
 * Monero address codec: varint tag ‖ spend ‖ view [‖ payment id] ‖ Keccak
 * checksum[0..4], in Monero's block-wise base58 (8-byte blocks, each a
 * fixed-width base58 number; not Bitcoin's), which @scure/base provides.
 */
import { base58xmr } from "@scure/base";
import { badRequest } from "../../core/errors.js";
import { checkKey, keccak } from "./crypto.js";
import { ByteReader, bytesToHex, concatBytes, encodeVarint, equalBytes, hexToBytesStrict } from "./encoding.js";
import type { DecodedAddress, MoneroAddressKind, MoneroNetwork, ParseResult } from "./types.js";

/** CRYPTONOTE_PUBLIC_*_BASE58_PREFIX per network (cryptonote_config.h). */
export const ADDRESS_TAGS: Record<MoneroNetwork, Record<MoneroAddressKind, number>> = {
  mainnet: { standard: 18, integrated: 19, subaddress: 42 },
  testnet: { standard: 53, integrated: 54, subaddress: 63 },
  stagenet: { standard: 24, integrated: 25, subaddress: 36 },
};

const TAG_LOOKUP = new Map<number, { network: MoneroNetwork; kind: MoneroAddressKind }>();
for (const network of Object.keys(ADDRESS_TAGS) as MoneroNetwork[]) {
  for (const kind of Object.keys(ADDRESS_TAGS[network]) as MoneroAddressKind[]) {
    TAG_LOOKUP.set(ADDRESS_TAGS[network][kind], { network, kind });
  }
}

const CHECKSUM_SIZE = 4;

/** Null on any malformed input (bad block length, bad character, block overflow); the library throws instead. */
function base58Decode(s: string): Uint8Array | null {
  try {
    return base58xmr.decode(s);
  } catch {
    return null;
  }
}

export function encodeAddress(
  network: MoneroNetwork,
  kind: MoneroAddressKind,
  spendPublicKey: Uint8Array,
  viewPublicKey: Uint8Array,
  paymentId?: Uint8Array,
): string {
  if (spendPublicKey.length !== 32 || viewPublicKey.length !== 32) throw new RangeError("public keys must be 32 bytes");
  if ((kind === "integrated") !== (paymentId !== undefined)) throw new RangeError("payment id goes with integrated addresses only");
  if (paymentId && paymentId.length !== 8) throw new RangeError("payment id must be 8 bytes");
  const payload = concatBytes(encodeVarint(ADDRESS_TAGS[network][kind]), spendPublicKey, viewPublicKey, paymentId ?? new Uint8Array(0));
  return base58xmr.encode(concatBytes(payload, keccak(payload).subarray(0, CHECKSUM_SIZE)));
}

/** Decodes and checks an address of any network; never throws. */
export function decodeAddress(s: string): ParseResult<DecodedAddress> {
  if (typeof s !== "string" || s.length === 0) return { ok: false, error: "empty address" };
  if (s.length > 200) return { ok: false, error: "address too long" };
  const raw = base58Decode(s);
  if (!raw) return { ok: false, error: "not Monero base58" };
  if (raw.length <= CHECKSUM_SIZE) return { ok: false, error: "address too short" };
  const payload = raw.subarray(0, raw.length - CHECKSUM_SIZE);
  const checksum = raw.subarray(raw.length - CHECKSUM_SIZE);
  if (!equalBytes(keccak(payload).subarray(0, CHECKSUM_SIZE), checksum)) return { ok: false, error: "checksum mismatch" };
  const r = new ByteReader(payload);
  let tag: number;
  try {
    tag = r.varintNumber(0xffffffff);
  } catch {
    return { ok: false, error: "bad address prefix" };
  }
  const meta = TAG_LOOKUP.get(tag);
  if (!meta) return { ok: false, error: `unknown address prefix ${tag}` };
  const expected = meta.kind === "integrated" ? 72 : 64;
  if (r.remaining !== expected) return { ok: false, error: `wrong payload length for ${meta.kind} address` };
  const spendPublicKey = Uint8Array.from(r.take(32));
  const viewPublicKey = Uint8Array.from(r.take(32));
  if (!checkKey(spendPublicKey)) return { ok: false, error: "public spend key is not a valid point" };
  if (!checkKey(viewPublicKey)) return { ok: false, error: "public view key is not a valid point" };
  const value: DecodedAddress = { network: meta.network, kind: meta.kind, tag, spendPublicKey, viewPublicKey, address: s };
  if (meta.kind === "integrated") value.paymentId = Uint8Array.from(r.take(8));
  return { ok: true, value };
}

/** decodeAddress for request handlers: a 400 `invalid_address` ServiceError on failure. */
export function decodeAddressOrThrow(s: string, expectNetwork?: MoneroNetwork): DecodedAddress {
  const r = decodeAddress(s);
  if (!r.ok) throw badRequest("invalid_address", `Not a valid Monero address: ${r.error}.`);
  if (expectNetwork && r.value.network !== expectNetwork) {
    throw badRequest("invalid_address", `This is a ${r.value.network} address; this service watches ${expectNetwork}.`, {
      addressNetwork: r.value.network,
      expectedNetwork: expectNetwork,
    });
  }
  return r.value;
}

/** Standard address + 8-byte payment id (16 hex) → integrated address of the same network. */
export function makeIntegratedAddress(standardAddress: string, paymentIdHex: string): string {
  const d = decodeAddress(standardAddress);
  if (!d.ok) throw new RangeError(d.error);
  if (d.value.kind !== "standard") throw new RangeError("integrated addresses are built from a standard address");
  const pid = hexToBytesStrict(paymentIdHex);
  if (!pid || pid.length !== 8) throw new RangeError("payment id must be 16 hex characters");
  return encodeAddress(d.value.network, "integrated", d.value.spendPublicKey, d.value.viewPublicKey, pid);
}

export function describeAddress(d: DecodedAddress): Record<string, string> {
  return {
    network: d.network,
    kind: d.kind,
    spendPublicKey: bytesToHex(d.spendPublicKey),
    viewPublicKey: bytesToHex(d.viewPublicKey),
    ...(d.paymentId ? { paymentId: bytesToHex(d.paymentId) } : {}),
  };
}
