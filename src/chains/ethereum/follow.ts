/**
 * The pure parts of following an Ethereum chain head: which block range to
 * fetch next, and whether a fetched header continues the stored chain.
 *
 * Policy: keep the newest `retention` blocks. On a fresh store, or when the
 * store fell further behind than the retention, start at head − retention + 1
 * (older blocks would be pruned at once). Fetch at most `batch` blocks per
 * run, oldest first, so a backlog drains in order and the job reports more.
 */

export interface FollowPlan {
  from: bigint;
  to: bigint;
  /** Blocks left after this range (0 when it reaches the head). */
  remaining: bigint;
}

export function planFollow(o: { storedHead: bigint | null; nodeHead: bigint; retention: number; batch: number }): FollowPlan | null {
  const oldestKept = o.nodeHead - BigInt(o.retention) + 1n;
  let from = o.storedHead === null ? oldestKept : o.storedHead + 1n;
  if (from < oldestKept) from = oldestKept;
  if (from < 0n) from = 0n;
  if (from > o.nodeHead) return null;
  let to = from + BigInt(o.batch) - 1n;
  if (to > o.nodeHead) to = o.nodeHead;
  return { from, to, remaining: o.nodeHead - to };
}

/** The first block below which a store keeps nothing once the head is `nodeHead`. */
export function pruneBelow(nodeHead: bigint, retention: number): bigint {
  const b = nodeHead - BigInt(retention) + 1n;
  return b > 0n ? b : 0n;
}

export interface Linked {
  number: bigint;
  hash: string;
  parentHash: string;
}

/**
 * Checks that `headers` (ascending, consecutive) extend `stored` (the stored
 * block just below the first, if any). Returns the index of the first header
 * that does not link, or -1 when all do. Index 0 failing means the stored
 * tip was reorged away.
 */
export function firstBreak(stored: Pick<Linked, "number" | "hash"> | null, headers: readonly Linked[]): number {
  let prev = stored;
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i]!;
    if (prev && (prev.number + 1n !== h.number || prev.hash !== h.parentHash)) return i;
    prev = h;
  }
  return -1;
}
