/**
 * The watch's webhook events are one list (src/watch/events.ts): the body
 * builder accepts only them (checked by the typecheck below), and the table
 * in docs/webhooks.md names exactly them.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { openMeter } from "../../src/watch/meter.js";
import { emptySnapshot, eventBody } from "../../src/watch/model.js";
import { WATCH_EVENTS, type WatchEvent } from "../../src/watch/events.js";

const DOC = path.resolve(import.meta.dirname, "../../docs/webhooks.md");

/** The backticked names in the first column of the table under "## Events". */
function documentedEvents(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Events\n"));
  if (!section) throw new Error("docs/webhooks.md has no Events section");
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
}

describe("webhook events", () => {
  it("docs/webhooks.md lists exactly the events of the union, once each", () => {
    const documented = documentedEvents(fs.readFileSync(DOC, "utf8"));
    expect(documented.length).toBe(new Set(documented).size);
    expect([...documented].sort()).toEqual([...WATCH_EVENTS].sort());
  });

  it("the body builder carries the event it is given, and takes only events of the union", () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22));
    const meter = openMeter(100_000n, clock.now()).state;
    const w = { id: "8f14e45f-ceea-4e67-a1b0-1f0b2c3d4e5f", chain: "monero", address: "9abc" };
    const snap = emptySnapshot(1);
    for (const event of WATCH_EVENTS) expect(eventBody(w, event, snap, snap, meter, clock).event).toBe(event);
    // @ts-expect-error: not a watch event; the typecheck fails if the parameter widens to string.
    eventBody(w, "invoice_paid", snap, snap, meter, clock);
    const typed: WatchEvent = eventBody(w, "low_credit", snap, snap, meter, clock).event;
    expect(typed).toBe("low_credit");
  });
});
