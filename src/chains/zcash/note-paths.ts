/**
 * Anchors and Merkle paths for unspent shielded notes found by a historical
 * scan (the witness a wallet needs to spend them), checked against the
 * node's own tree state before any path is handed out.
 *
 * Flow (after the scan, so a scan without unspent shielded notes does no tree
 * work, and live watches never do any):
 *   1. per pool holding an unspent note, the earliest such note's height h;
 *      fetch the tree state at h − 1 and parse its frontier;
 *   2. stream the compact blocks h..toHeight again (only those pools) and
 *      append every cmu / cmx in order; a note of ours gets a witness when
 *      its commitment is appended, which then follows the frontier (no
 *      hashing of its own: the cost does not grow with the number of notes);
 *      at each block end the frontier's size must equal ChainMetadata's;
 *   3. fetch the tree state at toHeight: its block hash must be the one the
 *      scan saw (else the chain moved: retry), and its root must equal our
 *      frontier's root, and every path must lead to that root — otherwise
 *      502 chain_tree_mismatch, never a wrong path.
 * Encodings: anchor and path nodes are the 32-byte little-endian field
 * elements as hex, as transactions carry anchors (zebrad's Orchard finalRoot
 * is the same; its Sapling finalRoot is the byte-reverse).
 */
import { ServiceError } from "../../core/errors.js";
import { bytesToHex } from "./bytes.js";
import type { CompactBlock, CompactBlockSource, TreeState } from "./compact.js";
import { CommitmentTree, rootFromPath, Witness, type TreePool } from "./merkle.js";
import type { StoredNote } from "./scan-state.js";

export interface NotePath {
  /** Root of the pool's note commitment tree at the end of toHeight, hex (32 bytes little-endian). */
  anchor: string;
  /** The note's leaf index in its pool's tree. */
  position: number;
  /** The 32 sibling nodes from the leaf level up, hex. */
  merkle_path: string[];
}

export interface NotePathOptions {
  source: CompactBlockSource;
  /** The scan's last height and the block hash (display hex) it saw there. */
  toHeight: number;
  toHash: string;
  /** Throws (a 504) when the caller's deadline has passed; called once per block. */
  checkDeadline: (through: number) => void;
  signal?: AbortSignal;
}

const SHIELDED: readonly TreePool[] = ["sapling", "orchard", "ironwood"];
export const noteKey = (pool: string, txid: string, index: number): string => `${pool}:${txid}:${index}`;
const displayHex = (b: Uint8Array): string => bytesToHex(Uint8Array.from(b).reverse());

function mismatch(pool: TreePool, message: string, details: Record<string, unknown> = {}): ServiceError {
  return new ServiceError("chain_tree_mismatch", message, { pool, ...details });
}

function treeOf(state: TreeState, pool: TreePool): CommitmentTree {
  const hex = pool === "sapling" ? state.saplingTree : pool === "orchard" ? state.orchardTree : state.ironwoodTree;
  try {
    return CommitmentTree.parse(pool, hex);
  } catch (e) {
    throw mismatch(pool, `The chain server's ${pool} tree state at height ${state.height} is malformed: ${(e as Error).message}.`, { height: state.height });
  }
}

const leavesOf = (block: CompactBlock, pool: TreePool) =>
  block.vtx.flatMap((tx) => {
    const list = pool === "sapling" ? tx.outputs.map((o) => o.cmu) : (pool === "orchard" ? tx.actions : tx.ironwoodActions).map((a) => a.cmx);
    return list.map((cm, index) => ({ cm, txid: displayHex(tx.txid), index }));
  });

const sizeAt = (block: CompactBlock, pool: TreePool): number =>
  pool === "sapling" ? block.chainMetadata.saplingCommitmentTreeSize : pool === "orchard" ? block.chainMetadata.orchardCommitmentTreeSize : block.chainMetadata.ironwoodCommitmentTreeSize;

/** Paths of the unspent shielded notes among `notes`, keyed by noteKey(pool, txid, index). */
export async function unspentNotePaths(notes: readonly StoredNote[], opts: NotePathOptions): Promise<Map<string, NotePath>> {
  const { source, toHeight, signal } = opts;
  const wanted = new Map<TreePool, Set<string>>();
  const startAt = new Map<TreePool, number>();
  for (const n of notes) {
    if (n.spent || n.pool === "transparent") continue;
    const pool = n.pool;
    if (!wanted.has(pool)) wanted.set(pool, new Set());
    wanted.get(pool)!.add(noteKey(pool, n.txid, n.index));
    startAt.set(pool, Math.min(startAt.get(pool) ?? Infinity, n.height));
  }
  const out = new Map<string, NotePath>();
  if (wanted.size === 0) return out;

  // 1. Frontiers just before each pool's first unspent note; one stream from the earliest of them.
  const pools = SHIELDED.filter((p) => wanted.has(p));
  const from = Math.min(...pools.map((p) => startAt.get(p)!));
  const frontiers = new Map<TreePool, CommitmentTree>();
  const states = new Map<number, TreeState>();
  const stateAt = async (h: number) => {
    let s = states.get(h);
    if (!s) {
      s = await source.treeState(h, signal);
      states.set(h, s);
    }
    return s;
  };
  const witnesses = new Map<TreePool, { key: string; w: Witness }[]>();
  for (const p of pools) witnesses.set(p, []);

  // 2. Append every commitment, witnessing ours.
  let expect = from;
  let prevHash: string | null = null;
  for await (const block of source.blockRange(from, toHeight, [...pools], signal)) {
    if (signal?.aborted) throw signal.reason;
    if (block.height !== expect) continue;
    opts.checkDeadline(expect - 1);
    expect++;
    if (prevHash !== null && displayHex(block.prevHash) !== prevHash) {
      throw new ServiceError("chain_rpc_failed", "The chain changed during the scan (a reorg); retry.", { at_height: block.height });
    }
    prevHash = displayHex(block.hash);
    for (const pool of pools) {
      const start = startAt.get(pool)!;
      if (block.height < start) continue;
      let tree = frontiers.get(pool);
      if (!tree) {
        const before = await stateAt(start - 1);
        // The stream is contiguous, so this is block `start`, whose parent the tree state must be.
        if (before.hash !== displayHex(block.prevHash)) {
          throw new ServiceError("chain_rpc_failed", "The chain changed during the scan (a reorg); retry.", { at_height: block.height });
        }
        tree = treeOf(before, pool);
        frontiers.set(pool, tree);
      }
      const mine = wanted.get(pool)!;
      const list = witnesses.get(pool)!;
      for (const leaf of leavesOf(block, pool)) {
        tree.append(leaf.cm); // the witnesses already made follow the frontier's own hashing
        const key = noteKey(pool, leaf.txid, leaf.index);
        if (mine.has(key)) list.push({ key, w: Witness.forLast(tree) });
      }
      if (tree.size() !== sizeAt(block, pool)) {
        throw mismatch(pool, `After block ${block.height} the ${pool} tree holds ${tree.size()} commitments, but the server says ${sizeAt(block, pool)}.`, {
          height: block.height,
          computed_size: tree.size(),
          reported_size: sizeAt(block, pool),
        });
      }
    }
  }
  if (expect !== toHeight + 1) throw new ServiceError("chain_rpc_failed", `The server ended the block range at ${expect - 1}, before ${toHeight}.`, { scanned_through: expect - 1 });

  // 3. The node's own tree state at toHeight decides.
  const end = await stateAt(toHeight);
  if (end.hash !== opts.toHash) throw new ServiceError("chain_rpc_failed", "The chain changed during the scan (a reorg); retry.", { at_height: toHeight });
  for (const pool of pools) {
    const tree = frontiers.get(pool)!;
    const anchor = tree.root();
    const reported = treeOf(end, pool).root();
    if (bytesToHex(reported) !== bytesToHex(anchor)) {
      throw mismatch(pool, `The ${pool} tree root the server reports at height ${toHeight} differs from the root of the commitments it served.`, {
        height: toHeight,
        computed_root: bytesToHex(anchor),
        reported_root: bytesToHex(reported),
      });
    }
    const found = witnesses.get(pool)!;
    if (found.length !== wanted.get(pool)!.size) throw mismatch(pool, `Some ${pool} notes were not among the commitments the server served again.`, { height: toHeight });
    for (const { key, w } of found) {
      const path = w.path();
      if (bytesToHex(rootFromPath(tree.hasher, w.leaf, w.position, path)) !== bytesToHex(anchor)) {
        throw mismatch(pool, `A ${pool} Merkle path does not lead to the tree root.`, { height: toHeight, position: w.position });
      }
      out.set(key, { anchor: bytesToHex(anchor), position: w.position, merkle_path: path.map(bytesToHex) });
    }
  }
  return out;
}
