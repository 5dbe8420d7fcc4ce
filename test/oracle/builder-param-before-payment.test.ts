/**
 * Issue 23, item 5: `?builder=` on /v1/q/builder-share and /v1/q/builder-bid
 * took any 200 characters, NUL and ESC included, and charged for the
 * `matched: false` that followed. A builder query is now what a builder name
 * or key can be (chains/ethereum/builders.ts BUILDER_QUERY_RE): printable
 * name characters up to 64, or a 0x key prefix; anything else is a 400
 * invalid_input before any 402, and a paying client is charged nothing. Real
 * names, extra-data tags and keys still reach the 402.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const QUESTIONS = ["/v1/q/builder-share", "/v1/q/builder-bid"] as const;

const BAD = [
  ["a NUL", "Titan\u0000"],
  ["an ESC sequence", "\u001b[31mTitan"],
  ["200 characters", "x".repeat(200)],
  ["65 characters", "b".repeat(65)],
  ["markup", "<script>alert(1)</script>"],
  ["only punctuation", "..."],
  ["a zero-width space", "Ti\u200btan"],
  ["a line break", "Titan\nbeaverbuild"],
] as const;

const GOOD = [
  "Titan",
  "beaverbuild.org",
  "Titan (titanbuilder.xyz)",
  "rsync-builder.xyz",
  "Builder+ www.btcs.com/builder",
  "0xa1b2c3d4e5…",
  `0x${"8b".repeat(48)}`,
  "0x8b8e",
] as const;

describe("the builder parameter is refused before payment unless it can name a builder", () => {
  let s: WatchStack;
  const balance = () => s.devnet.evm.usdcBalanceOf(s.devnet.payers[0]!.address);
  const payments = async () => Number((await s.t.db.db.selectFrom("payments").select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n);
  const url = (q: string, builder: string) => `${q}?${new URLSearchParams(q.endsWith("builder-bid") ? { builder, pct: "90" } : { builder })}`;

  beforeAll(async () => {
    s = await startWatchStack({ https: false, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
  });
  afterAll(async () => s?.close());

  it("bad values: 400 invalid_input naming `builder`, no PAYMENT-REQUIRED, and a paying client is not charged", async () => {
    for (const q of QUESTIONS) {
      for (const [label, builder] of BAD) {
        const plain = await s.call("GET", url(q, builder));
        expect(plain.status, `${q} ${label}: ${JSON.stringify(plain.json)}`).toBe(400);
        expect(plain.json.error.code).toBe("invalid_input");
        expect(plain.json.error.details.issues.map((i: { path: string }) => i.path), `${q} ${label}`).toContain("builder");
        expect(plain.headers.get("payment-required"), `${q} ${label}`).toBeNull();
      }
      const [usdc, rows] = [balance(), await payments()];
      const paying = await s.paidGet(url(q, BAD[0][1]));
      expect(paying.status, JSON.stringify(paying.json)).toBe(400);
      expect(paying.headers.get("payment-response")).toBeNull();
      expect(balance()).toBe(usdc);
      expect(await payments()).toBe(rows);
    }
  });

  it("real builder names, extra-data tags and keys reach the 402", async () => {
    for (const q of QUESTIONS) {
      for (const builder of GOOD) {
        const r = await s.call("GET", url(q, builder));
        expect(r.status, `${q} ${builder}: ${JSON.stringify(r.json)}`).toBe(402);
        expect(r.headers.get("payment-required"), `${q} ${builder}`).toBeTruthy();
      }
    }
  });

  it("OpenAPI publishes the rule (pattern and length) for the builder parameter", async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { parameters: { name: string; schema: { pattern?: string; maxLength?: number } }[] } }>;
    };
    for (const q of QUESTIONS) {
      const p = doc.paths[q]!.get.parameters.find((x) => x.name === "builder")!;
      expect(p.schema.maxLength, q).toBe(98);
      const re = new RegExp(p.schema.pattern!, "u");
      for (const builder of GOOD) expect(re.test(builder), `${q} ${builder}`).toBe(true);
      for (const [label, builder] of BAD) if (builder.length <= 98) expect(re.test(builder), `${q} ${label}`).toBe(false);
    }
  });
});
