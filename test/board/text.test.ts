/** The bounds of every notice field and the hostile-input policy, on the schemas the routes use. */
import { describe, expect, it } from "vitest";
import { BodySchema, BOUNDS, ContactSchema, escapeHtml, HandleSchema, TagsSchema, TitleSchema, UrlSchema } from "../../src/board/text.js";

const ok = (s: { safeParse(v: unknown): { success: boolean } }, v: unknown) => expect(s.safeParse(v).success, JSON.stringify(v)).toBe(true);
const bad = (s: { safeParse(v: unknown): { success: boolean } }, v: unknown) => expect(s.safeParse(v).success, JSON.stringify(v)).toBe(false);

describe("notice field bounds", () => {
  it.each([
    ["title", TitleSchema, BOUNDS.title.min, BOUNDS.title.max],
    ["body", BodySchema, BOUNDS.body.min, BOUNDS.body.max],
    ["handle", HandleSchema, BOUNDS.handle.min, BOUNDS.handle.max],
    ["contact", ContactSchema, BOUNDS.contact.min, BOUNDS.contact.max],
  ] as const)("%s: %i to %i characters, counted in code points", (_name, schema, min, max) => {
    ok(schema, "x".repeat(min));
    ok(schema, "x".repeat(max));
    bad(schema, "x".repeat(max + 1));
    if (min > 1) bad(schema, "x".repeat(min - 1));
    bad(schema, "");
    bad(schema, "   ");
    // Astral characters count once each.
    ok(schema, "🦀".repeat(max));
    bad(schema, "🦀".repeat(max + 1));
  });

  it("url: http/https only, at most 400 characters, no credentials", () => {
    ok(UrlSchema, "https://example.com/a?b=c&d=e");
    ok(UrlSchema, "http://example.com");
    ok(UrlSchema, `https://example.com/${"a".repeat(BOUNDS.url.max - 20)}`);
    bad(UrlSchema, `https://example.com/${"a".repeat(BOUNDS.url.max)}`);
    for (const u of ["javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,hi", "ftp://example.com", "//example.com", "example.com", "https://user:pw@example.com/", "https://exa mple.com"])
      bad(UrlSchema, u);
  });

  it("tags: at most 5, each 1 to 24 of [a-z0-9-], distinct", () => {
    ok(TagsSchema, []);
    ok(TagsSchema, ["a", "b-2", "c", "d", "x".repeat(24)]);
    bad(TagsSchema, ["a", "b", "c", "d", "e", "f"]);
    bad(TagsSchema, ["x".repeat(25)]);
    bad(TagsSchema, ["Upper"]);
    bad(TagsSchema, ["sp ace"]);
    bad(TagsSchema, [""]);
    bad(TagsSchema, ["a", "a"]);
  });
});

describe("hostile text", () => {
  it("takes text that looks like markup as text (it is escaped where it is rendered)", () => {
    for (const s of ["Parse Vec<u8> & Map<K, V>", "from <script> tags", "<script>alert(1)</script>", "hi <b>there</b>", "a </p>", "<!-- c -->", "<?xml ?>", "&lt;b&gt; &amp;", "a < b and c > d", "I <3 boards & feeds"]) {
      ok(TitleSchema, s);
      ok(BodySchema, s);
      ok(HandleSchema, s.slice(0, BOUNDS.handle.max));
    }
  });

  it("refuses the noncharacters U+FFFE and U+FFFF (XML cannot carry them)", () => {
    for (const s of ["end \uffff", "end \ufffe"]) {
      bad(TitleSchema, s);
      bad(BodySchema, s);
    }
    ok(TitleSchema, "object \ufffc replacement character");
  });

  it("refuses control characters, bidi overrides, bad UTF-8 and lone surrogates", () => {
    for (const s of ["bell\u0007", "nul\u0000x", "esc\u001b[31m", "del\u007f", "c1\u0085", "rtl\u202eevil", "iso\u2066x", "bad \uFFFD utf8", "lone \ud800 high", "lone \udc00 low"]) {
      bad(TitleSchema, s);
      bad(BodySchema, s);
    }
    ok(BodySchema, "two\nlines\tand a tab");
    bad(TitleSchema, "two\nlines");
    ok(TitleSchema, "emoji 🦀 pair");
  });

  it("escapeHtml escapes the five characters", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});
