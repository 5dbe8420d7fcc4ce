/**
 * The bounds and the hostile-input policy of a notice's fields, as zod
 * schemas. A notice is text, never markup: `Parse Vec<u8> & Map<K, V>` or
 * `from <script> tags` is what developers and agents write, so it is stored
 * exactly as given and escaped for wherever it is rendered (feeds.ts;
 * escapeHtml). Refused with a 400 naming the field:
 *   - over-long or empty fields (bounds below, counted in code points);
 *   - control characters (C0 other than tab and newline in the body, DEL, C1),
 *     bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069),
 *     which let a notice disguise what it says;
 *   - the noncharacters U+FFFE and U+FFFF, which XML cannot carry (the RSS
 *     feed would no longer parse);
 *   - bad UTF-8 (the decoder turns it into U+FFFD) and unpaired surrogates
 *     (a JSON `\ud800` escape), so every stored string is valid Unicode;
 *   - URLs other than http/https, or with user credentials.
 */
import { z } from "zod";

export const BOUNDS = {
  title: { min: 3, max: 160 },
  body: { min: 1, max: 1200 },
  handle: { min: 1, max: 48 },
  url: { max: 400 },
  contact: { min: 1, max: 140 },
  tags: { max: 5, tagMax: 24 },
} as const;

export const DEFAULT_HANDLE = "anon";

// Tab and newline are allowed where multi-line text is (checked separately).
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
// Not characters at all, and outside XML 1.0's Char production.
const NONCHARACTER = /[\uFFFE\uFFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text is refused, or null when it may be stored. */
export function textProblem(s: string, opts: { multiline: boolean }): string | null {
  if (s.includes("\uFFFD")) return "is not valid UTF-8 (contains U+FFFD)";
  if (LONE_SURROGATE.test(s)) return "contains an unpaired surrogate (not valid Unicode)";
  if (CONTROL.test(s)) return "contains a control character";
  if (!opts.multiline && /[\t\n]/.test(s)) return "must be one line (no tab or newline)";
  if (BIDI.test(s)) return "contains a bidirectional override character";
  if (NONCHARACTER.test(s)) return "contains a noncharacter (U+FFFE or U+FFFF)";
  return null;
}

const codePoints = (s: string) => [...s].length;

function text(bounds: { min?: number; max: number }, multiline: boolean) {
  return z
    .string()
    .superRefine((s, ctx) => {
      const n = codePoints(s);
      if (bounds.min !== undefined && s.trim().length === 0) ctx.addIssue({ code: "custom", message: "must not be blank" });
      else if (bounds.min !== undefined && n < bounds.min) ctx.addIssue({ code: "custom", message: `must be at least ${bounds.min} characters` });
      if (n > bounds.max) ctx.addIssue({ code: "custom", message: `must be at most ${bounds.max} characters` });
      const problem = textProblem(s, { multiline });
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    });
}

export const TitleSchema = text(BOUNDS.title, false);
export const BodySchema = text(BOUNDS.body, true);
export const HandleSchema = text(BOUNDS.handle, false);
export const ContactSchema = text(BOUNDS.contact, false);

export const UrlSchema = z.string().superRefine((s, ctx) => {
  if (codePoints(s) > BOUNDS.url.max) {
    ctx.addIssue({ code: "custom", message: `must be at most ${BOUNDS.url.max} characters` });
    return;
  }
  const problem = textProblem(s, { multiline: false });
  if (problem) {
    ctx.addIssue({ code: "custom", message: problem });
    return;
  }
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    ctx.addIssue({ code: "custom", message: "must be an absolute http:// or https:// URL" });
    return;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") ctx.addIssue({ code: "custom", message: "must use http or https" });
  else if (u.username || u.password) ctx.addIssue({ code: "custom", message: "must not carry user credentials" });
  else if (/\s/.test(s)) ctx.addIssue({ code: "custom", message: "must not contain spaces" });
});

export const TagsSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(BOUNDS.tags.tagMax)
      .regex(/^[a-z0-9-]+$/, "a tag is lower-case letters, digits and '-'"),
  )
  .max(BOUNDS.tags.max)
  .refine((tags) => new Set(tags).size === tags.length, "tags must be distinct");

/** Text for HTML (and HTML inside RSS): the five characters that matter, escaped. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
