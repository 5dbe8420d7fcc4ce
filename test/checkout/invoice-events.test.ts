/** The invoice events are one list (src/watch/events.ts), and docs/webhooks.md names exactly them. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { INVOICE_EVENTS, WATCH_EVENTS } from "../../src/watch/events.js";
import { stepInvoice } from "../../src/checkout/invoice-state.js";

const DOC = path.resolve(import.meta.dirname, "../../docs/webhooks.md");

function documented(markdown: string, title: string): string[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith(`${title}\n`));
  if (!section) throw new Error(`docs/webhooks.md has no ${title} section`);
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
}

describe("invoice webhook events", () => {
  it("docs/webhooks.md lists exactly the invoice events, and none of them among the watch events", () => {
    const doc = fs.readFileSync(DOC, "utf8");
    expect(documented(doc, "Invoice events").sort()).toEqual([...INVOICE_EVENTS].sort());
    for (const e of INVOICE_EVENTS) expect(WATCH_EVENTS as readonly string[]).not.toContain(e);
  });

  it("the state machine emits only events of the union", () => {
    const s = { status: "pending" as const, expectedAtomic: 5n, receivedAtomic: null, expiresAtMs: 10, reservedUntilMs: 20 };
    const seen = stepInvoice(s, { type: "payment_seen", amountAtomic: 5n, nowMs: 1 });
    const emitted = [seen.event, stepInvoice(seen.state, { type: "payment_confirmed" }).event, stepInvoice(s, { type: "tick", nowMs: 10 }).event];
    for (const e of emitted) expect(INVOICE_EVENTS).toContain(e);
  });
});
