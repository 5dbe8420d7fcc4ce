import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import {
  CREATE_CREDIT,
  DAY_MS,
  IDLE_RATE_PER_DAY,
  LOW_CREDIT_THRESHOLD,
  PER_DELIVERY,
  applyIdleDrain,
  applyTopup,
  chargeDelivery,
  chargeSettlementFee,
  creditBlock,
  forfeitCredit,
  idleExhaustionMs,
  isPollable,
  lowCreditCrossed,
  openMeter,
  type LedgerEntry,
  type MeterResult,
  type MeterState,
} from "../../src/watch/meter.js";

const T0 = Date.UTC(2026, 0, 1);

type Op =
  | { op: "drain"; dt: number }
  | { op: "delivery" }
  | { op: "fee"; amount: bigint }
  | { op: "topup"; amount: bigint }
  | { op: "forfeit" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 3 * DAY_MS }).map((dt) => ({ op: "drain" as const, dt })) },
  { weight: 4, arbitrary: fc.constant({ op: "delivery" as const }) },
  { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 60000n }).map((amount) => ({ op: "fee" as const, amount })) },
  { weight: 2, arbitrary: fc.bigInt({ min: 1n, max: 2_000_000n }).map((amount) => ({ op: "topup" as const, amount })) },
  { weight: 1, arbitrary: fc.constant({ op: "forfeit" as const }) },
);

function run(state: MeterState, now: number, o: Op): { r: MeterResult; now: number } {
  switch (o.op) {
    case "drain":
      return { r: applyIdleDrain(state, now + o.dt), now: now + o.dt };
    case "delivery":
      return { r: chargeDelivery(state), now };
    case "fee":
      return { r: chargeSettlementFee(state, o.amount), now };
    case "topup":
      return { r: applyTopup(state, o.amount, now), now };
    case "forfeit":
      return { r: forfeitCredit(state), now };
  }
}

describe("meter: worked examples", () => {
  it("opens with the creation credit as one create row", () => {
    const r = openMeter(CREATE_CREDIT, T0);
    expect(r.state.creditAtomic).toBe(100000n);
    expect(r.entries).toEqual([{ kind: "create", amountAtomic: 100000n, balanceAfter: 100000n, reason: "watch created" }]);
  });

  it("bills 20000 per UTC day proportionally, carrying sub-atomic remainders", () => {
    let s = openMeter(CREATE_CREDIT, T0).state;
    // 3 minutes = 180000 ms → 180000 × 20000 / 86400000 = 41.666… atomic
    const r1 = applyIdleDrain(s, T0 + 180_000);
    // Taken from the credit at once, carried unbooked until the UTC day ends (or another ledger row is written).
    expect(r1.entries).toEqual([]);
    expect(r1.state).toMatchObject({ creditAtomic: 99959n, unbookedDrain: 41n, unbookedFromMs: T0 });
    s = r1.state;
    const r2 = applyIdleDrain(s, T0 + 360_000);
    // 83.333… total after two ticks → 42 more
    expect(r2.state).toMatchObject({ creditAtomic: 99917n, unbookedDrain: 83n, unbookedFromMs: T0 });
    s = r2.state;
    const r3 = applyIdleDrain(s, T0 + DAY_MS);
    expect(r3.state.creditAtomic).toBe(80000n);
    expect(r3.state.drainRemainder).toBe(0n);
    // The first drain in a new UTC day books the whole carried period as one row.
    expect(r3.entries).toEqual([
      { kind: "idle_drain", amountAtomic: -20000n, balanceAfter: 80000n, reason: "idle drain 2026-01-01T00:00:00.000Z..2026-01-02T00:00:00.000Z" },
    ]);
    expect(r3.state.unbookedDrain).toBe(0n);
  });

  it("a tick shorter than one atomic unit bills nothing but is remembered", () => {
    const s = openMeter(CREATE_CREDIT, T0).state;
    const r = applyIdleDrain(s, T0 + 4000); // 0.926 atomic
    expect(r.entries).toEqual([]);
    expect(r.state.drainRemainder).toBe(4000n * 20000n);
    expect(applyIdleDrain(r.state, T0 + 8640).state.unbookedDrain).toBe(2n);
  });

  it("a time not after the billed-through instant changes nothing", () => {
    const s = applyIdleDrain(openMeter(CREATE_CREDIT, T0).state, T0 + 10_000_000).state;
    expect(applyIdleDrain(s, T0 + 5).state).toEqual(s);
    expect(applyIdleDrain(s, T0 + 10_000_000).entries).toEqual([]);
  });

  it("charges 5000 per delivery and never below zero", () => {
    let s = openMeter(7000n, T0).state;
    const r1 = chargeDelivery(s);
    expect(r1.entries[0]).toMatchObject({ kind: "delivery", amountAtomic: -5000n, balanceAfter: 2000n });
    s = r1.state;
    const r2 = chargeDelivery(s);
    expect(r2.entries[0]).toMatchObject({ kind: "delivery", amountAtomic: -2000n, balanceAfter: 0n });
    expect(r2.entries[0].reason).toContain("3000 atomic not charged");
    expect(chargeDelivery(r2.state).entries).toEqual([]);
  });

  it("emits low_credit once on crossing below 50000 and again only after a top-up of at least 50000", () => {
    let s = openMeter(CREATE_CREDIT, T0).state;
    const fired: number[] = [];
    for (let i = 0; i < 19; i++) {
      const r = chargeDelivery(s);
      if (r.emitLowCredit) fired.push(i);
      s = r.state;
    }
    // 100000 - 11×5000 = 45000 < 50000 at the 11th delivery (index 10)
    expect(fired).toEqual([10]);
    // a small top-up does not re-arm, even if it lifts the balance above the threshold
    s = applyTopup(s, 49999n, T0).state; // 5000 + 49999 = 54999
    expect(s.lowCreditArmed).toBe(false);
    const r = chargeDelivery(s); // 49999 < threshold
    expect(r.emitLowCredit).toBe(false);
    s = applyTopup(r.state, 50000n, T0).state; // 99999
    expect(s.lowCreditArmed).toBe(true);
    let again = 0;
    for (let i = 0; i < 30; i++) {
      const x = chargeDelivery(s);
      if (x.emitLowCredit) again++;
      s = x.state;
    }
    expect(again).toBe(1);
    expect(s.creditAtomic).toBe(0n);
  });

  it("a watch opened below the threshold (coin grace credit) warns on its first debit, once", () => {
    const s = openMeter(20000n, T0).state;
    expect(s.lowCreditArmed).toBe(true);
    const a = applyIdleDrain(s, T0 + 4320);
    expect(a.state.creditAtomic).toBe(19999n);
    expect(a.emitLowCredit).toBe(true);
    expect(applyIdleDrain(a.state, T0 + 3_600_000).emitLowCredit).toBe(false);
  });

  it("idle drain also crosses the threshold", () => {
    const s = openMeter(CREATE_CREDIT, T0).state;
    const a = applyIdleDrain(s, T0 + 2 * DAY_MS); // 60000
    expect(a.emitLowCredit).toBe(false);
    // one atomic unit accrues every DAY_MS / 20000 = 4320 ms
    const b = applyIdleDrain(a.state, T0 + 2 * DAY_MS + DAY_MS / 2 + 4320); // just under 50000
    expect(b.state.creditAtomic).toBe(49999n);
    expect(b.emitLowCredit).toBe(true);
    expect(applyIdleDrain(b.state, T0 + 3 * DAY_MS).emitLowCredit).toBe(false);
  });

  it("at zero nothing drains, nothing is pollable, and a top-up restarts the clock at the top-up time", () => {
    const s0 = openMeter(CREATE_CREDIT, T0).state;
    const exhausted = applyIdleDrain(s0, T0 + 10 * DAY_MS);
    expect(exhausted.entries).toEqual([
      expect.objectContaining({ kind: "idle_drain", amountAtomic: -100000n, balanceAfter: 0n }),
    ]);
    expect(exhausted.entries[0].reason).toContain("100000 atomic not charged");
    expect(isPollable(exhausted.state)).toBe(false);
    expect(applyIdleDrain(exhausted.state, T0 + 20 * DAY_MS).entries).toEqual([]);
    // the watch sat at zero from day 10 to day 30; the top-up does not pay for that
    const topped = applyTopup(exhausted.state, 100000n, T0 + 30 * DAY_MS);
    expect(topped.state.drainedThroughMs).toBe(T0 + 30 * DAY_MS);
    expect(isPollable(topped.state)).toBe(true);
    expect(applyIdleDrain(topped.state, T0 + 31 * DAY_MS).state.creditAtomic).toBe(80000n);
  });

  it("forfeits the remaining credit on cancel", () => {
    const s = openMeter(123456n, T0).state;
    const r = forfeitCredit(s);
    expect(r.entries).toEqual([{ kind: "forfeit", amountAtomic: -123456n, balanceAfter: 0n, reason: "watch cancelled" }]);
    expect(forfeitCredit(r.state).entries).toEqual([]);
  });

  it("rejects non-positive top-ups and fees and fractional times", () => {
    const s = openMeter(CREATE_CREDIT, T0).state;
    expect(() => applyTopup(s, 0n, T0)).toThrow(RangeError);
    expect(() => chargeSettlementFee(s, -1n)).toThrow(RangeError);
    expect(() => applyIdleDrain(s, T0 + 0.5)).toThrow(RangeError);
    expect(() => openMeter(-1n, T0)).toThrow(RangeError);
  });

  it("the credit block formats USD exactly with six decimals", () => {
    const usd = (credit: bigint) => creditBlock(openMeter(credit, T0).state, new ManualClock(T0)).remaining_usd;
    expect(usd(95000n)).toBe("0.095000");
    expect(usd(100000n)).toBe("0.100000");
    expect(usd(25_000_000n)).toBe("25.000000");
    expect(usd(0n)).toBe("0.000000");
    expect(usd(1n)).toBe("0.000001");
  });

  it("builds the credit block, projecting the unbilled drain to now", () => {
    const clock = new ManualClock(T0);
    const s = openMeter(CREATE_CREDIT, T0).state;
    expect(creditBlock(s, clock)).toEqual({
      remaining_atomic: "100000",
      remaining_usd: "0.100000",
      days_remaining: 5,
      low_credit: false,
      rate_per_day_atomic: "20000",
      rate_per_call_atomic: "5000",
      low_credit_threshold_atomic: "50000",
    });
    clock.advance(DAY_MS / 4 + 3 * 60_000); // 5000 + 41.67 atomic accrued, not yet billed
    const b = creditBlock(s, clock);
    expect(b.remaining_atomic).toBe("94959");
    expect(b.remaining_usd).toBe("0.094959");
    expect(b.days_remaining).toBe(4.747);
    clock.set(T0 + 3 * DAY_MS);
    expect(creditBlock(s, clock)).toMatchObject({ remaining_atomic: "40000", low_credit: true, days_remaining: 2 });
  });

  it("computes the instant idle drain exhausts the credit", () => {
    const s = applyIdleDrain(openMeter(CREATE_CREDIT, T0).state, T0 + 1234).state;
    const t = idleExhaustionMs(s)!;
    expect(t).toBe(T0 + 5 * DAY_MS);
    expect(applyIdleDrain(s, t).state.creditAtomic).toBe(0n);
    expect(applyIdleDrain(s, t - 1).state.creditAtomic).toBe(1n);
    expect(idleExhaustionMs(forfeitCredit(s).state)).toBeNull();
  });
});

describe("meter: properties", () => {
  const startArb = fc.record({
    credit: fc.bigInt({ min: 0n, max: 5_000_000n }),
    ops: fc.array(opArb, { maxLength: 60 }),
  });

  it("credit is never negative and the ledger chains: each row's balance is the previous balance plus its delta", () => {
    fc.assert(
      fc.property(startArb, ({ credit, ops }) => {
        const opened = openMeter(credit, T0);
        let s = opened.state;
        let now = T0;
        let balance = 0n;
        const all: LedgerEntry[] = [...opened.entries];
        for (const o of ops) {
          const x = run(s, now, o);
          all.push(...x.r.entries);
          s = x.r.state;
          now = x.now;
          expect(s.creditAtomic >= 0n).toBe(true);
          expect(s.drainRemainder >= 0n && s.drainRemainder < BigInt(DAY_MS)).toBe(true);
        }
        for (const e of all) {
          expect(e.amountAtomic).not.toBe(0n);
          balance += e.amountAtomic;
          expect(e.balanceAfter).toBe(balance);
          expect(e.balanceAfter >= 0n).toBe(true);
        }
        // sum of ledger deltas equals the balance plus the drain not booked yet
        expect(balance).toBe(s.creditAtomic + s.unbookedDrain);
        // and the balance exactly once the carried drain is booked (as any other ledger row would)
        if (s.unbookedDrain > 0n) {
          const booked = forfeitCredit(s);
          expect(booked.entries[0]).toMatchObject({ kind: "idle_drain", amountAtomic: -s.unbookedDrain, balanceAfter: s.creditAtomic });
          expect(balance + booked.entries[0]!.amountAtomic).toBe(s.creditAtomic);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("the ledger is bounded: at most one idle-drain row per UTC day, plus one before each other ledger row", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 * 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 10 }),
        (pollMinutes, days, deliveryTicks) => {
          let s = openMeter(10_000_000n, T0 + 7 * 60_000).state;
          let now = s.drainedThroughMs;
          const rows: LedgerEntry[] = [];
          let ticks = 0;
          let drained = 0n;
          while (now < T0 + days * DAY_MS) {
            now += pollMinutes * 60_000;
            const before = s.creditAtomic;
            const r = applyIdleDrain(s, now);
            drained += before - r.state.creditAtomic;
            rows.push(...r.entries);
            s = r.state;
            if (deliveryTicks.includes(ticks)) {
              const d = chargeDelivery(s);
              rows.push(...d.entries);
              s = d.state;
            }
            ticks++;
          }
          const drainRows = rows.filter((e) => e.kind === "idle_drain");
          const deliveries = rows.filter((e) => e.kind === "delivery").length;
          const utcDays = Math.floor(now / DAY_MS) - Math.floor((T0 + 7 * 60_000) / DAY_MS) + 1;
          expect(drainRows.length).toBeLessThanOrEqual(utcDays + deliveries);
          // exact: what left the credit is what the drain rows say plus what is still carried
          expect(drainRows.reduce((a, e) => a - e.amountAtomic, 0n) + s.unbookedDrain).toBe(drained);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("splitting a period into many ticks bills exactly the same as one tick", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 3_000_000n }),
        fc.integer({ min: 0, max: 400 * DAY_MS }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 200 }),
        fc.integer({ min: 0, max: DAY_MS }),
        (credit, total, cuts, offset) => {
          const start = openMeter(credit, T0 + offset).state;
          const one = applyIdleDrain(start, T0 + offset + total);
          const points = cuts.map((c) => T0 + offset + Math.floor(c * total)).sort((a, b) => a - b);
          let s = start;
          let billed = 0n;
          for (const p of [...points, T0 + offset + total]) {
            const r = applyIdleDrain(s, p);
            for (const e of r.entries) billed += e.amountAtomic;
            s = r.state;
          }
          // What left the credit: booked rows plus the drain still carried (booked once per UTC day).
          billed -= s.unbookedDrain;
          const oneBilled = one.entries.reduce((a, e) => a + e.amountAtomic, 0n) - one.state.unbookedDrain;
          expect(s.creditAtomic).toBe(one.state.creditAtomic);
          expect(billed).toBe(oneBilled);
          expect(-billed).toBe(credit - s.creditAtomic);
          const exact = (BigInt(total) * IDLE_RATE_PER_DAY) / BigInt(DAY_MS);
          expect(-billed).toBe(exact < credit ? exact : credit);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("low_credit fires exactly when an armed meter first goes below the threshold, and only top-ups ≥ threshold re-arm", () => {
    fc.assert(
      fc.property(startArb, ({ credit, ops }) => {
        let s = openMeter(credit, T0).state;
        let now = T0;
        let armed = true; // reference model
        for (const o of ops) {
          const before = s.creditAtomic;
          const x = run(s, now, o);
          s = x.r.state;
          now = x.now;
          const isDebit = o.op === "drain" || o.op === "delivery" || o.op === "fee";
          // A debit took credit (the idle drain may do so without a ledger row yet: it is carried).
          const changed = s.creditAtomic < before;
          const expectEmit = isDebit && changed && armed && s.creditAtomic < LOW_CREDIT_THRESHOLD;
          expect(x.r.emitLowCredit).toBe(expectEmit);
          if (expectEmit) armed = false;
          if (o.op === "topup" && o.amount >= LOW_CREDIT_THRESHOLD) armed = true;
          expect(s.lowCreditArmed).toBe(armed);
          // a debit never leaves a crossing pending
          if (isDebit && changed) expect(lowCreditCrossed(s)).toBe(false);
          if (!isDebit) expect(x.r.emitLowCredit).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("without a qualifying top-up, draining to zero emits low_credit at most once", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: LOW_CREDIT_THRESHOLD, max: 2_000_000n }),
        fc.array(fc.oneof(fc.constant<"d">("d"), fc.integer({ min: 1, max: 5 * DAY_MS })), { minLength: 1, maxLength: 400 }),
        fc.bigInt({ min: 1n, max: LOW_CREDIT_THRESHOLD - 1n }),
        (credit, steps, smallTopup) => {
          let s = openMeter(credit, T0).state;
          let now = T0;
          let fired = 0;
          for (const [i, st] of steps.entries()) {
            const r = st === "d" ? chargeDelivery(s) : applyIdleDrain(s, (now += st));
            if (r.emitLowCredit) fired++;
            s = r.state;
            if (i % 7 === 3) s = applyTopup(s, smallTopup, now).state; // never re-arms
          }
          expect(fired).toBeLessThanOrEqual(1);
          // once below the threshold after crossing, it has fired
          if (s.creditAtomic < LOW_CREDIT_THRESHOLD) expect(fired).toBe(1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("at zero credit nothing is pollable and no charge or drain happens", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * DAY_MS }), fc.bigInt({ min: 1n, max: 10n ** 9n }), (dt, fee) => {
        const zero = forfeitCredit(openMeter(CREATE_CREDIT, T0).state).state;
        expect(isPollable(zero)).toBe(false);
        expect(applyIdleDrain(zero, T0 + dt).entries).toEqual([]);
        expect(applyIdleDrain(zero, T0 + dt).state.creditAtomic).toBe(0n);
        expect(chargeDelivery(zero).entries).toEqual([]);
        expect(chargeSettlementFee(zero, fee).entries).toEqual([]);
        expect(creditBlock(zero, { now: () => T0 + dt }).remaining_atomic).toBe("0");
      }),
    );
  });

  it("the credit block equals what a tick at that instant would leave", () => {
    fc.assert(
      fc.property(startArb, fc.integer({ min: 0, max: 10 * DAY_MS }), ({ credit, ops }, later) => {
        let s = openMeter(credit, T0).state;
        let now = T0;
        for (const o of ops) {
          const x = run(s, now, o);
          s = x.r.state;
          now = x.now;
        }
        const at = now + later;
        const block = creditBlock(s, { now: () => at });
        const ticked = applyIdleDrain(s, at).state.creditAtomic;
        expect(block.remaining_atomic).toBe(ticked.toString());
        expect(block.low_credit).toBe(ticked < LOW_CREDIT_THRESHOLD);
        expect(BigInt(block.remaining_usd.replace(".", ""))).toBe(ticked);
      }),
      { numRuns: 200 },
    );
  });
});

void PER_DELIVERY;
