/**
 * Issue 23, item 6: boards refused what developers and agents write —
 * `Parse Vec<u8> & Map<K, V>` or `from <script> tags` was a 400 ("contains
 * HTML markup") — and a title like `&lt;b&gt;` did not read back literally
 * from the RSS feed. Notices are text now: accepted, stored as given, and
 * escaped for every output, so each reader decodes exactly the posted text:
 *   - the JSON API, as JSON strings;
 *   - RSS, read by an independent parser (rss-parser): `<title>` and
 *     `<dc:creator>` are the plain text; `<description>` is HTML that, rendered
 *     by a real browser (headless Chromium), shows the posted body;
 *   - JSON Feed: `title`, `content_text`, `authors[].name` are the text;
 *     `content_html` rendered by Chromium shows the body.
 * No `<script` appears in the raw bytes of either feed, and the rendered
 * HTML holds no element but the `<br>`s and the link the service adds.
 */
import { execFileSync } from "node:child_process";
import { chromium, type Browser } from "playwright-core";
import Parser from "rss-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

const CHROMIUM = "/usr/bin/chromium";
/** Debian's Python, where Debian's python3-feedparser installs (another python3 may come first on PATH). */
const PYTHON = "/usr/bin/python3";
const FEEDPARSER = (() => {
  try {
    execFileSync(PYTHON, ["-c", "import feedparser"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
})();
if (!FEEDPARSER) {
  if (process.env.CI) throw new Error("CI installs python3-feedparser (.ci/run): the feedparser check must not skip");
  process.stderr.write("\n!!! SKIPPED: the feedparser reading of the board RSS (apt-get install python3-feedparser)\n\n");
}
const FEEDPARSER_SCRIPT = [
  "import sys, json, feedparser",
  "d = feedparser.parse(sys.stdin.read())",
  "print(json.dumps([{'title': e.title, 'author': e.get('author'), 'summary': e.summary} for e in d.entries]))",
].join("\n");
const BOARD = "agent-services";

/** What developers and agents write: generics, tags named in prose, entity-like text, CDATA ends, quotes. */
const NOTICES = [
  { title: "Parse Vec<u8> & Map<K, V>", body: "from <script> tags\nuse <b>bold</b> & &lt;b&gt; &amp; literally; a]]>b", handle: "<dev> & co" },
  { title: "&lt;b&gt; is not bold &amp; <i>nor</i> this", body: "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>", handle: "a&amp;b" },
  { title: "Tom's \"plan\" <3 ]]> <!-- no comment --> <?pi?>", body: "if a < b && c > d { x = &y; }\ttab", handle: "o'neil", url: "https://example.com/q?a=1&b=<2>" },
];

let t: TestApp;
let browser: Browser;
let ip = 0;
beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY_HOPS: "1", RATE_LIMIT_PER_MINUTE: "100000" });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function call(method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { "x-forwarded-for": `203.0.113.${++ip}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(`${t.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: r.status, text, json };
}

/**
 * Renders an HTML fragment in Chromium (white-space kept, as a reader shows a
 * text) and answers the text a reader sees and the elements it holds.
 */
async function rendered(html: string): Promise<{ text: string; elements: string[]; scriptsRan: boolean }> {
  const page = await browser.newPage();
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    void d.dismiss();
  });
  try {
    await page.setContent(`<!doctype html><body><div id="x" style="white-space:pre-wrap">${html}</div></body>`);
    // Runs in the page (the test's TypeScript has no DOM types, hence a string).
    const seen = (await page.evaluate(`({
      text: document.getElementById("x").innerText,
      elements: [...document.getElementById("x").querySelectorAll("*")].map((e) => e.tagName.toLowerCase()),
    })`)) as { text: string; elements: string[] };
    return { ...seen, scriptsRan: dialogs > 0 };
  } finally {
    await page.close();
  }
}

describe("notice text with angle brackets and ampersands", () => {
  const ids: string[] = [];

  it("is accepted and reads back exactly through the JSON API", async () => {
    const tokens: string[] = [];
    for (const n of NOTICES) {
      const r = await call("POST", `/v1/board/${BOARD}`, n);
      expect(r.status, r.text).toBe(201);
      ids.push(r.json.id);
      tokens.push(r.json.ownerToken);
      const got = await call("GET", `/v1/board/${BOARD}/${r.json.id}`);
      expect(got.json.notice).toMatchObject({ title: n.title, body: n.body, handle: n.handle, url: n.url ?? null });
    }
    // An edit takes the same text (here, the first notice's fields again).
    const edit = await fetch(`${t.url}/v1/board/${BOARD}/${ids[0]}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-notice-token": tokens[0]!, "x-forwarded-for": "198.51.100.7" },
      body: JSON.stringify({ title: NOTICES[0]!.title, body: NOTICES[0]!.body }),
    });
    expect(edit.status, await edit.clone().text()).toBe(200);
    expect(((await edit.json()) as { notice: { title: string } }).notice.title).toBe(NOTICES[0]!.title);
    const list = await call("GET", `/v1/board/${BOARD}`);
    expect(list.json.notices.map((x: { title: string }) => x.title).sort()).toEqual(NOTICES.map((n) => n.title).sort());
  });

  it("RSS: an independent parser reads the exact title and handle (dc:creator), and the description renders to the exact body", async () => {
    const r = await fetch(`${t.url}/v1/board/${BOARD}/feed.xml`);
    expect(r.headers.get("content-type")).toContain("application/rss+xml");
    const xml = await r.text();
    expect(xml).not.toMatch(/<script|<img|<b>|<i>|<!--|<\?pi/i);
    expect(xml).toContain('xmlns:dc="http://purl.org/dc/elements/1.1/"');
    expect(xml).not.toContain("<author>");
    // The detector works: markup that runs does show.
    expect((await rendered("<img src=x onerror=alert(1)>")).scriptsRan).toBe(true);
    const feed = await new Parser().parseString(xml);
    expect(feed.items).toHaveLength(NOTICES.length);
    for (const n of NOTICES) {
      const item = feed.items.find((i) => i.title === n.title);
      expect(item, `RSS title of ${JSON.stringify(n.title)}: ${JSON.stringify(feed.items.map((i) => i.title))}`).toBeDefined();
      expect(item!.creator).toBe(n.handle);
      const shown = await rendered(item!.content!);
      expect(shown.scriptsRan).toBe(false);
      expect(new Set(shown.elements)).toEqual(new Set(n.url ? ["br", "a"] : n.body.includes("\n") ? ["br"] : []));
      expect(shown.text).toBe(n.url ? `${n.body}\n${n.url}` : n.body);
    }
  });

  // Python's feedparser (Debian's python3-feedparser; .ci/run installs it) is the reader the issue saw
  // show entity-like titles as markup. Its title and author values are now the posted text, and the
  // summary it sanitises renders to the posted body. (It labels a title holding "&lt;" text/html: a
  // guess of its own, documented in docs/boards.md; the value it hands back is still exact.)
  it.skipIf(!FEEDPARSER)("RSS: Python's feedparser reads the exact title and author, and the summary renders to the exact body", async () => {
    const xml = await (await fetch(`${t.url}/v1/board/${BOARD}/feed.xml`)).text();
    const out = execFileSync(PYTHON, ["-c", FEEDPARSER_SCRIPT], { input: xml, encoding: "utf8" });
    const entries = JSON.parse(out) as { title: string; author: string; summary: string }[];
    expect(entries).toHaveLength(NOTICES.length);
    for (const n of NOTICES) {
      const e = entries.find((x) => x.title === n.title);
      expect(e, `feedparser title of ${JSON.stringify(n.title)}: ${JSON.stringify(entries.map((x) => x.title))}`).toBeDefined();
      expect(e!.author).toBe(n.handle);
      const shown = await rendered(e!.summary);
      expect(shown.scriptsRan).toBe(false);
      expect(shown.text).toBe(n.url ? `${n.body}\n${n.url}` : n.body);
    }
  });

  it("JSON Feed: title, content_text and authors are the text; content_html renders to it; no markup in the bytes", async () => {
    const r = await fetch(`${t.url}/v1/board/${BOARD}/feed.json`);
    expect(r.headers.get("content-type")).toContain("application/feed+json");
    const raw = await r.text();
    expect(raw).not.toMatch(/[<>]/);
    const feed = JSON.parse(raw) as { items: { title: string; content_text: string; content_html: string; authors: { name: string }[]; external_url?: string }[] };
    for (const n of NOTICES) {
      const item = feed.items.find((i) => i.title === n.title)!;
      expect(item).toBeDefined();
      expect(item.content_text).toBe(n.body);
      expect(item.authors).toEqual([{ name: n.handle }]);
      if (n.url) expect(item.external_url).toBe(n.url);
      const shown = await rendered(item.content_html);
      expect(shown.scriptsRan).toBe(false);
      expect(shown.elements.filter((e) => e !== "br" && e !== "a")).toEqual([]);
      expect(shown.text).toBe(n.url ? `${n.body}\n${n.url}` : n.body);
    }
  });

  // U+FFFF is newly refused: XML cannot carry it, so one such notice made the whole RSS feed unparseable.
  it("still refuses control characters, bidi overrides, noncharacters and other URL schemes", async () => {
    const base = { title: "A fine title", body: "A fine & body" };
    for (const bad of [
      { ...base, title: "bell\u0007 <b>" },
      { ...base, body: "evil \u202e txet <i>" },
      { ...base, body: "not a character \uffff" },
      { ...base, url: "javascript:alert('<x>')" },
    ]) {
      const r = await call("POST", `/v1/board/${BOARD}`, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.json.error.code).toBe("invalid_input");
    }
  });
});
