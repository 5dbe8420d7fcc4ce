/**
 * Server-side downsampling of the Zcash pool history (pure). Points are in
 * time order. When there are more than `maxPoints`, the first and the last
 * point are kept and the points between them are split into `maxPoints - 2`
 * runs of nearly equal length (by position, so every run is non-empty); each
 * run is represented by its last point. The result is a subsequence of the
 * input (order preserved), never longer than `maxPoints`, and holds the first
 * and last points. Pool balances move slowly and monotonically over hours,
 * so the last snapshot of each run is the value the series had at the end of
 * that stretch: the shape is kept without inventing or averaging values.
 */
export function downsampleLast<T>(points: readonly T[], maxPoints: number): T[] {
  if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError("maxPoints must be an integer >= 2");
  const n = points.length;
  if (n <= maxPoints) return [...points];
  const inner = n - 2;
  const runs = maxPoints - 2;
  const out: T[] = [points[0]!];
  for (let r = 1; r <= runs; r++) {
    // The run r covers inner positions [floor((r-1)·inner/runs), floor(r·inner/runs)); take its last.
    const end = Math.floor((r * inner) / runs);
    out.push(points[end]!); // inner position end-1 is points[end]
  }
  out.push(points[n - 1]!);
  return out;
}
