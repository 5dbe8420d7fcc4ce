/** Ranking is a pure function of the notices and the time: properties over random boards. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { BOOST_HALF_LIFE_MS, applyBoost, decayedScore, rankNotices, rankingTime, type RankInput } from "../../src/board/ranking.js";

const T0 = Date.UTC(2026, 0, 1);
const DAY = 24 * 3600 * 1000;

const boostArb = fc.record({ amount: fc.bigInt({ min: 100_000n, max: 25_000_000n }), atOffset: fc.integer({ min: 0, max: 60 * DAY }) });

/** A notice built from its boosts, through applyBoost in time order. */
const noticeArb = fc
  .record({
    id: fc.uuid(),
    createdOffset: fc.integer({ min: 0, max: 30 * DAY }),
    boosts: fc.array(boostArb, { maxLength: 4 }),
  })
  .map(({ id, createdOffset, boosts }): RankInput => {
    const createdMs = T0 + createdOffset;
    let state = { anchor: 0, anchorMs: createdMs };
    let weight = 0n;
    for (const b of [...boosts].sort((x, y) => x.atOffset - y.atOffset)) {
      state = applyBoost(state, b.amount, createdMs + b.atOffset);
      weight += b.amount;
    }
    return { id, createdMs, weightAtomic: weight, ...state };
  });

const boardArb = fc.uniqueArray(noticeArb, { selector: (n) => n.id, maxLength: 25 });
const nowArb = fc.integer({ min: 100 * DAY, max: 200 * DAY }).map((o) => T0 + o);

describe("ranking", () => {
  it("is a permutation of the input and leaves the input alone", () => {
    fc.assert(
      fc.property(boardArb, nowArb, (board, now) => {
        const copy = [...board];
        const ranked = rankNotices(board, now);
        expect(board).toEqual(copy);
        expect(ranked.map((n) => n.id).sort()).toEqual(board.map((n) => n.id).sort());
      }),
    );
  });

  it("puts every boosted notice above every unboosted one, boosted by score, unboosted newest first", () => {
    fc.assert(
      fc.property(boardArb, nowArb, (board, now) => {
        const ranked = rankNotices(board, now);
        const firstUnboosted = ranked.findIndex((n) => n.weightAtomic === 0n);
        if (firstUnboosted >= 0) expect(ranked.slice(firstUnboosted).every((n) => n.weightAtomic === 0n)).toBe(true);
        for (let i = 1; i < ranked.length; i++) {
          const [a, b] = [ranked[i - 1]!, ranked[i]!];
          if (a.weightAtomic > 0n && b.weightAtomic > 0n) expect(decayedScore(a, now)).toBeGreaterThanOrEqual(decayedScore(b, now));
          if (a.weightAtomic === 0n && b.weightAtomic === 0n) expect(a.createdMs).toBeGreaterThanOrEqual(b.createdMs);
        }
      }),
    );
  });

  it("does not depend on the input order", () => {
    fc.assert(
      fc.property(boardArb, nowArb, fc.integer(), (board, now, seed) => {
        const shuffled = [...board].sort((a, b) => ((a.id.charCodeAt(seed & 7) ^ seed) & 3) - ((b.id.charCodeAt(seed & 7) ^ seed) & 3));
        expect(rankNotices(shuffled, now).map((n) => n.id)).toEqual(rankNotices(board, now).map((n) => n.id));
      }),
    );
  });

  it("a boost never lowers a notice's rank, and lifts an unboosted one above all unboosted", () => {
    fc.assert(
      fc.property(boardArb.filter((b) => b.length > 0), fc.nat(), fc.bigInt({ min: 100_000n, max: 25_000_000n }), nowArb, (board, pick, amount, now) => {
        const target = board[pick % board.length]!;
        const before = rankNotices(board, now).findIndex((n) => n.id === target.id);
        const boosted = { ...target, ...applyBoost(target, amount, now), weightAtomic: target.weightAtomic + amount };
        const after = rankNotices(board.map((n) => (n.id === target.id ? boosted : n)), now);
        const idx = after.findIndex((n) => n.id === target.id);
        expect(idx).toBeLessThanOrEqual(before);
        expect(after.slice(0, idx).every((n) => n.weightAtomic > 0n)).toBe(true);
      }),
    );
  });

  it("decays: never rises with time, halves every half-life, and sums boosts as separate decays", () => {
    fc.assert(
      fc.property(fc.array(boostArb, { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 100 * DAY }), (boosts, later) => {
        const sorted = [...boosts].sort((x, y) => x.atOffset - y.atOffset);
        let state = { anchor: 0, anchorMs: T0 };
        for (const b of sorted) state = applyBoost(state, b.amount, T0 + b.atOffset);
        const end = T0 + sorted[sorted.length - 1]!.atOffset;
        const at = end + later;
        // Each boost decays on its own: the carried anchor equals the sum.
        const sum = sorted.reduce((s, b) => s + Number(b.amount) * Math.pow(0.5, (at - (T0 + b.atOffset)) / BOOST_HALF_LIFE_MS), 0);
        expect(decayedScore(state, at)).toBeCloseTo(sum, 3);
        expect(decayedScore(state, at + 1000)).toBeLessThanOrEqual(decayedScore(state, at));
        expect(decayedScore(state, at + BOOST_HALF_LIFE_MS) / decayedScore(state, at)).toBeCloseTo(0.5, 9);
      }),
    );
  });

  it("a fresh larger boost outranks an older equal one after decay, and the ranking minute is stable", () => {
    const a: RankInput = { id: "a", createdMs: T0, weightAtomic: 1_000_000n, ...applyBoost({ anchor: 0, anchorMs: T0 }, 1_000_000n, T0) };
    const b: RankInput = { id: "b", createdMs: T0, weightAtomic: 1_000_000n, ...applyBoost({ anchor: 0, anchorMs: T0 }, 1_000_000n, T0 + 7 * DAY) };
    expect(rankNotices([a, b], T0 + 8 * DAY).map((n) => n.id)).toEqual(["b", "a"]);
    // One half-life after its boost, a holds half its weight.
    expect(decayedScore(a, T0 + 7 * DAY)).toBeCloseTo(500_000, 6);
    expect(rankingTime(T0 + 59_999)).toBe(T0);
    expect(rankingTime(T0 + 60_000)).toBe(T0 + 60_000);
    expect(() => applyBoost({ anchor: 0, anchorMs: T0 }, 0n, T0)).toThrow(RangeError);
  });
});
