/**
 * A board's top notices as RSS 2.0 and JSON Feed 1.1, rendered with `feed`.
 * Every text is escaped for where it lands: item descriptions are HTML, so
 * the body is HTML-escaped (line breaks become <br>); titles sit in CDATA as
 * plain text (the XML writer splits any "]]>" across two CDATA sections). The feed's
 * dates come from the notices (never "now"), so an unchanged board renders
 * the same bytes and keeps its ETag.
 *
 * `feed` 6 writes JSON Feed version 1; the JSON document is lifted to 1.1
 * (version URL, `authors` list, `language`) and carries plain `content_text`
 * next to the escaped `content_html`.
 */
import { Feed, type Item } from "feed";
import { z } from "zod";
import type { Board } from "./boards.js";
import { noticePath, type Notice } from "./service.js";
import { escapeHtml } from "./text.js";

function bodyHtml(n: Notice): string {
  const parts = [escapeHtml(n.body).replace(/\r?\n/g, "<br>")];
  if (n.url) parts.push(`<a href="${escapeHtml(n.url)}">${escapeHtml(n.url)}</a>`);
  return parts.join("<br>");
}

// The XML writer `feed` uses splits only the first "]]>" of a CDATA section and turns a literal
// "&amp;" in text back into "&": titles and handles pass through it with these stand-ins, which
// are put back in the finished XML. Both are control characters that no stored text contains
// (text.ts refuses them).
const CDATA_END = "\u0001";
const AMP = "\u0002";

function buildFeed(baseUrl: string, board: Board, notices: readonly Notice[], forXml: boolean): Feed {
  const updated = notices.reduce((m, n) => Math.max(m, n.updated_ms, n.created_ms), 0);
  const feed = new Feed({
    id: `${baseUrl}/v1/board/${board.id}`,
    title: board.title,
    description: board.description,
    link: `${baseUrl}/v1/board/${board.id}`,
    language: "en",
    updated: new Date(updated),
    generator: "Vigil",
    feedLinks: { rss: `${baseUrl}/v1/board/${board.id}/feed.xml`, json: `${baseUrl}/v1/board/${board.id}/feed.json` },
  });
  for (const n of notices) {
    const item: Item = {
      id: n.id,
      guid: n.id,
      title: forXml ? n.title.replaceAll("]]>", CDATA_END) : n.title,
      link: `${baseUrl}${noticePath(n.board, n.id)}`,
      date: new Date(n.updated_ms),
      published: new Date(n.created_ms),
      description: bodyHtml(n),
      author: [{ name: forXml ? n.handle.replaceAll("&", AMP) : n.handle }],
      category: n.tags.map((t) => ({ name: t })),
    };
    feed.addItem(item);
  }
  return feed;
}

export function renderRss(baseUrl: string, board: Board, notices: readonly Notice[]): string {
  return buildFeed(baseUrl, board, notices, true).rss2().replaceAll(CDATA_END, "]]]]><![CDATA[>").replaceAll(AMP, "&amp;");
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
  const doc = JSON.parse(buildFeed(baseUrl, board, notices, false).json1()) as Record<string, unknown> & { items: Record<string, unknown>[] };
  doc.version = "https://jsonfeed.org/version/1.1";
  doc.language = "en";
  const byId = new Map(notices.map((n) => [n.id, n]));
  doc.items = doc.items.map((item) => {
    const n = byId.get(String(item.id))!;
    const { author: _author, ...rest } = item;
    return {
      ...rest,
      content_text: n.body,
      authors: [{ name: n.handle }],
      ...(n.url ? { external_url: n.url } : {}),
      _board: { weight_atomic: n.weight_atomic, weight_usd: n.weight_usd, boosts_count: n.boosts_count, score_atomic: n.score_atomic },
    };
  });
  return JSON.stringify(doc, null, 2);
}
