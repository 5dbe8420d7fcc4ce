/** Decoding of every Zcash address form a watch may name: unified, Sapling (zs…) and transparent (t1/t3/tm/t2). */
import { badRequest } from "../../core/errors.js";
import { bech32Decode, bech32Encode } from "./bech32.js";
import { NETWORKS, unifiedHrpInfo, ZCASH_NETWORKS, type ZcashNetwork } from "./network.js";
import { decodeTransparentAddress, encodeP2pkh, encodeP2sh } from "./transparent.js";
import { decodeUnifiedAddress, encodeUnifiedAddress, type UnifiedAddress } from "./zip316.js";

export type ZcashAddress =
  | { kind: "unified"; network: ZcashNetwork; ua: UnifiedAddress; canonical: string }
  | { kind: "sapling"; network: ZcashNetwork; raw: Uint8Array; canonical: string }
  | { kind: "p2pkh" | "p2sh"; networks: ZcashNetwork[]; hash: Uint8Array; canonical: string };

/**
 * Decodes an address; when `expectNetwork` is given, an address of another
 * network is a 400 `wrong_network`. Throws 400s naming the problem.
 */
export function decodeZcashAddress(input: string, expectNetwork?: ZcashNetwork): ZcashAddress {
  if (typeof input !== "string" || input.trim().length === 0) throw badRequest("invalid_address", "The address is empty.");
  const str = input.trim();
  const lower = str.toLowerCase();
  const sep = lower.lastIndexOf("1");
  const hrp = sep > 0 ? lower.slice(0, sep) : "";
  const ua = unifiedHrpInfo(hrp);
  if (ua) {
    if (ua.kind !== "address")
      throw badRequest("key_not_address", `This is a unified ${ua.kind === "ufvk" ? "full" : "incoming"} viewing key, not an address.`);
    const decoded = decodeUnifiedAddress(str, expectNetwork);
    return { kind: "unified", network: decoded.network, ua: decoded, canonical: encodeUnifiedAddress(decoded.network, decoded) };
  }
  const saplingNet = ZCASH_NETWORKS.find((n) => NETWORKS[n].saplingAddressHrp === hrp);
  if (saplingNet) {
    const dec = bech32Decode(str);
    if (!dec.ok) {
      if (dec.reason === "invalid_checksum") throw badRequest("invalid_checksum", "The Sapling address has a bad Bech32 checksum.");
      throw badRequest("invalid_address", "The Sapling address is malformed.");
    }
    if (dec.variant !== "bech32") throw badRequest("invalid_checksum", "Sapling addresses use Bech32, not Bech32m.");
    if (dec.data.length !== 43) throw badRequest("invalid_address", "A Sapling address holds 43 bytes.");
    if (expectNetwork && saplingNet !== expectNetwork)
      throw badRequest("wrong_network", `This Sapling address is for ${saplingNet}, not ${expectNetwork}.`, { found: saplingNet, expected: expectNetwork });
    return { kind: "sapling", network: saplingNet, raw: dec.data, canonical: bech32Encode(hrp, dec.data) };
  }
  if (/^t[1-9A-HJ-NP-Za-km-z]+$/.test(str)) {
    const t = decodeTransparentAddress(str);
    if (!t.ok) {
      if (t.reason === "invalid_checksum") throw badRequest("invalid_checksum", "The transparent address has a bad Base58Check checksum.");
      throw badRequest("invalid_address", "Not a Zcash transparent address.");
    }
    const { kind, hash, networks } = t.address;
    if (expectNetwork && !networks.includes(expectNetwork))
      throw badRequest("wrong_network", `This transparent address is for ${networks.join("/")}, not ${expectNetwork}.`, { found: networks[0], expected: expectNetwork });
    const net = networks[0];
    return { kind, networks, hash, canonical: kind === "p2pkh" ? encodeP2pkh(hash, net) : encodeP2sh(hash, net) };
  }
  if (/^(zc|zt)[1-9A-HJ-NP-Za-km-z]{90,}$/.test(str)) throw badRequest("unsupported_address", "Sprout addresses are not supported.");
  throw badRequest("invalid_address", "Not a Zcash address (expected a unified, Sapling or transparent address).");
}
