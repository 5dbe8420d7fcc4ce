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
import { INVOICE_EVENTS } from "../../src/webhooks/events.js";

const DOC = path.resolve(import.meta.dirname, "../../docs/webhooks.md");
const SRC = path.resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

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

  it("the event names are listed once in src/ (webhooks/events.ts): no second union or list of them", () => {
    // Two event names side by side in a list or a union ("a", "b" / "a" | "b") is a list of events.
    const names = [...WATCH_EVENTS, ...INVOICE_EVENTS].join("|");
    const listed = new RegExp(`["'](?:${names})["']\\s*[,|]\\s*["'](?:${names})["']`, "g");
    const owner = path.join(SRC, "webhooks", "events.ts");
    const found = sourceFiles(SRC)
      .filter((f) => f !== owner && !f.startsWith(path.join(SRC, "devnet")))
      .flatMap((file) => [...fs.readFileSync(file, "utf8").matchAll(listed)].map((m) => `${path.relative(SRC, file)}: ${m[0]}`));
    expect(found).toEqual([]);
    expect(fs.readFileSync(owner, "utf8")).toMatch(listed);
  });
});
