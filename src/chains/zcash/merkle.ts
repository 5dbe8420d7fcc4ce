/**
 * Note commitment trees (protocol spec §4.9, §5.4.1.3): the fixed-depth
 * incremental Merkle trees whose roots are the anchors of Sapling, Orchard
 * and Ironwood spends. Pure: hashing, an incremental frontier, witnesses
 * (authentication paths kept current as leaves are appended), path
 * verification, and the serialized tree format nodes report.
 *
 * Invariants and conventions:
 *   - depth 32 for every pool; levels count from the leaves (level 0 = leaves),
 *     so the spec's layer is 31 − level and MerkleCRH(layer, l, r) is
 *     `combine(level, l, r)` here;
 *   - a node is 32 bytes, the little-endian encoding of a field element
 *     (Sapling: BLS12-381 scalar field = Jubjub base field; Orchard/Ironwood:
 *     Pallas base field), exactly as cmu/cmx and nodes' finalRoot carry it;
 *   - Sapling: MerkleCRH = PedersenHash("Zcash_PH", I2LEBSP_6(level) ‖ left[0..255] ‖ right[0..255]),
 *     the u-coordinate of the point; Uncommitted = 1;
 *   - Orchard: MerkleCRH = SinsemillaHash("z.cash:Orchard-MerkleCRH", I2LEBSP_10(level) ‖ left[0..255] ‖ right[0..255]),
 *     with ⊥ replaced by 0; Uncommitted = 2;
 *   - Ironwood is a second pool of the Orchard protocol (ZIP 229): its tree is
 *     an Orchard tree of its own, with the same hash and uncommitted leaf
 *     (zebra `zebra-chain/src/ironwood.rs` reuses the Orchard tree types;
 *     research zcash.md §5.6).
 * Empty-subtree roots are computed once per pool, on first use (33 hashes).
 */
import { bytesToHex, hexToBytes, leBytesToBigint, bigintToLeBytes, concatBytes, readCompactSize, writeCompactSize } from "./bytes.js";
import { JubjubPoint, jubjubMul, saplingPedersenBase } from "./jubjub.js";
import { PALLAS_P, JUBJUB_R } from "./prf.js";
import { sinsemillaHash } from "./sinsemilla.js";

export const MERKLE_DEPTH = 32;
export type TreePool = "sapling" | "orchard" | "ironwood";
export type MerkleNode = Uint8Array;

/** BLS12-381 scalar field order = the Jubjub base field: Sapling nodes are its elements. */
export const SAPLING_NODE_MODULUS = JubjubPoint.Fp.ORDER;

export interface TreeHasher {
  readonly pool: TreePool;
  /** The leaf value of an empty position (Uncommitted). */
  readonly uncommitted: MerkleNode;
  /** MerkleCRH at `level` (0 = combining two leaves). */
  combine(level: number, left: MerkleNode, right: MerkleNode): MerkleNode;
  /** Root of an empty subtree of height `level` (0 = the uncommitted leaf). */
  emptyRoot(level: number): MerkleNode;
  /** Whether 32 bytes are a canonical field element of this tree. */
  isNode(bytes: Uint8Array): boolean;
}

/** LEOS2BSP of a node's first 255 bits (a canonical element fits in 255 bits), after `prefix` bits of `level`. */
function crhBits(level: number, prefixBits: number, left: MerkleNode, right: MerkleNode): number[] {
  const bits: number[] = new Array(prefixBits + 510);
  for (let i = 0; i < prefixBits; i++) bits[i] = (level >> i) & 1;
  let o = prefixBits;
  for (const node of [left, right]) {
    for (let i = 0; i < 255; i++) bits[o + i] = (node[i >> 3]! >> (i & 7)) & 1;
    o += 255;
  }
  return bits;
}

function emptyRoots(combine: (level: number, l: MerkleNode, r: MerkleNode) => MerkleNode, leaf: MerkleNode): () => MerkleNode[] {
  let table: MerkleNode[] | undefined;
  return () => {
    if (!table) {
      table = [leaf];
      for (let l = 0; l < MERKLE_DEPTH; l++) table.push(combine(l, table[l]!, table[l]!));
    }
    return table;
  };
}

// ---- Sapling: Pedersen hash (§5.4.1.7) ----

/** Segment bases I_1..I_3 of "Zcash_PH" (516 bits = 172 chunks: segments of 63, 63 and 46 chunks), precomputed once. */
let pedersenBases: JubjubPoint[] | undefined;
function pedersenBasesFor(): JubjubPoint[] {
  if (!pedersenBases) {
    pedersenBases = [1, 2, 3].map((i) => saplingPedersenBase(i));
    // Fixed bases hashed 2 + 32 times per appended leaf: an 8-bit window table pays for itself at once.
    for (const p of pedersenBases) p.precompute(8, false);
  }
  return pedersenBases;
}

/** PedersenHashToPoint("Zcash_PH", bits), bits padded to a multiple of 3. */
function pedersenHashPoint(bits: number[]): JubjubPoint {
  while (bits.length % 3 !== 0) bits.push(0);
  const bases = pedersenBasesFor();
  let acc = JubjubPoint.ZERO;
  for (let seg = 0; seg * 189 < bits.length; seg++) {
    let scalar = 0n;
    const end = Math.min(bits.length, seg * 189 + 189);
    for (let j = 0, k = seg * 189; k < end; j++, k += 3) {
      const enc = (1 - 2 * bits[k + 2]!) * (1 + bits[k]! + 2 * bits[k + 1]!);
      scalar += BigInt(enc) << BigInt(4 * j);
    }
    scalar = ((scalar % JUBJUB_R) + JUBJUB_R) % JUBJUB_R;
    acc = acc.add(jubjubMul(bases[seg]!, scalar));
  }
  return acc;
}

function saplingCombine(level: number, left: MerkleNode, right: MerkleNode): MerkleNode {
  const p = pedersenHashPoint(crhBits(level, 6, left, right));
  return bigintToLeBytes(p.toAffine().x, 32);
}

const saplingEmpty = emptyRoots(saplingCombine, bigintToLeBytes(1n, 32));

export const SAPLING_TREE: TreeHasher = {
  pool: "sapling",
  uncommitted: bigintToLeBytes(1n, 32),
  combine: saplingCombine,
  emptyRoot: (level) => saplingEmpty()[level]!,
  isNode: (b) => b.length === 32 && leBytesToBigint(b) < SAPLING_NODE_MODULUS,
};

// ---- Orchard / Ironwood: Sinsemilla (§5.4.1.3) ----

function orchardCombine(level: number, left: MerkleNode, right: MerkleNode): MerkleNode {
  const x = sinsemillaHash("z.cash:Orchard-MerkleCRH", crhBits(level, 10, left, right));
  return bigintToLeBytes(x ?? 0n, 32);
}

const orchardEmpty = emptyRoots(orchardCombine, bigintToLeBytes(2n, 32));

const orchardHasher = (pool: "orchard" | "ironwood"): TreeHasher => ({
  pool,
  uncommitted: bigintToLeBytes(2n, 32),
  combine: orchardCombine,
  emptyRoot: (level) => orchardEmpty()[level]!,
  isNode: (b) => b.length === 32 && leBytesToBigint(b) < PALLAS_P,
});

export const ORCHARD_TREE: TreeHasher = orchardHasher("orchard");
export const IRONWOOD_TREE: TreeHasher = orchardHasher("ironwood");

export function treeHasher(pool: TreePool): TreeHasher {
  return pool === "sapling" ? SAPLING_TREE : pool === "orchard" ? ORCHARD_TREE : IRONWOOD_TREE;
}

// ---- frontier ----

export class TreeFullError extends Error {
  constructor() {
    super("note commitment tree is full");
    this.name = "TreeFullError";
  }
}

/**
 * An incremental tree as nodes store it (the legacy `CommitmentTree`): the
 * last one or two leaves (`left`, `right`) and, per level i + 1, the
 * complete left subtree still waiting for its right sibling (`parents[i]`).
 * Appending is O(1) hashes amortized, O(depth) at worst; the root is O(depth).
 * Each complete node an append computes is reported to the witnesses that
 * follow the tree, which is all they need.
 */
export class CommitmentTree {
  constructor(
    readonly hasher: TreeHasher,
    public left: MerkleNode | null = null,
    public right: MerkleNode | null = null,
    public parents: (MerkleNode | null)[] = [],
    readonly depth: number = MERKLE_DEPTH,
  ) {
    if (parents.length >= Math.max(depth, 1)) throw new Error("commitment tree has more parents than its depth allows");
    if (right && !left) throw new Error("commitment tree has a right leaf without a left one");
  }

  static empty(pool: TreePool | TreeHasher, depth = MERKLE_DEPTH): CommitmentTree {
    return new CommitmentTree(typeof pool === "string" ? treeHasher(pool) : pool, null, null, [], depth);
  }

  /** Witnesses following this frontier (not copied by clone). */
  private readonly observers: Witness[] = [];

  observe(w: Witness): void {
    this.observers.push(w);
  }

  clone(): CommitmentTree {
    return new CommitmentTree(this.hasher, this.left, this.right, [...this.parents], this.depth);
  }

  /** Number of leaves appended. */
  size(): number {
    let n = (this.left ? 1 : 0) + (this.right ? 1 : 0);
    this.parents.forEach((p, i) => {
      if (p) n += 2 ** (i + 1);
    });
    return n;
  }

  isFull(): boolean {
    return this.size() === 2 ** this.depth;
  }

  append(leaf: MerkleNode): void {
    const position = this.size();
    if (position === 2 ** this.depth) throw new TreeFullError();
    this.cachedRoot = undefined;
    if (!this.left) this.left = leaf;
    else if (!this.right) this.right = leaf;
    else {
      // The pair before this leaf is complete: fold it up while it completes left siblings (each carry is a complete node).
      let carry = this.hasher.combine(0, this.left, this.right);
      let index = (position - 2) / 2;
      this.report(1, index, carry);
      this.left = leaf;
      this.right = null;
      for (let i = 0; ; i++) {
        if (i === this.parents.length) {
          this.parents.push(carry);
          break;
        }
        const p = this.parents[i];
        if (p) {
          carry = this.hasher.combine(i + 1, p, carry);
          index = Math.floor(index / 2);
          this.report(i + 2, index, carry);
          this.parents[i] = null;
        } else {
          this.parents[i] = carry;
          break;
        }
      }
    }
    for (const w of this.observers) w.leafAppended(position, leaf);
  }

  private report(level: number, index: number, node: MerkleNode): void {
    for (const w of this.observers) w.nodeCompleted(level, index, node);
  }

  /** Root of the subtree of height `level` that holds the last leaf (its empty positions uncommitted). */
  partialRoot(level: number): MerkleNode {
    const h = this.hasher;
    if (!this.left) return h.emptyRoot(level);
    if (level === 0) return this.right ?? this.left;
    let node = h.combine(0, this.left, this.right ?? h.emptyRoot(0));
    for (let l = 1; l < level; l++) {
      const p = this.parents[l - 1];
      node = p ? h.combine(l, p, node) : h.combine(l, node, h.emptyRoot(l));
    }
    return node;
  }

  /** Memo of root(): a tree changes only through append (the fields are public for parsing and tests, not for editing). */
  private cachedRoot: MerkleNode | undefined;

  /** The root at this tree's depth (empty positions hold the uncommitted leaf). */
  root(): MerkleNode {
    this.cachedRoot ??= this.computeRoot();
    return this.cachedRoot;
  }

  private computeRoot(): MerkleNode {
    if (this.depth === 0) return this.left ?? this.hasher.uncommitted;
    return this.partialRoot(this.depth);
  }

  /**
   * The legacy serialization (zcash_primitives `merkle_tree::write_commitment_tree`,
   * librustzcash; what zcashd's and Zebra's `z_gettreestate` finalState and
   * lightwalletd's TreeState carry): Optional(left) ‖ Optional(right) ‖
   * CompactSize(n) ‖ n × Optional(parent), each Optional a 0x00 byte (none) or
   * 0x01 followed by the 32-byte node.
   */
  serialize(): Uint8Array {
    const opt = (n: MerkleNode | null) => (n ? concatBytes(Uint8Array.of(1), n) : Uint8Array.of(0));
    return concatBytes(opt(this.left), opt(this.right), writeCompactSize(this.parents.length), ...this.parents.map(opt));
  }

  toHex(): string {
    return bytesToHex(this.serialize());
  }

  /** Parses the legacy serialization; "" (an empty string, as nodes send for an empty tree) is the empty tree. Throws on malformed input. */
  static parse(pool: TreePool, data: Uint8Array | string): CommitmentTree {
    const bytes = typeof data === "string" ? (data === "" ? new Uint8Array(0) : hexToBytes(data)) : data;
    const hasher = treeHasher(pool);
    if (bytes.length === 0) return CommitmentTree.empty(hasher);
    let off = 0;
    const node = (): MerkleNode | null => {
      const tag = bytes[off++];
      if (tag === 0) return null;
      if (tag !== 1 || off + 32 > bytes.length) throw new Error("malformed commitment tree: bad Optional");
      const n = bytes.slice(off, off + 32);
      off += 32;
      if (!hasher.isNode(n)) throw new Error("malformed commitment tree: a node is not a canonical field element");
      return n;
    };
    const left = node();
    const right = node();
    const count = readCompactSize(bytes, off);
    if (!count) throw new Error("malformed commitment tree: bad parent count");
    off = count.next;
    if (count.value >= MERKLE_DEPTH) throw new Error("malformed commitment tree: more parents than the depth allows");
    const parents: (MerkleNode | null)[] = [];
    for (let i = 0; i < count.value; i++) parents.push(node());
    if (off !== bytes.length) throw new Error("malformed commitment tree: trailing bytes");
    return new CommitmentTree(hasher, left, right, parents);
  }
}

// ---- witnesses ----

/**
 * The authentication path of one leaf of a live frontier, kept current at no
 * hashing cost of its own. Siblings left of the leaf are fixed when it is
 * marked (complete subtrees the frontier holds). A sibling to its right, the
 * level-l subtree with index s = ⌊position / 2^l⌋ + 1, is:
 *   - still empty while the tree has at most s·2^l leaves: the empty root;
 *   - complete once the frontier materializes it (the append after its last
 *     leaf, as a carry the frontier reports): stored then;
 *   - otherwise it holds the last leaf: its root is the frontier's partial
 *     root at level l (O(l) hashes, for at most one level, when asked).
 * So n witnesses cost the appends nothing but a comparison per carry.
 */
export class Witness {
  private readonly filled: (MerkleNode | null)[];

  private constructor(
    private readonly tree: CommitmentTree,
    readonly position: number,
    readonly leaf: MerkleNode,
    filled: (MerkleNode | null)[],
  ) {
    this.filled = filled;
  }

  get hasher(): TreeHasher {
    return this.tree.hasher;
  }

  /** A witness of the frontier's last leaf (call right after appending it); it follows the frontier's later appends. */
  static forLast(tree: CommitmentTree): Witness {
    if (tree.depth !== MERKLE_DEPTH || !tree.left) throw new Error("a witness needs a non-empty depth-32 tree");
    const position = tree.size() - 1;
    const filled: (MerkleNode | null)[] = new Array(MERKLE_DEPTH).fill(null);
    // Level 0: the leaf is `right` (odd position, sibling `left`) or `left` (even, sibling to the right).
    const leaf = tree.right ?? tree.left;
    if (tree.right) filled[0] = tree.left;
    // Level ≥ 1: a set bit means the ancestor is a right child, whose left sibling is parents[level − 1].
    for (let level = 1; level < MERKLE_DEPTH; level++) {
      if (bitAt(position, level) === 1) {
        const p = tree.parents[level - 1];
        if (!p) throw new Error("commitment tree is inconsistent with its size");
        filled[level] = p;
      }
    }
    const w = new Witness(tree, position, leaf, filled);
    tree.observe(w);
    return w;
  }

  /** Called by the frontier: a leaf was appended at `position`. */
  leafAppended(position: number, leaf: MerkleNode): void {
    if (position === this.position + 1 && bitAt(this.position, 0) === 0) this.filled[0] = leaf;
  }

  /** Called by the frontier: the complete node `index` of `level` (≥ 1) was computed. */
  nodeCompleted(level: number, index: number, node: MerkleNode): void {
    if (bitAt(this.position, level) === 0 && index === Math.floor(this.position / 2 ** level) + 1) this.filled[level] = node;
  }

  /** The 32 siblings from the leaf level up, as of the frontier's current size. */
  path(): MerkleNode[] {
    const size = this.tree.size();
    const out: MerkleNode[] = [];
    for (let level = 0; level < MERKLE_DEPTH; level++) {
      const f = this.filled[level];
      if (f) {
        out.push(f);
        continue;
      }
      const start = (Math.floor(this.position / 2 ** level) + 1) * 2 ** level;
      out.push(size <= start ? this.hasher.emptyRoot(level) : this.tree.partialRoot(level));
    }
    return out;
  }

  root(): MerkleNode {
    return rootFromPath(this.hasher, this.leaf, this.position, this.path());
  }
}

const bitAt = (position: number, level: number): number => Math.floor(position / 2 ** level) % 2;

/** The root an authentication path leads to: at each level, the node is the left child when that bit of the position is 0. */
export function rootFromPath(hasher: TreeHasher, leaf: MerkleNode, position: number, path: readonly MerkleNode[]): MerkleNode {
  if (path.length !== MERKLE_DEPTH) throw new Error(`a path has ${MERKLE_DEPTH} siblings`);
  if (!Number.isSafeInteger(position) || position < 0 || position >= 2 ** MERKLE_DEPTH) throw new Error("position out of range");
  let node = leaf;
  for (let level = 0; level < MERKLE_DEPTH; level++) {
    const sib = path[level]!;
    node = Math.floor(position / 2 ** level) % 2 === 0 ? hasher.combine(level, node, sib) : hasher.combine(level, sib, node);
  }
  return node;
}
