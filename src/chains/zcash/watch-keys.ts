/**
 * What the scanner needs from one watch's UFVK, kept in an in-memory LRU
 * keyed by a hash of address + key (never the key itself), and built
 * lazily, part by part, when block or mempool data needs it:
 *   - nothing is decoded for a watch whose tick finds no new block and no
 *     new mempool transaction (the idle path): loading a watch costs a
 *     hash and a Bech32m checksum check;
 *   - the UFVK is decoded (~5 ms: point decompression of its items) when a
 *     block or mempool transaction has shielded outputs or transparent
 *     outputs to match;
 *   - the trial-decryption keys (ScanKeys) and the Sapling ivk/nk of each
 *     scope when a block or mempool transaction has shielded outputs;
 *   - the transparent external chain's P2PKH hashes (~0.6 ms each) when a
 *     block or mempool transaction has a P2PKH output, as far as the gap
 *     limit needs.
 * Nothing derived is written anywhere. The cache counts what it builds
 * (KeyCacheStats) so the idle path can be checked.
 */
import { createHash } from "node:crypto";
import { bech32Decode } from "./bech32.js";
import { bytesToHex } from "./bytes.js";
import type { JubjubPoint } from "./jubjub.js";
import { unifiedHrpInfo, type ZcashNetwork } from "./network.js";
import { scanKeysFromUfvk, type ScanKeys } from "./note-decrypt.js";
import { saplingInternalDfvk, saplingIvk } from "./sapling-keys.js";
import { p2pkhHashesOfChain, publicChild, type TransparentPubNode } from "./transparent.js";
import { decodeUfvk, type UnifiedFullViewingKey } from "./zip316.js";

/** What a key cache (or one WatchKeys) has built so far in this process. */
export interface KeyCacheStats {
  /** UFVKs decoded. */
  ufvkDecodes: number;
  /** ScanKeys (trial-decryption keys) built. */
  scanKeyBuilds: number;
  /** Transparent P2PKH hashes derived. */
  transparentHashes: number;
}

export const emptyKeyStats = (): KeyCacheStats => ({ ufvkDecodes: 0, scanKeyBuilds: 0, transparentHashes: 0 });

/** The external P2PKH chain of a UFVK, derived lazily. */
export class TransparentChain {
  /** hash160 (hex) → child index. */
  readonly byHash = new Map<string, number>();
  private derived = 0;

  constructor(
    private readonly chain: TransparentPubNode,
    private readonly stats?: KeyCacheStats,
  ) {}

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
    if (this.stats) this.stats.transparentHashes += count - this.derived;
    this.derived = count;
    return added;
  }
}

export interface SaplingScopeKey {
  ivk: bigint;
  nk: JubjubPoint;
}

export function watchKeyId(address: string, viewKey: string): string {
  return createHash("sha256").update(address).update("\0").update(viewKey.trim()).digest("hex").slice(0, 32);
}

/**
 * The keys of one UFVK, each part built on first use. A UFVK that does not
 * decode throws the decoder's 400 from whichever getter first needs it
 * (`decode()` forces it up front).
 */
export class WatchKeys {
  /** Names the keys in caches (a hash of address and key; never the key). */
  readonly id: string;
  private ufvk?: UnifiedFullViewingKey;
  private scanKeys?: ScanKeys;
  private saplingKeys?: { external: SaplingScopeKey; internal: SaplingScopeKey } | null;
  private tChain?: TransparentChain | null;

  constructor(
    address: string,
    private readonly viewKey: string,
    private readonly stats: KeyCacheStats = emptyKeyStats(),
  ) {
    this.id = watchKeyId(address, viewKey);
  }

  /** True once the UFVK is decoded (so `hasTransparent` is known exactly). */
  get decoded(): boolean {
    return this.ufvk !== undefined;
  }

  /** Decodes the UFVK (once); throws its 400 when it does not decode. */
  decode(): UnifiedFullViewingKey {
    if (!this.ufvk) {
      this.ufvk = decodeUfvk(this.viewKey.trim());
      this.stats.ufvkDecodes++;
    }
    return this.ufvk;
  }

  get network(): ZcashNetwork {
    return this.decode().network;
  }

  /** Trial-decryption keys (external and internal scopes of every shielded item). */
  get scan(): ScanKeys {
    if (!this.scanKeys) {
      this.scanKeys = scanKeysFromUfvk(this.decode());
      this.stats.scanKeyBuilds++;
    }
    return this.scanKeys;
  }

  /** The Sapling ivk and nk of each scope (note commitments and nullifiers), when the UFVK has a Sapling item. */
  get sapling(): { external: SaplingScopeKey; internal: SaplingScopeKey } | undefined {
    if (this.saplingKeys === undefined) {
      const ext = this.decode().sapling;
      if (ext) {
        const int = saplingInternalDfvk(ext);
        this.saplingKeys = {
          external: { ivk: saplingIvk(ext.ak, ext.nk), nk: ext.nk },
          internal: { ivk: saplingIvk(int.ak, int.nk), nk: int.nk },
        };
      } else this.saplingKeys = null;
    }
    return this.saplingKeys ?? undefined;
  }

  /** The external P2PKH chain, when the UFVK has a transparent item. */
  get transparent(): TransparentChain | undefined {
    if (this.tChain === undefined) {
      const t = this.decode().transparent;
      this.tChain = (t && publicChild(t, 0) && new TransparentChain(publicChild(t, 0)!, this.stats)) || null;
    }
    return this.tChain ?? undefined;
  }

  /**
   * Whether what `needs` asks for is built: the trial-decryption keys for
   * shielded data, the transparent window up to `tCount` for P2PKH outputs.
   */
  ready(needs: { shielded: boolean; p2pkh: boolean }, tCount: number): boolean {
    if ((needs.shielded || needs.p2pkh) && !this.ufvk) return false;
    if (needs.shielded && !this.scanKeys) return false;
    if (needs.p2pkh && this.ufvk!.transparent && (this.tChain === undefined || (this.tChain !== null && this.tChain.count < tCount))) return false;
    return true;
  }

  /** Builds what `needs` asks for (throws the decoder's 400 when the UFVK does not decode). */
  build(needs: { shielded: boolean; p2pkh: boolean }, tCount: number): void {
    if (needs.shielded || needs.p2pkh) this.decode();
    if (needs.shielded) void this.scan;
    if (needs.p2pkh) this.transparent?.ensure(tCount);
  }

  /** Whether the UFVK may have a transparent item: exact once decoded, true before (decoding is not forced). */
  get mayHaveTransparent(): boolean {
    return this.ufvk ? this.ufvk.transparent !== undefined : true;
  }
}

/** Builds (and decodes) the keys of one UFVK (throws the decoder's 400 on a bad key). */
export function buildWatchKeys(address: string, viewKey: string): WatchKeys {
  const keys = new WatchKeys(address, viewKey);
  keys.decode();
  return keys;
}

/**
 * The cheap check done when a watch's keys are first loaded: a Bech32m
 * string with a UFVK prefix. The full decode happens when the keys are needed.
 */
function checkUfvkShape(viewKey: string): void {
  const dec = bech32Decode(viewKey.trim());
  if (!dec.ok || dec.variant !== "bech32m" || unifiedHrpInfo(dec.hrp)?.kind !== "ufvk") decodeUfvk(viewKey.trim()); // throws its precise 400
}

/** LRU of watch keys (Map iteration order is insertion order). */
export class WatchKeyCache {
  private readonly map = new Map<string, WatchKeys>();
  /** What was built since the cache was created (for tests and benchmarks). */
  readonly stats: KeyCacheStats = emptyKeyStats();

  constructor(
    private readonly capacity: number,
    /** Decode every UFVK and derive its transparent window on load, as the scanner once did (benchmark baseline). */
    private readonly eager?: { gapLimit: number },
  ) {}

  has(address: string, viewKey: string): boolean {
    return this.map.has(watchKeyId(address, viewKey));
  }

  /** Drops every entry (a cold start for the next call); the counters stay. */
  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }

  /** The watch's keys (throws a 400 when the key is not a UFVK at all). */
  get(address: string, viewKey: string): WatchKeys {
    const id = watchKeyId(address, viewKey);
    let k = this.map.get(id);
    if (k) {
      this.map.delete(id);
    } else {
      checkUfvkShape(viewKey);
      k = new WatchKeys(address, viewKey, this.stats);
      if (this.eager) {
        void k.scan;
        void k.sapling;
        k.transparent?.ensure(this.eager.gapLimit);
      }
    }
    this.map.set(id, k);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
    return k;
  }
}
