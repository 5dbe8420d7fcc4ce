/**
 * A board's top notices as RSS 2.0 and JSON Feed 1.1. A notice is text
 * (text.ts), so each reader must decode exactly what was posted:
 *
 *   - RSS `<title>` and `<dc:creator>` are plain text (RSS 2.0 has no markup in
 *     titles; the RSS Advisory Board asks aggregators to show them literally):
 *     the text itself, with `&`, `<` and `>` written as the hexadecimal
 *     references the RSS Best Practices Profile recommends for plain text
 *     (`&#x26;`, `&#x3C;`, `&#x3E;`). An XML parser hands back the posted text,
 *     once decoded. No CDATA: escaping has no `]]>` special case.
 *   - RSS `<description>` is HTML, as RSS readers take it: the body escaped for
 *     HTML (escapeHtml, newlines as `<br>`, the URL as a link), that HTML then
 *     escaped for XML. A reader decodes the XML, renders the HTML, and shows
 *     the posted text: `&lt;b&gt;` in a notice reads `&lt;b&gt;`, never bold.
 *   - The handle goes in `dc:creator` (xmlns:dc declared): RSS 2.0's `<author>`
 *     is an email address.
 *   - JSON Feed: `title`, `content_text` and `authors[].name` are the plain
 *     text (JSON Feed's own plain-text fields); `content_html` is the same
 *     escaped HTML as the RSS description. `<`, `>` and `&` are written as
 *     \u escapes, so the raw bytes carry no markup either.
 *
 * Dates come from the notices (never "now"), so an unchanged board renders
 * the same bytes and keeps its ETag.
 */
import { z } from "zod";
import type { Board } from "./boards.js";
import { noticePath, type Notice } from "./service.js";
import { escapeHtml } from "./text.js";

const DC_NS = "http://purl.org/dc/elements/1.1/";
const ATOM_NS = "http://www.w3.org/2005/Atom";

/** Plain text in an XML element (the RSS Profile's references; nothing else needs escaping in content). */
export function xmlPlainText(s: string): string {
  return s.replace(/&/g, "&#x26;").replace(/</g, "&#x3C;").replace(/>/g, "&#x3E;");
}

/** Any string in an XML element or a double-quoted attribute (used for HTML and URLs). */
function xmlEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** The body as HTML: escaped text, line breaks as <br>, then the notice's URL as a link. */
export function bodyHtml(n: Pick<Notice, "body" | "url">): string {
  const parts = [escapeHtml(n.body).replace(/\n/g, "<br>")];
  if (n.url) parts.push(`<a href="${escapeHtml(n.url)}">${escapeHtml(n.url)}</a>`);
  return parts.join("<br>");
}

const rfc822 = (ms: number) => new Date(ms).toUTCString();
const lastChange = (notices: readonly Notice[]) => notices.reduce((m, n) => Math.max(m, n.updated_ms, n.created_ms), 0);

function rssItem(baseUrl: string, n: Notice): string {
  const link = `${baseUrl}${noticePath(n.board, n.id)}`;
  return [
    "        <item>",
    `            <title>${xmlPlainText(n.title)}</title>`,
    `            <link>${xmlEscape(link)}</link>`,
    `            <guid isPermaLink="false">${xmlEscape(n.id)}</guid>`,
    `            <pubDate>${rfc822(n.updated_ms)}</pubDate>`,
    `            <description>${xmlEscape(bodyHtml(n))}</description>`,
    `            <dc:creator>${xmlPlainText(n.handle)}</dc:creator>`,
    ...n.tags.map((t) => `            <category>${xmlPlainText(t)}</category>`),
    "        </item>",
  ].join("\n");
}

export function renderRss(baseUrl: string, board: Board, notices: readonly Notice[]): string {
  const home = `${baseUrl}/v1/board/${board.id}`;
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<rss version="2.0" xmlns:atom="${ATOM_NS}" xmlns:dc="${DC_NS}">`,
    "    <channel>",
    `        <title>${xmlPlainText(board.title)}</title>`,
    `        <link>${xmlEscape(home)}</link>`,
    `        <description>${xmlPlainText(board.description)}</description>`,
    `        <lastBuildDate>${rfc822(lastChange(notices))}</lastBuildDate>`,
    "        <docs>https://www.rssboard.org/rss-specification</docs>",
    "        <generator>Vigil</generator>",
    "        <language>en</language>",
    `        <atom:link href="${xmlEscape(`${home}/feed.xml`)}" rel="self" type="application/rss+xml"/>`,
    ...notices.map((n) => rssItem(baseUrl, n)),
    "    </channel>",
    "</rss>",
    "",
  ].join("\n");
}

/** JSON whose bytes carry no `<`, `>` or `&` (each a \u escape; JSON parsers read the same strings). */
function markupFreeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** One item of the JSON Feed: a notice, with its ranking under the `_board` extension (JSON Feed allows `_`-prefixed extensions). */
const JsonFeedItem = z.object({
  id: z.string(),
  url: z.string(),
  title: z.string(),
  content_html: z.string().describe("the body, HTML-escaped, line breaks as <br>, the notice's link appended"),
  content_text: z.string().describe("the body as posted"),
  date_modified: z.string().describe("ISO 8601"),
  date_published: z.string().describe("ISO 8601"),
  tags: z.array(z.string()),
  authors: z.array(z.object({ name: z.string() })),
  external_url: z.string().optional().describe("the notice's own link, when it has one"),
  _board: z.object({ weight_atomic: z.string(), weight_usd: z.string(), boosts_count: z.number().int(), score_atomic: z.string() }),
});

/** What GET /v1/board/{board}/feed.json answers: a JSON Feed 1.1 document (https://www.jsonfeed.org/version/1.1/). */
export const JsonFeedDocument = z.object({
  version: z.literal("https://jsonfeed.org/version/1.1"),
  title: z.string(),
  home_page_url: z.string(),
  feed_url: z.string(),
  description: z.string().optional(),
  language: z.string(),
  items: z.array(JsonFeedItem).describe("the board's top notices in rank order"),
});

export function renderJsonFeed(baseUrl: string, board: Board, notices: readonly Notice[]): string {
  const home = `${baseUrl}/v1/board/${board.id}`;
  return markupFreeJson({
    version: "https://jsonfeed.org/version/1.1",
    title: board.title,
    home_page_url: home,
    feed_url: `${home}/feed.json`,
    description: board.description,
    language: "en",
    items: notices.map((n) => ({
      id: n.id,
      url: `${baseUrl}${noticePath(n.board, n.id)}`,
      title: n.title,
      content_text: n.body,
      content_html: bodyHtml(n),
      date_published: new Date(n.created_ms).toISOString(),
      date_modified: new Date(n.updated_ms).toISOString(),
      authors: [{ name: n.handle }],
      tags: n.tags,
      ...(n.url ? { external_url: n.url } : {}),
      _board: { weight_atomic: n.weight_atomic, weight_usd: n.weight_usd, boosts_count: n.boosts_count, score_atomic: n.score_atomic },
    })),
  });
}
