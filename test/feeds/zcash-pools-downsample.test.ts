/** Properties of the history downsampling (pure): bounded, first and last kept, a subsequence in order. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { downsampleLast } from "../../src/feeds/zcash-pools-downsample.js";

const series = fc.integer({ min: 0, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => ({ t: i * 900_000 + 17 })));

describe("downsampleLast", () => {
  it("never more than max_points; everything when it fits", () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 2, max: 5000 }), (pts, max) => {
        const out = downsampleLast(pts, max);
        expect(out.length).toBeLessThanOrEqual(max);
        if (pts.length <= max) expect(out).toEqual(pts);
        else expect(out.length).toBe(max);
      }),
    );
  });

  it("keeps the first and last points and the order; every point is an input point, none twice", () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 2, max: 400 }), (pts, max) => {
        const out = downsampleLast(pts, max);
        if (pts.length === 0) {
          expect(out).toEqual([]);
          return;
        }
        expect(out[0]).toBe(pts[0]);
        expect(out[out.length - 1]).toBe(pts[pts.length - 1]);
        const idx = out.map((p) => pts.indexOf(p));
        expect(idx.every((i) => i >= 0)).toBe(true);
        for (let i = 1; i < idx.length; i++) expect(idx[i]!).toBeGreaterThan(idx[i - 1]!);
      }),
    );
  });

  it("spreads the kept points over the series: no gap between kept points wider than two runs", () => {
    fc.assert(
      fc.property(fc.integer({ min: 12, max: 3000 }), fc.integer({ min: 10, max: 200 }), (n, max) => {
        const pts = Array.from({ length: n }, (_, i) => i);
        const out = downsampleLast(pts, max);
        if (n <= max) return;
        const run = Math.ceil((n - 2) / (max - 2));
        for (let i = 1; i < out.length; i++) expect(out[i]! - out[i - 1]!).toBeLessThanOrEqual(run + 1);
      }),
    );
  });

  it("refuses a bound below 2", () => {
    expect(() => downsampleLast([1, 2, 3], 1)).toThrow(RangeError);
  });
});
