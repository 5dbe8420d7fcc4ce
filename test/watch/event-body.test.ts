import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { openMeter } from "../../src/watch/meter.js";
import { eventBody, emptySnapshot } from "../../src/watch/model.js";
import { serializeEvent } from "../../src/watch/model.js";

describe("webhook event bodies", () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 22));
  const meter = openMeter(100_000n, clock.now()).state;
  const w = { id: "8f14e45f-ceea-4e67-a1b0-1f0b2c3d4e5f", chain: "monero", address: "9abc" };

  it("carries the spec's fields, a signed delta and the credit block", () => {
    const prev = { ...emptySnapshot(100), pendingAtomic: "5" };
    const cur = { balanceAtomic: "1250000000000", pendingAtomic: "0", scannedHeight: 120 };
    const b = eventBody(w, "balance_change", prev, cur, meter, clock);
    expect(Object.keys(b).slice(0, 10)).toEqual(["watchId", "chain", "address", "event", "timestamp", "nonce", "previous", "current", "delta", "credit"]);
    expect(b.delta).toEqual({ balance_atomic: "1250000000000", before_atomic: "0", after_atomic: "1250000000000", pending_atomic: "-5" });
    expect(b.credit.remaining_atomic).toBe("100000");
    expect(b.timestamp).toBe("2026-11-22T00:00:00.000Z");
    expect(b.nonce).toMatch(/^evt_[0-9a-f]{32}$/);
    const back = eventBody(w, "balance_change", cur, prev, meter, clock);
    expect(back.delta.balance_atomic).toBe("-1250000000000");
  });

  it("stays within 64 KB: output lists are dropped (totals kept) when they would not fit", () => {
    const outputs = Array.from({ length: 2000 }, (_, i) => ({ txid: "ab".repeat(32), index: String(i), amountAtomic: "1", height: i }));
    const cur = { balanceAtomic: "2000", pendingAtomic: "0", scannedHeight: 5, outputs };
    const text = serializeEvent(eventBody(w, "balance_change", emptySnapshot(1), cur, meter, clock));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(65_536);
    const parsed = JSON.parse(text);
    expect(parsed.truncated).toBe(true);
    expect(parsed.current).toEqual({ balanceAtomic: "2000", pendingAtomic: "0", scannedHeight: 5 });
    const small = serializeEvent(eventBody(w, "balance_change", emptySnapshot(1), { ...cur, outputs: outputs.slice(0, 3) }, meter, clock));
    expect(JSON.parse(small).current.outputs).toHaveLength(3);
    expect(JSON.parse(small).truncated).toBeUndefined();
  });
});
