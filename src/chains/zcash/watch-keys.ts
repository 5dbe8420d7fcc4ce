/**
 * What the scanner needs from one watch's UFVK, built once and kept in a
 * small in-memory LRU keyed by a hash of address + key (never the key
 * itself): the trial-decryption keys (ScanKeys), the Sapling ivk and nk of
 * each scope (for note commitments and nullifiers), and the transparent
 * external chain with the P2PKH hashes derived so far (deriving one costs
 * about a millisecond, so they are derived once per process, as the gap
 * limit moves).
 */
import { createHash } from "node:crypto";
import { bytesToHex } from "./bytes.js";
import type { JubjubPoint } from "./jubjub.js";
import type { ZcashNetwork } from "./network.js";
import { scanKeysFromUfvk, type ScanKeys } from "./note-decrypt.js";
import { saplingInternalDfvk, saplingIvk } from "./sapling-keys.js";
import { p2pkhHashesOfChain, publicChild, type TransparentPubNode } from "./transparent.js";
import { decodeUfvk } from "./zip316.js";

/** The external P2PKH chain of a UFVK, derived lazily. */
export class TransparentChain {
  /** hash160 (hex) → child index. */
  readonly byHash = new Map<string, number>();
  private derived = 0;

  constructor(private readonly chain: TransparentPubNode) {}

  /** Number of indices derived so far (0 … count − 1). */
  get count(): number {
    return this.derived;
  }

  /** Derives indices up to count − 1; returns the new [hash, index] pairs. */
  ensure(count: number): [string, number][] {
    const added: [string, number][] = [];
    if (count <= this.derived) return added;
    for (const { index, hash } of p2pkhHashesOfChain(this.chain, this.derived, count - this.derived)) {
      const hex = bytesToHex(hash);
      this.byHash.set(hex, index);
      added.push([hex, index]);
    }
    this.derived = count;
    return added;
  }
}

export interface SaplingScopeKey {
  ivk: bigint;
  nk: JubjubPoint;
}

export interface WatchKeys {
  /** Names the keys in caches (a hash of address and key; never the key). */
  id: string;
  network: ZcashNetwork;
  scan: ScanKeys;
  sapling?: { external: SaplingScopeKey; internal: SaplingScopeKey };
  transparent?: TransparentChain;
}

export function watchKeyId(address: string, viewKey: string): string {
  return createHash("sha256").update(address).update("\0").update(viewKey.trim()).digest("hex").slice(0, 32);
}

/** Builds the keys of one UFVK (throws the decoder's 400 on a bad key). */
export function buildWatchKeys(address: string, viewKey: string): WatchKeys {
  const ufvk = decodeUfvk(viewKey.trim());
  const keys: WatchKeys = { id: watchKeyId(address, viewKey), network: ufvk.network, scan: scanKeysFromUfvk(ufvk) };
  if (ufvk.sapling) {
    const ext = ufvk.sapling;
    const int = saplingInternalDfvk(ext);
    keys.sapling = {
      external: { ivk: saplingIvk(ext.ak, ext.nk), nk: ext.nk },
      internal: { ivk: saplingIvk(int.ak, int.nk), nk: int.nk },
    };
  }
  if (ufvk.transparent) {
    const chain = publicChild(ufvk.transparent, 0);
    if (chain) keys.transparent = new TransparentChain(chain);
  }
  return keys;
}

/** LRU of built keys (Map iteration order is insertion order). */
export class WatchKeyCache {
  private readonly map = new Map<string, WatchKeys>();

  constructor(private readonly capacity: number) {}

  has(address: string, viewKey: string): boolean {
    return this.map.has(watchKeyId(address, viewKey));
  }

  get(address: string, viewKey: string): WatchKeys {
    const id = watchKeyId(address, viewKey);
    let k = this.map.get(id);
    if (k) {
      this.map.delete(id);
    } else {
      k = buildWatchKeys(address, viewKey);
    }
    this.map.set(id, k);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
    return k;
  }
}
