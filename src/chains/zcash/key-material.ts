/**
 * The derived scanning material of one watch's UFVK, as a string the watch
 * module seals (AES-256-GCM under the master key, the same SecretBox as the
 * view key, the watch id bound in) and stores, so a restarted process loads
 * it instead of decoding the UFVK and deriving again:
 *   - the network;
 *   - the trial-decryption keys of each shielded item and scope: Sapling
 *     ivk, dk and nk (repr_J) of the external and internal scope; Orchard ivk
 *     and dk of each scope and the shared nk;
 *   - whether the UFVK has a transparent item; if so its external chain node
 *     (chain code ‖ compressed public key, so a gap window that moves is
 *     extended without decoding the UFVK) and the P2PKH hashes of that chain
 *     for indices 0 … n − 1 (the gap window derived so far).
 * Everything here can be computed from the view key alone, and reveals what
 * the view key reveals (the ivks find every incoming note, nk every spend),
 * so it is exactly as secret as the view key: it is only ever kept sealed.
 * Parsing is strict: a string that does not parse is treated as absent (the
 * keys are then derived from the view key, and the material written anew).
 */
import { bigintToLeBytes, bytesToHex, leBytesToBigint } from "./bytes.js";
import type { ZcashNetwork } from "./network.js";
import type { ScanKey, ScanKeys } from "./note-decrypt.js";

const VERSION = 1;
const NETWORKS: readonly ZcashNetwork[] = ["mainnet", "testnet", "regtest"];

/** A key of one scope: ivk (scalar, 32 bytes LE), dk (32 bytes), and for Sapling nk (repr_J, 32 bytes). */
export interface KeyMaterial {
  network: ZcashNetwork;
  sapling: { external: { ivk: bigint; dk: Uint8Array; nk: Uint8Array }; internal: { ivk: bigint; dk: Uint8Array; nk: Uint8Array } } | null;
  /** Orchard-protocol keys (used for the Orchard and the Ironwood pool); internal is null when it does not derive. */
  orchard: { nk: bigint; external: { ivk: bigint; dk: Uint8Array }; internal: { ivk: bigint; dk: Uint8Array } | null } | null;
  /**
   * null: the UFVK has no transparent item. chain: the external chain node m/…/0 (chain code 32 ‖ public key 33);
   * hashes[i]: HASH160 of its child i, hex (empty for the ~2^-127 invalid child).
   */
  transparent: { chain: Uint8Array; hashes: string[] } | null;
}

const hex32 = (x: bigint): string => bytesToHex(bigintToLeBytes(x, 32));
const HEX32 = /^[0-9a-f]{64}$/;
const HEX20 = /^([0-9a-f]{40})?$/;

function scalar(s: unknown): bigint {
  if (typeof s !== "string" || !HEX32.test(s)) throw new Error("bad scalar");
  return leBytesToBigint(Buffer.from(s, "hex"));
}
function bytes32(s: unknown): Uint8Array {
  if (typeof s !== "string" || !HEX32.test(s)) throw new Error("bad bytes");
  return Uint8Array.from(Buffer.from(s, "hex"));
}

export function encodeKeyMaterial(m: KeyMaterial): string {
  const sap = (k: { ivk: bigint; dk: Uint8Array; nk: Uint8Array }) => [hex32(k.ivk), bytesToHex(k.dk), bytesToHex(k.nk)];
  const orc = (k: { ivk: bigint; dk: Uint8Array }) => [hex32(k.ivk), bytesToHex(k.dk)];
  return JSON.stringify({
    v: VERSION,
    n: m.network,
    s: m.sapling ? { e: sap(m.sapling.external), i: sap(m.sapling.internal) } : null,
    o: m.orchard ? { nk: hex32(m.orchard.nk), e: orc(m.orchard.external), i: m.orchard.internal ? orc(m.orchard.internal) : null } : null,
    t: m.transparent ? { c: bytesToHex(m.transparent.chain), h: m.transparent.hashes.join(",") } : null,
  });
}

/** The material in `text`, or null when it is not material of this version (the caller derives instead). */
export function decodeKeyMaterial(text: string): KeyMaterial | null {
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    if (j.v !== VERSION || !NETWORKS.includes(j.n as ZcashNetwork)) return null;
    const sap = (a: unknown) => {
      if (!Array.isArray(a) || a.length !== 3) throw new Error("bad key");
      return { ivk: scalar(a[0]), dk: bytes32(a[1]), nk: bytes32(a[2]) };
    };
    const orc = (a: unknown) => {
      if (!Array.isArray(a) || a.length !== 2) throw new Error("bad key");
      return { ivk: scalar(a[0]), dk: bytes32(a[1]) };
    };
    const s = j.s as Record<string, unknown> | null;
    const o = j.o as Record<string, unknown> | null;
    const t = j.t as { c?: unknown; h?: unknown } | null;
    if (t !== null && (typeof t !== "object" || typeof t.c !== "string" || !/^[0-9a-f]{130}$/.test(t.c) || typeof t.h !== "string")) return null;
    const hashes = t ? (t.h === "" ? [] : (t.h as string).split(",")) : null;
    if (hashes && !hashes.every((h) => HEX20.test(h))) return null;
    return {
      network: j.n as ZcashNetwork,
      sapling: s ? { external: sap(s.e), internal: sap(s.i) } : null,
      orchard: o ? { nk: scalar(o.nk), external: orc(o.e), internal: o.i === null ? null : orc(o.i) } : null,
      transparent: t && hashes ? { chain: Uint8Array.from(Buffer.from(t.c as string, "hex")), hashes } : null,
    };
  } catch {
    return null;
  }
}

/** The trial-decryption keys the material holds, in the order scanKeysFromUfvk gives them. */
export function scanKeysOfMaterial(m: KeyMaterial): ScanKeys {
  const sapling: ScanKey[] = m.sapling
    ? [
        { scope: "external", ivk: m.sapling.external.ivk, dk: m.sapling.external.dk },
        { scope: "internal", ivk: m.sapling.internal.ivk, dk: m.sapling.internal.dk },
      ]
    : [];
  const orchard: ScanKey[] = [];
  if (m.orchard) {
    orchard.push({ scope: "external", ivk: m.orchard.external.ivk, dk: m.orchard.external.dk, nk: m.orchard.nk });
    if (m.orchard.internal) orchard.push({ scope: "internal", ivk: m.orchard.internal.ivk, dk: m.orchard.internal.dk, nk: m.orchard.nk });
  }
  return { network: m.network, sapling, orchard };
}
