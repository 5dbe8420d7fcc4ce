/**
 * What the scanner needs from one watch's UFVK, kept in an in-memory LRU
 * keyed by a hash of address + key (never the key itself), loaded from the
 * watch's stored key material or built lazily, part by part, when block or
 * mempool data needs it:
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
 * What is derived is handed out once as key material (key-material.ts):
 * the watch module stores it sealed like the view key (AES-256-GCM under
 * the master key, the watch id bound in) and hands it back, opened, when a
 * later process needs the keys; loaded material replaces the decode, the
 * scan-key build and the transparent derivations (a window moved past the
 * stored hashes is derived from the stored chain node, and stored again).
 * Nothing derived is logged. The cache counts what it builds and loads
 * (KeyCacheStats) so the idle path and the restart path can be checked.
 */
import { createHash } from "node:crypto";
import { bech32Decode } from "./bech32.js";
import { bytesToHex } from "./bytes.js";
import { jubjubFromBytes, jubjubToBytes, type JubjubPoint } from "./jubjub.js";
import { decodeKeyMaterial, encodeKeyMaterial, scanKeysOfMaterial, type KeyMaterial } from "./key-material.js";
import { unifiedHrpInfo, type ZcashNetwork } from "./network.js";
import { scanKeysFromUfvk, type ScanKeys } from "./note-decrypt.js";
import { saplingInternalDfvk, saplingIvk } from "./sapling-keys.js";
import { encodeTransparentKey, p2pkhHashesOfChain, publicChild, type TransparentPubNode } from "./transparent.js";
import { decodeUfvk, type UnifiedFullViewingKey } from "./zip316.js";

/** What a key cache (or one WatchKeys) has built so far in this process. */
export interface KeyCacheStats {
  /** UFVKs decoded. */
  ufvkDecodes: number;
  /** ScanKeys (trial-decryption keys) built from a decoded UFVK. */
  scanKeyBuilds: number;
  /** Transparent P2PKH hashes derived. */
  transparentHashes: number;
  /** Stored key material loaded in place of decoding and deriving (key-material.ts). */
  materialLoads: number;
}

export const emptyKeyStats = (): KeyCacheStats => ({ ufvkDecodes: 0, scanKeyBuilds: 0, transparentHashes: 0, materialLoads: 0 });

/**
 * The external P2PKH chain of a UFVK: hashes loaded from stored material
 * and/or derived lazily from the chain node (stored with them, so an index
 * past the loaded ones costs its derivation only, not a UFVK decode).
 */
export class TransparentChain {
  /** hash160 (hex) → child index. */
  readonly byHash = new Map<string, number>();
  /** hashes[i]: hex of child i ("" for an invalid child). */
  private readonly hashes: string[] = [];

  constructor(
    /** The external chain node m/44'/coin'/account'/0. */
    readonly node: TransparentPubNode,
    private readonly stats?: KeyCacheStats,
    loaded: readonly string[] = [],
  ) {
    loaded.forEach((h, i) => {
      this.hashes.push(h);
      if (h) this.byHash.set(h, i);
    });
  }

  /** Number of indices known so far (0 … count − 1). */
  get count(): number {
    return this.hashes.length;
  }

  /** The known hashes in index order (for the stored material). */
  get known(): readonly string[] {
    return this.hashes;
  }

  /** Derives indices up to count − 1; returns the new [hash, index] pairs. */
  ensure(count: number): [string, number][] {
    const added: [string, number][] = [];
    const from = this.hashes.length;
    if (count <= from) return added;
    const byIndex = new Map<number, string>();
    for (const { index, hash } of p2pkhHashesOfChain(this.node, from, count - from)) byIndex.set(index, bytesToHex(hash));
    for (let i = from; i < count; i++) {
      const hex = byIndex.get(i) ?? "";
      this.hashes.push(hex);
      if (hex) {
        this.byHash.set(hex, i);
        added.push([hex, i]);
      }
    }
    if (this.stats) this.stats.transparentHashes += count - from;
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
 * The keys of one UFVK, each part built on first use — from stored material
 * when it was loaded (`useMaterial`), from the decoded UFVK otherwise. A
 * UFVK that does not decode throws the decoder's 400 from whichever getter
 * first needs it (`decode()` forces it up front).
 */
export class WatchKeys {
  /** Names the keys in caches (a hash of address and key; never the key). */
  readonly id: string;
  private ufvk?: UnifiedFullViewingKey;
  private material?: KeyMaterial;
  private scanKeys?: ScanKeys;
  private saplingKeys?: { external: SaplingScopeKey; internal: SaplingScopeKey } | null;
  private tChain?: TransparentChain | null;
  /** What the stored material is known to hold (null: none known to be stored). */
  private stored: { tCount: number } | null = null;
  /** The stored material was asked for (found or not): it is not asked for again. */
  materialTried = false;

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

  /** True when stored material was loaded (the UFVK need not be decoded to scan). */
  get hasMaterial(): boolean {
    return this.material !== undefined;
  }

  /** Decodes the UFVK (once); throws its 400 when it does not decode. */
  decode(): UnifiedFullViewingKey {
    if (!this.ufvk) {
      this.ufvk = decodeUfvk(this.viewKey.trim());
      this.stats.ufvkDecodes++;
    }
    return this.ufvk;
  }

  /** Makes sure the keys can be built: true with material loaded, else decodes (throws its 400). */
  check(): void {
    if (!this.material) this.decode();
  }

  /**
   * Uses stored material (the string the watch module opened) for the parts not built yet.
   * Returns false, changing nothing, when it does not parse or is of another network.
   */
  useMaterial(text: string): boolean {
    const m = decodeKeyMaterial(text);
    if (!m || (this.ufvk && this.ufvk.network !== m.network)) return false;
    this.material = m;
    this.scanKeys ??= scanKeysOfMaterial(m);
    if (this.tChain === undefined) {
      // The point is decoded (and checked) only if the window is ever extended past the stored hashes.
      const c = m.transparent?.chain;
      const node = c ? { chainCode: c.slice(0, 32), publicKey: c.slice(32), depth: 4, parentFingerprint: 0, childNumber: 0 } : null;
      this.tChain = node ? new TransparentChain(node, this.stats, m.transparent!.hashes) : null;
    }
    this.stored = { tCount: m.transparent?.hashes.length ?? 0 };
    this.stats.materialLoads++;
    return true;
  }

  get network(): ZcashNetwork {
    return this.material?.network ?? this.decode().network;
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
      if (this.material) {
        const s = this.material.sapling;
        const ext = s && jubjubFromBytes(s.external.nk);
        const int = s && jubjubFromBytes(s.internal.nk);
        this.saplingKeys = s && ext && int ? { external: { ivk: s.external.ivk, nk: ext }, internal: { ivk: s.internal.ivk, nk: int } } : null;
      } else {
        const ext = this.decode().sapling;
        if (ext) {
          const int = saplingInternalDfvk(ext);
          this.saplingKeys = {
            external: { ivk: saplingIvk(ext.ak, ext.nk), nk: ext.nk },
            internal: { ivk: saplingIvk(int.ak, int.nk), nk: int.nk },
          };
        } else this.saplingKeys = null;
      }
    }
    return this.saplingKeys ?? undefined;
  }

  /** The external P2PKH chain, when the UFVK has a transparent item. */
  get transparent(): TransparentChain | undefined {
    if (this.tChain === undefined) {
      const t = this.decode().transparent;
      const node = (t && publicChild(t, 0)) || null;
      this.tChain = node ? new TransparentChain(node, this.stats) : null;
    }
    return this.tChain ?? undefined;
  }

  /**
   * Whether what `needs` asks for is built: the trial-decryption keys for
   * shielded data, the transparent window up to `tCount` for P2PKH outputs.
   */
  ready(needs: { shielded: boolean; p2pkh: boolean }, tCount: number): boolean {
    if (needs.shielded && !this.scanKeys) return false;
    if (needs.p2pkh && (this.tChain === undefined || (this.tChain !== null && this.tChain.count < tCount))) return false;
    return true;
  }

  /** Builds what `needs` asks for (throws the decoder's 400 when the UFVK is needed and does not decode). */
  build(needs: { shielded: boolean; p2pkh: boolean }, tCount: number): void {
    if (needs.shielded || needs.p2pkh) this.check();
    if (needs.shielded) void this.scan;
    if (needs.p2pkh) this.transparent?.ensure(tCount);
  }

  /** Whether the UFVK may have a transparent item: exact once decoded or loaded, true before (decoding is not forced). */
  get mayHaveTransparent(): boolean {
    if (this.tChain !== undefined) return this.tChain !== null;
    return this.ufvk ? this.ufvk.transparent !== undefined : true;
  }

  /** The material of everything built so far (the trial-decryption keys are built for it when they are not yet). */
  exportMaterial(): string {
    const scan = this.scan;
    const sapling = this.sapling;
    const [se, si] = scan.sapling;
    const [oe, oi] = scan.orchard;
    const t = this.transparent;
    return encodeKeyMaterial({
      network: scan.network,
      sapling: sapling && se && si ? { external: { ivk: se.ivk, dk: se.dk, nk: jubjubToBytes(sapling.external.nk) }, internal: { ivk: si.ivk, dk: si.dk, nk: jubjubToBytes(sapling.internal.nk) } } : null,
      orchard: oe && oe.nk !== undefined ? { nk: oe.nk, external: { ivk: oe.ivk, dk: oe.dk }, internal: oi ? { ivk: oi.ivk, dk: oi.dk } : null } : null,
      transparent: t ? { chain: encodeTransparentKey(t.node), hashes: [...t.known] } : null,
    });
  }

  /**
   * Material to store when this process built more than what is known to be stored: keys built
   * from the UFVK with nothing stored, or a transparent window grown past the stored one.
   * undefined when there is nothing new (or nothing was built). Marks it stored.
   */
  materialToStore(): string | undefined {
    const built = this.scanKeys !== undefined || this.tChain !== undefined;
    if (!built) return undefined;
    const tCount = this.tChain?.count ?? 0;
    if (this.stored && tCount <= this.stored.tCount) return undefined;
    const text = this.exportMaterial();
    this.stored = { tCount };
    return text;
  }

  /** Records that `exportMaterial()`'s current result is stored (at watch creation). */
  markStored(): void {
    this.stored = { tCount: this.tChain?.count ?? 0 };
    this.materialTried = true;
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

  /** New keys counted in this cache's stats (not cached until `put`). */
  create(address: string, viewKey: string): WatchKeys {
    return new WatchKeys(address, viewKey, this.stats);
  }

  /** Puts keys in the cache (replacing any under the same id). */
  put(k: WatchKeys): WatchKeys {
    this.map.delete(k.id);
    this.map.set(k.id, k);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
    return k;
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
        k.markStored(); // the old path: nothing loaded, nothing stored
      }
    }
    this.map.set(id, k);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
    return k;
  }
}
