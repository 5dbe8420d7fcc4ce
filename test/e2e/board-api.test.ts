/**
 * Notice boards over real HTTP: the real app on a test database, x402 boosts
 * paid by a funded devnet payer and settled by the local facilitator on the
 * devnet EVM chain, feeds read back by real parsers. The app runs on a
 * ManualClock; the process clock (Date) moves with it, so payments made after
 * a jump in time are still valid. Each post comes from its own client IP
 * (X-Forwarded-For behind one trusted hop) so the per-IP post limit only
 * bites where a test means it to.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sql } from "kysely";
import Parser from "rss-parser";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { ManualClock } from "../../src/core/clock.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { createPayer, type Payer } from "../../src/x402/payer.js";
import { NOTICE_TTL_MS } from "../../src/board/service.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";
import { oneShotFetch } from "../helpers/one-shot-fetch.js";

const DAY = 24 * 3600 * 1000;
const BOARDS = ["seneschal-features", "data-requests", "agent-services", "bounties", "announcements"];

describe("notice boards end to end", () => {
  let devnet: SimulatedDevnet;
  let t: TestApp;
  let payer: Payer;
  let clock: ManualClock;
  let ipSeq = 0;
  // Date is faked and jumps: a new connection per request (test/helpers/one-shot-fetch.ts).
  const http = oneShotFetch();

  const advance = (ms: number) => {
    clock.advance(ms);
    vi.setSystemTime(clock.now());
  };

  async function call(method: string, path: string, o: { body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string>; ip?: string } = {}) {
    const headers: Record<string, string> = { "x-forwarded-for": o.ip ?? "198.51.100.1", ...o.headers };
    if (o.body !== undefined || o.rawBody !== undefined) headers["content-type"] = "application/json";
    const r = await http.fetch(`${t.url}${path}`, { method, headers, body: o.rawBody ?? (o.body === undefined ? undefined : JSON.stringify(o.body)) });
    const text = await r.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: r.status, json, text, headers: r.headers };
  }

  const post = (board: string, body: unknown, ip = `203.0.113.${++ipSeq}`) => call("POST", `/v1/board/${board}`, { body, ip });

  async function boost(board: string, id: string, amountAtomic: string) {
    const r = await payer.payFetch(`${t.url}/v1/board/${board}/${id}/boost`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amountAtomic }),
    });
    return { status: r.status, json: (await r.json()) as any };
  }

  const noticeCount = async () => Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM notices`.execute(t.db.db)).rows[0]!.n);
  const order = async (board: string) => ((await call("GET", `/v1/board/${board}`)).json.notices as { id: string }[]).map((n) => n.id);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
    vi.setSystemTime(clock.now());
    devnet = await startDevnet({ dataDir: tempDir("vigil-devnet-"), blockSeconds: 0 });
    t = await startTestApp({ TRUST_PROXY_HOPS: "1", RATE_LIMIT_PER_MINUTE: "100000" }, { devnet, clock });
    payer = createPayer(devnet.payers[0]!.privateKey, { networks: ["eip155:84532"], fetch: http.fetch });
  }, 120_000);
  afterAll(async () => {
    // Real time first: a close path that waits with a deadline must see the clock move.
    vi.useRealTimers();
    await http.close();
    await t?.close();
    await devnet?.close();
  });

  it("lists the boards with their counts, paths and the posting block", async () => {
    const r = await call("GET", "/v1/board");
    expect(r.status).toBe(200);
    expect(r.json.boards.map((b: { id: string }) => b.id)).toEqual(BOARDS);
    expect(r.json.boards[0]).toEqual({
      id: "seneschal-features",
      title: "Feature requests",
      description: expect.any(String),
      live: 0,
      paid: 0,
      read: "GET /v1/board/seneschal-features",
      post: "POST /v1/board/seneschal-features",
      feed_rss: "GET /v1/board/seneschal-features/feed.xml",
      feed_json: "GET /v1/board/seneschal-features/feed.json",
    });
    expect(r.json.totals).toEqual({ live: 0, paid: 0 });
    expect(r.json.leaderboard).toBe("GET /v1/board/leaderboard");
    expect(r.json.posting).toMatchObject({
      free: true,
      free_rate_limit: "6 per hour per IP",
      boost_endpoint: "POST /v1/board/{board}/{id}/boost",
      boost: { min_usd: "$0.10", max_usd: "$25.00", min_atomic: "100000", max_atomic: "25000000" },
      model: expect.stringContaining("7 days"),
    });
  });

  it("posts a notice, stores its text as given, and reads it back; the owner token is stored only hashed", async () => {
    const input = { title: "Tom & Jerry's \"plan\" ]]> a < b ]]>", body: "line one\nline two & more", handle: "ana &amp; bo", url: "https://example.com/x?a=1&b=2", contact: "ana@example.com", tags: ["xmr", "feature-1"] };
    const r = await post("seneschal-features", input);
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ id: expect.any(String), ownerToken: expect.stringMatching(/^nt_/), board: "seneschal-features", status: "live", weight_atomic: "0" });
    expect(r.headers.get("cache-control")).toBeNull();
    const got = await call("GET", `/v1/board/seneschal-features/${r.json.id}`);
    expect(got.status).toBe(200);
    expect(got.json.notice).toMatchObject({ ...input, id: r.json.id, board: "seneschal-features", weight_atomic: "0", boosts_count: 0, status: "live" });
    expect(got.json.notice.expires_ms).toBe(clock.now() + NOTICE_TTL_MS);
    expect(got.text).not.toContain(r.json.ownerToken);
    const row = await t.db.db.selectFrom("notices").selectAll().where("id", "=", r.json.id).executeTakeFirstOrThrow();
    expect(row.title).toBe(input.title);
    expect(Buffer.from(row.owner_token_hash).length).toBe(32);
    expect(JSON.stringify(row)).not.toContain(r.json.ownerToken.slice(3));
    const list = await call("GET", "/v1/board/seneschal-features");
    expect(list.json).toMatchObject({ board: { id: "seneschal-features" }, count: 1, limit: 50, offset: 0 });
    expect(list.json.notices[0].id).toBe(r.json.id);
    const anon = await post("bounties", { title: "No handle", body: "x" });
    expect((await call("GET", `/v1/board/bounties/${anon.json.id}`)).json.notice.handle).toBe("anon");
  });

  it("refuses hostile input with a 400 naming the field and stores nothing", async () => {
    const base = { title: "A fine title", body: "A fine body" };
    const cases: [string, unknown][] = [
      ["noncharacter", { ...base, title: "end \uffff title" }],
      ["control char", { ...base, title: "bell\u0007 title" }],
      ["bidi override", { ...base, body: "evil \u202e txet" }],
      ["lone surrogate", { ...base, title: "bad \ud800 title" }],
      ["javascript url", { ...base, url: "javascript:alert(1)" }],
      ["data url", { ...base, url: "data:text/html,<b>x</b>" }],
      ["over-long title", { ...base, title: "x".repeat(161) }],
      ["over-long body", { ...base, body: "x".repeat(1201) }],
      ["over-long handle", { ...base, handle: "h".repeat(49) }],
      ["over-long contact", { ...base, contact: "c".repeat(141) }],
      ["over-long url", { ...base, url: `https://example.com/${"a".repeat(400)}` }],
      ["too many tags", { ...base, tags: ["a", "b", "c", "d", "e", "f"] }],
      ["bad tag", { ...base, tags: ["Not OK"] }],
      ["short title", { ...base, title: "ab" }],
      ["missing body", { title: "A fine title" }],
    ];
    const before = await noticeCount();
    for (const [label, body] of cases) {
      const r = await post("data-requests", body);
      expect(r.status, `${label}: ${r.text}`).toBe(400);
      expect(r.json.error.code, label).toBe("invalid_input");
      expect(r.json.error.details.issues.length, label).toBeGreaterThan(0);
    }
    // Bad UTF-8 bytes inside a JSON string.
    const raw = Buffer.concat([Buffer.from('{"title":"bad '), Buffer.from([0xff, 0xfe]), Buffer.from(' utf8","body":"x"}')]);
    const r = await call("POST", "/v1/board/data-requests", { rawBody: raw, ip: "203.0.113.250" });
    expect(r.status, r.text).toBe(400);
    expect(r.json.error.details.issues[0]).toMatchObject({ path: "title", message: expect.stringContaining("UTF-8") });
    expect(await noticeCount()).toBe(before);
  });

  it("answers 404 for an unknown board on every route, and for an unknown notice", async () => {
    expect((await call("GET", "/v1/board/no-such-board")).json.error.code).toBe("unknown_board");
    expect((await call("GET", "/v1/board/no-such-board/feed.xml")).status).toBe(404);
    expect((await call("GET", "/v1/board/no-such-board/feed.json")).status).toBe(404);
    const p = await post("no-such-board", { title: "A fine title", body: "b" });
    expect(p.status).toBe(404);
    expect(p.json.error.code).toBe("unknown_board");
    const missing = "00000000-0000-4000-8000-000000000000";
    expect((await call("GET", `/v1/board/bounties/${missing}`)).json.error.code).toBe("notice_not_found");
    expect((await call("GET", `/v1/board/bounties/not-a-uuid`)).status).toBe(400);
    const boost402 = await call("POST", `/v1/board/bounties/${missing}/boost`, { body: { amountAtomic: "100000" } });
    expect(boost402.status).toBe(404);
  });

  it("lets the owner edit and remove a notice, and nobody else", async () => {
    const p = await post("agent-services", { title: "Original title", body: "Original body" });
    const path = `/v1/board/agent-services/${p.json.id}`;
    for (const headers of [{}, { "x-notice-token": "nt_wrong" }] as Record<string, string>[]) {
      const e = await call("PATCH", path, { body: { title: "Hijacked title" }, headers });
      expect(e.status).toBe(401);
      expect(e.json.error.code).toBe("invalid_notice_token");
      const d = await call("DELETE", path, { headers });
      expect(d.status).toBe(401);
    }
    // The token is taken from its header only, never from the body.
    expect((await call("PATCH", path, { body: { title: "Body token title", ownerToken: p.json.ownerToken } })).status).toBe(401);
    expect((await call("GET", path)).json.notice.title).toBe("Original title");
    const bad = await call("PATCH", path, { body: { body: "bell\u0007" }, headers: { "x-notice-token": p.json.ownerToken } });
    expect(bad.status).toBe(400);
    const empty = await call("PATCH", path, { body: {}, headers: { "x-notice-token": p.json.ownerToken } });
    expect(empty.status).toBe(400);
    const ok = await call("PATCH", path, { body: { title: "Edited title", tags: ["edited"] }, headers: { "x-notice-token": p.json.ownerToken } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.notice).toMatchObject({ title: "Edited title", body: "Original body", tags: ["edited"] });
    const withUrl = await call("PATCH", path, { body: { url: "https://example.org/", contact: "me@example.org" }, headers: { "x-notice-token": p.json.ownerToken } });
    expect(withUrl.json.notice).toMatchObject({ url: "https://example.org/", contact: "me@example.org" });
    const cleared = await call("PATCH", path, { body: { url: null, contact: null }, headers: { "x-notice-token": p.json.ownerToken } });
    expect(cleared.json.notice).toMatchObject({ url: null, contact: null, title: "Edited title" });
    expect((await call("PATCH", path, { body: { url: "javascript:alert(1)" }, headers: { "x-notice-token": p.json.ownerToken } })).status).toBe(400);
    const del = await call("DELETE", path, { headers: { "x-notice-token": p.json.ownerToken } });
    expect(del.json).toEqual({ id: p.json.id, removed: true, by: "owner" });
    expect((await call("GET", path)).status).toBe(404);
    expect((await call("DELETE", path, { headers: { "x-notice-token": p.json.ownerToken } })).status).toBe(404);
  });

  it("serves RSS 2.0 and JSON Feed 1.1 that real parsers read, with the text escaped", async () => {
    const rss = await call("GET", "/v1/board/seneschal-features/feed.xml");
    expect(rss.status).toBe(200);
    expect(rss.headers.get("content-type")).toContain("application/rss+xml");
    expect(rss.text).toContain('<rss version="2.0"');
    expect(rss.text).not.toMatch(/<script|<img/);
    const feed = await new Parser().parseString(rss.text);
    expect(feed.title).toBe("Feature requests");
    expect(feed.items).toHaveLength(1);
    const item = feed.items[0]!;
    expect(item.title).toBe("Tom & Jerry's \"plan\" ]]> a < b ]]>");
    expect(item.guid).toMatch(/^[0-9a-f-]{36}$/);
    expect(item.link).toBe(`${t.url}/v1/board/seneschal-features/${item.guid}`);
    expect(item.content).toContain("line one<br>line two &amp; more");
    expect(item.categories).toEqual(["xmr", "feature-1"]);
    expect(item.creator).toBe("ana &amp; bo"); // dc:creator: RSS 2.0 <author> is an email address
    expect(rss.text).not.toContain("<author>");

    const json = await call("GET", "/v1/board/seneschal-features/feed.json");
    expect(json.headers.get("content-type")).toContain("application/feed+json");
    expect(json.json).toMatchObject({
      version: "https://jsonfeed.org/version/1.1",
      title: "Feature requests",
      home_page_url: `${t.url}/v1/board/seneschal-features`,
      feed_url: `${t.url}/v1/board/seneschal-features/feed.json`,
    });
    const ji = json.json.items[0];
    expect(ji).toMatchObject({
      id: item.guid,
      url: item.link,
      title: "Tom & Jerry's \"plan\" ]]> a < b ]]>",
      content_text: "line one\nline two & more",
      content_html: expect.stringContaining("line two &amp; more"),
      authors: [{ name: "ana &amp; bo" }],
      tags: ["xmr", "feature-1"],
      external_url: "https://example.com/x?a=1&b=2",
      date_published: expect.any(String),
      _board: { weight_atomic: "0", boosts_count: 0 },
    });
    expect(ji.author).toBeUndefined();
  });

  it("answers If-None-Match with 304 while nothing changed, and a new ETag once something did", async () => {
    for (const path of ["/v1/board/announcements", "/v1/board/announcements/feed.xml", "/v1/board/announcements/feed.json", "/v1/board"]) {
      const first = await call("GET", path);
      const etag = first.headers.get("etag");
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await call("GET", path, { headers: { "if-none-match": etag! } });
      expect(again.status, path).toBe(304);
      expect(again.text).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect((await call("GET", path, { headers: { "if-none-match": `"other", W/${etag}` } })).status).toBe(304);
      expect((await call("GET", path, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    }
    const etagOf = async (path: string) => (await call("GET", path)).headers.get("etag");
    const before = await Promise.all(["/v1/board/announcements", "/v1/board/announcements/feed.xml"].map(etagOf));
    await post("announcements", { title: "Release 1.0", body: "Out now." });
    const after = await Promise.all(["/v1/board/announcements", "/v1/board/announcements/feed.xml"].map(etagOf));
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect((await call("GET", "/v1/board/announcements", { headers: { "if-none-match": before[0]! } })).status).toBe(200);
  });

  it("lets browsers edit with the token header and read the ETag (CORS)", async () => {
    const pre = await http.fetch(`${t.url}/v1/board/bounties/00000000-0000-4000-8000-000000000000`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "PATCH", "access-control-request-headers": "x-notice-token, if-none-match, content-type" },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-notice-token");
    expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("if-none-match");
    const get = await http.fetch(`${t.url}/v1/board`, { headers: { origin: "https://app.example" } });
    expect(get.headers.get("access-control-expose-headers")).toContain("ETag");
  });

  it("quotes the caller's amount in the 402, and a paid boost records the payment and raises the rank", async () => {
    const older = await post("bounties", { title: "Older notice", body: "posted first" });
    advance(60_000);
    const newer = await post("bounties", { title: "Newer notice", body: "posted second" });
    const ord = await order("bounties");
    expect(ord.indexOf(newer.json.id)).toBeLessThan(ord.indexOf(older.json.id));

    const unpaid = await call("POST", `/v1/board/bounties/${older.json.id}/boost`, { body: { amountAtomic: "1234567" } });
    expect(unpaid.status).toBe(402);
    expect(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!).accepts[0]!.amount).toBe("1234567");
    for (const amountAtomic of ["99999", "25000001", "-5", "1.5"]) {
      const r = await call("POST", `/v1/board/bounties/${older.json.id}/boost`, { body: { amountAtomic } });
      expect(r.status, amountAtomic).toBe(400);
    }

    const b = await boost("bounties", older.json.id, "1000000");
    expect(b.status, JSON.stringify(b.json)).toBe(200);
    expect(b.json).toMatchObject({ boosted_atomic: "1000000", notice: { id: older.json.id, weight_atomic: "1000000", weight_usd: "$1.00", boosts_count: 1, score_atomic: "1000000", expires_ms: null } });
    const rows = await t.db.db.selectFrom("notice_boosts").selectAll().where("notice_id", "=", older.json.id).execute();
    expect(rows).toHaveLength(1);
    expect(String(rows[0]!.amount_atomic)).toBe("1000000");
    expect(rows[0]!.payer.toLowerCase()).toBe(payer.address.toLowerCase());
    const settled = await sql<{ n: string }>`SELECT count(*)::text AS n FROM payments WHERE status = 'settled' AND nonce = ${rows[0]!.payment_nonce}`.execute(t.db.db);
    expect(settled.rows[0]!.n).toBe("1");

    const after = await order("bounties");
    expect(after[0]).toBe(older.json.id);
    const lb = await call("GET", "/v1/board/leaderboard");
    expect(lb.json.top.map((n: { id: string }) => n.id)).toEqual([older.json.id]);
    expect(lb.json.totals).toMatchObject({ paid: 1, weight_atomic: "1000000", weight_usd: "$1.00" });
    const index = await call("GET", "/v1/board");
    expect(index.json.boards.find((x: { id: string }) => x.id === "bounties")).toMatchObject({ paid: 1 });
  });

  it("counts two boosts paid at the same moment by different payers", async () => {
    const n = await post("agent-services", { title: "Boosted twice at once", body: "x" });
    const other = createPayer(devnet.payers[1]!.privateKey, { networks: ["eip155:84532"] });
    const [r1, r2] = await Promise.all([
      boost("agent-services", n.json.id, "300000"),
      other
        .payFetch(`${t.url}/v1/board/agent-services/${n.json.id}/boost`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ amountAtomic: "200000" }) })
        .then(async (r) => ({ status: r.status, json: (await r.json()) as any })),
    ]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    const got = (await call("GET", `/v1/board/agent-services/${n.json.id}`)).json.notice;
    expect(got).toMatchObject({ weight_atomic: "500000", boosts_count: 2 });
    const rows = await t.db.db.selectFrom("notice_boosts").select("payer").where("notice_id", "=", n.json.id).execute();
    expect(new Set(rows.map((r) => r.payer.toLowerCase()))).toEqual(new Set([payer.address.toLowerCase(), other.address.toLowerCase()]));
  });

  it("decays boosts over injected time: a newer smaller boost overtakes an older larger one", async () => {
    const a = await post("data-requests", { title: "Boosted long ago", body: "a" });
    const b = await post("data-requests", { title: "Boosted later", body: "b" });
    expect((await boost("data-requests", a.json.id, "1000000")).status).toBe(200);
    advance(1000);
    expect((await boost("data-requests", b.json.id, "400000")).status).toBe(200);
    // Now: a 1.00 vs b 0.40.
    let ord = await order("data-requests");
    expect(ord.slice(0, 2)).toEqual([a.json.id, b.json.id]);
    // 14 days (two half-lives) later: a ≈ 0.25, b ≈ 0.10, still in that order; a new 0.20 on b makes it ≈ 0.30.
    advance(14 * DAY);
    ord = await order("data-requests");
    expect(ord.slice(0, 2)).toEqual([a.json.id, b.json.id]);
    const aNow = (await call("GET", `/v1/board/data-requests/${a.json.id}`)).json.notice;
    expect(Number(aNow.score_atomic)).toBeGreaterThan(249_000);
    // Scored as of the start of the minute: at most a minute's decay less.
    expect(Number(aNow.score_atomic)).toBeLessThanOrEqual(250_100);
    expect(aNow.weight_atomic).toBe("1000000");
    expect((await boost("data-requests", b.json.id, "200000")).status).toBe(200);
    ord = await order("data-requests");
    expect(ord.slice(0, 2)).toEqual([b.json.id, a.json.id]);
  });

  it("expires unboosted notices after the documented time; boosted ones stay", async () => {
    const plain = await post("announcements", { title: "Will expire", body: "soon" });
    advance(NOTICE_TTL_MS + 60_000);
    expect((await call("GET", `/v1/board/announcements/${plain.json.id}`)).status).toBe(404);
    const ids = await order("announcements");
    expect(ids).not.toContain(plain.json.id);
    // The notices boosted in the tests above are still listed.
    expect((await order("bounties")).length).toBe(1);
    expect((await call("POST", `/v1/board/announcements/${plain.json.id}/boost`, { body: { amountAtomic: "100000" } })).status).toBe(404);
  });

  it("limits posts to 6 per hour per IP with 429 and Retry-After", async () => {
    const ip = "192.0.2.77";
    for (let i = 0; i < 6; i++) expect((await post("bounties", { title: `Post number ${i}`, body: "x" }, ip)).status).toBe(201);
    const r = await post("bounties", { title: "One too many", body: "x" }, ip);
    expect(r.status).toBe(429);
    expect(r.json.error.code).toBe("rate_limited");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await post("bounties", { title: "Another client", body: "x" }, "192.0.2.78")).status).toBe(201);
  });
});
