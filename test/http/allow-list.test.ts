/**
 * The operator allow-list: configured CIDRs and tokens get their own, higher
 * general limit. The client address comes from X-Forwarded-For behind one
 * trusted proxy hop (TRUST_PROXY_HOPS=1), as in production behind a proxy.
 * On PostgreSQL the allow-listed counts are shared by two API processes,
 * like the general limit.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db.js";
import { startCli, type ChildService } from "../helpers/process.js";
import { createAllowList } from "../../src/http/rate-limits.js";

const TOKEN = "ops-token-0123456789abcdefghij";
const allowEnv = {
  RATE_LIMIT_PER_MINUTE: "3",
  TRUST_PROXY_HOPS: "1",
  RATE_LIMIT_ALLOW_CIDRS: "203.0.113.0/24,2001:db8::/32",
  RATE_LIMIT_ALLOW_TOKENS: TOKEN,
  RATE_LIMIT_ALLOW_PER_MINUTE: "8",
};

async function burst(base: string, n: number, headers: Record<string, string>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await fetch(`${base}/v1/q`, { headers })).status);
  return out;
}

describe("allow-list matching", () => {
  it("matches addresses in the CIDRs (IPv4-mapped IPv6 too) and configured tokens, nothing else", () => {
    const list = createAllowList({ cidrs: ["203.0.113.0/24", "2001:db8::/32"], tokens: [TOKEN], perMinute: 8 });
    expect(list.keyOf("203.0.113.9", undefined)).toBe("ip:203.0.113.9");
    expect(list.keyOf("::ffff:203.0.113.9", undefined)).toBe("ip:203.0.113.9");
    expect(list.keyOf("2001:db8::1", undefined)).toBe("ip:2001:db8::1");
    expect(list.keyOf("203.0.114.9", undefined)).toBeUndefined();
    expect(list.keyOf("unknown", undefined)).toBeUndefined();
    expect(list.keyOf("198.51.100.7", `${TOKEN}x`)).toBeUndefined();
    const byToken = list.keyOf("198.51.100.7", TOKEN)!;
    expect(byToken).toMatch(/^token:[0-9a-f]{32}$/);
    expect(byToken).not.toContain(TOKEN);
    expect(createAllowList(undefined).enabled).toBe(false);
  });
});

describe("an allow-listed address passes the limit another address hits", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ...allowEnv, FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
  });
  afterAll(async () => t?.close());

  it("198.51.100.7 is limited at 3 per minute; 203.0.113.9 and a token holder at 8", async () => {
    const other = await burst(t.url, 4, { "x-forwarded-for": "198.51.100.7" });
    expect(other).toEqual([200, 200, 200, 429]);
    const listed = await burst(t.url, 9, { "x-forwarded-for": "203.0.113.9" });
    expect(listed).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    const limited = await fetch(`${t.url}/v1/q`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(await limited.json()).toMatchObject({ error: { code: "rate_limited", details: { limit: 8 } } });
    // A token lifts the limit of an address that is not listed, and the address's own count is untouched by it.
    const token = await burst(t.url, 9, { "x-forwarded-for": "198.51.100.8", "x-allow-token": TOKEN });
    expect(token).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    expect(await burst(t.url, 1, { "x-forwarded-for": "198.51.100.8" })).toEqual([200]);
  });

  it("GET /v1/paywall and /llms.txt say what the allow-list gives, not who is on it", async () => {
    const text = await (await fetch(`${t.url}/v1/paywall`, { headers: { "x-forwarded-for": "198.51.100.50" } })).text();
    expect(JSON.parse(text).rate_limits).toMatchObject({ per_minute_per_ip: 3, allow_list: { enabled: true, per_minute: 8 } });
    const llms = await (await fetch(`${t.url}/llms.txt`, { headers: { "x-forwarded-for": "198.51.100.51" } })).text();
    expect(llms).toContain("allow-list addresses or tokens for 8 per minute");
    for (const secret of ["203.0.113", "2001:db8", TOKEN]) {
      expect(text).not.toContain(secret);
      expect(llms).not.toContain(secret);
    }
  });
});

describe.skipIf(!usingPostgres)("allow-listed counts are shared by two API processes on PostgreSQL", () => {
  let db: TestDatabase;
  const children: ChildService[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    db = await openTestDatabase();
    const env = (dir: string) => ({ ...db.env, ...allowEnv, DEVNET: "off", PORT: "0", DATA_DIR: dir, FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
    dirs.push(tempDir(), tempDir());
    children.push(...(await Promise.all(dirs.map((d) => startCli(["api"], env(d))))));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await db?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("8 calls across both processes pass for the listed address, the ninth is refused; another address stops at 3", async () => {
    const [a, b] = children;
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) statuses.push((await fetch(`${(i % 2 ? a : b)!.url}/v1/q`, { headers: { "x-forwarded-for": "203.0.113.20" } })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    const other: number[] = [];
    for (let i = 0; i < 4; i++) other.push((await fetch(`${(i % 2 ? a : b)!.url}/v1/q`, { headers: { "x-forwarded-for": "198.51.100.20" } })).status);
    expect(other).toEqual([200, 200, 200, 429]);
  });
});
