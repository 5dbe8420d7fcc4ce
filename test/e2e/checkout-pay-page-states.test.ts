/**
 * Issue 23, item 9: "a pay page a buyer trusts". Outside testers found the
 * hosted pay page showing the expiry as a raw ISO timestamp, "Time left: -"
 * once a payment was seen, the amount without its trailing zeros (while the
 * instructions say its last six digits name the invoice), and /favicon.ico
 * answering 404.
 *
 * Here each state a buyer can meet is reached on the devnet the way a buyer
 * meets it (real invoices, real devnet payments found by the real scanner,
 * the merchant's real cancel, the service's clock past the TTL, a payment sent
 * after the expiry and one sent after the late-payment limit; a Zcash invoice
 * paid with its memo on the simulated Zcash chain) and rendered
 * in real headless Chromium on a 375 px phone screen. For every state (see
 * checkState): the status said in visible words (a title, not a colour
 * class), the same before and after a full-page screenshot (kept in
 * test-results/checkout-pay-page-states/…) that is one phone wide, has ink on
 * it and holds the status panel where the DOM has it; that panel differs, in
 * grey levels, from every other state's; nothing wider than the phone; zero
 * moderate, serious or critical axe-core violations; and not one request that
 * leaves the service's origin. No pixel baselines: every comparison is
 * between two screenshots of the same run. The service's clock runs 10 minutes ahead of the
 * browser's, as a buyer's phone clock may be wrong: the countdown still
 * counts the service's time.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expireInvoices } from "../../src/checkout/invoices.js";
import { formatAtomic, UNITS } from "../../src/core/money.js";
import { createWatch } from "../../src/watch/service.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CHROMIUM = "/usr/bin/chromium";
const AXE = path.resolve(import.meta.dirname, "../../node_modules/axe-core/axe.min.js");
const OUT = path.resolve(import.meta.dirname, "../../test-results/checkout-pay-page-states", process.env.DATABASE_URL ? "postgres" : "pglite");
const CONFIRMATIONS = 2;
const PHONE = { width: 375, height: 740 };
const SCALE = 2;
/** How far the service's clock runs ahead of the browser's. */
const SKEW_MS = 10 * 60_000;

let s: WatchStack;
let browser: Browser;
let merchant: { watchId: string; watchToken: string };
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: String(CONFIRMATIONS), ZCASH_CONFIRMATIONS: String(CONFIRMATIONS) } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
  });
  fs.mkdirSync(OUT, { recursive: true });
  // Credit for a day of watching, the webhooks and a settlement fee per paid invoice (USD 1: ten times a new watch's).
  merchant = await s.openMoneroWatch("alice", "/pay-states", { credit: 1_000_000n });
  s.advance(SKEW_MS);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

interface Invoice {
  invoiceId: string;
  payTo: string;
  memo: string | null;
  uri: string;
  payUrl: string;
  amount: { atomic: string; display: string; coin: string };
  expiresAt: string;
  latePaymentUntil: string;
  orderId: string | null;
}

async function createInvoice(body: Record<string, unknown>, by: { watchId: string; watchToken: string } = merchant): Promise<Invoice> {
  const r = await s.call("POST", "/v1/checkout/invoices", { body: { watchId: by.watchId, watchToken: by.watchToken, ...body } });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json as Invoice;
}

/**
 * A pattern of "12 Mar 2025, 14:05": the en-GB medium date and short time of an instant in UTC, built
 * from the ISO string (not by the page's toLocaleString); the month's abbreviation is left open.
 */
function utcDate(iso: string): string {
  const d = new Date(iso);
  return `${d.getUTCDate()} [A-Z][a-z]{2,3} ${d.getUTCFullYear()}, ${iso.slice(11, 16)}`;
}

/** Every digit of a Monero amount, from its atomic units (money.ts, not the page's code). */
const exactXmr = (atomic: string) => formatAtomic(BigInt(atomic), UNITS.xmr, { fixed: true });
/** Every digit of a Zcash amount: zatoshi, 10^8 to the ZEC. */
const exactZec = (atomic: string) => formatAtomic(BigInt(atomic), UNITS.zec, { fixed: true });
/** A decimal ZEC string (as in a ZIP 321 `amount=`) in zatoshi, by string: no float. */
function zatoshiOf(zec: string): bigint {
  const [whole, frac = ""] = zec.split(".");
  expect(frac.length).toBeLessThanOrEqual(8);
  return BigInt(whole!) * 100_000_000n + BigInt(frac.padEnd(8, "0"));
}

interface PayPage {
  page: Page;
  /** Every URL the page asked for, since it opened. */
  requests: string[];
  close(): Promise<void>;
}

/** The invoice's payUrl on a phone: 375 px wide, two device pixels per CSS pixel, touch. */
async function openPayPage(inv: Invoice, opts: BrowserContextOptions = {}): Promise<PayPage> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: SCALE, isMobile: true, hasTouch: true, ...opts });
  const requests: string[] = [];
  context.on("request", (r) => requests.push(r.url()));
  const page = await context.newPage();
  await page.goto(inv.payUrl);
  return { page, requests, close: () => context.close() };
}

const statusIs = (page: Page, status: string, hasText?: string) =>
  page
    .locator(`#status[data-status="${status}"]`)
    .filter(hasText ? { hasText } : {})
    .waitFor({ timeout: 20_000 });

/** A screenshot in grey levels (ITU-R BT.709 luma, 0–255), one byte a pixel. */
interface Gray {
  width: number;
  height: number;
  luma: Uint8Array;
}

/**
 * Decodes the PNG a screenshot is (8-bit RGB or RGBA, not interlaced, as Chromium writes them) with
 * zlib and the five PNG filters (RFC 2083), to grey levels. Colour is left out on purpose: what a
 * comparison finds then is a difference a reader who sees no colour sees too.
 */
function decodeGray(png: Buffer): Gray {
  expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "a PNG").toBe(true);
  let width = 0, height = 0, channels = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const len = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    if (type === "IHDR") {
      [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)];
      expect([data[8], data[10], data[11], data[12]], "8-bit, deflate, standard filters, not interlaced").toEqual([8, 0, 0, 0]);
      channels = data[9] === 2 ? 3 : data[9] === 6 ? 4 : 0;
      expect(channels, `colour type ${data[9]}`).toBeGreaterThan(0);
    } else if (type === "IDAT") idat.push(data);
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  expect(raw.length).toBe((stride + 1) * height);
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const i = y * stride + x;
      const a = x >= channels ? px[i - channels]! : 0;
      const b = y > 0 ? px[i - stride]! : 0;
      const c = x >= channels && y > 0 ? px[i - stride - channels]! : 0;
      const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter]!;
      px[i] = (raw[y * (stride + 1) + 1 + x]! + predictor) & 0xff;
    }
  }
  const luma = new Uint8Array(width * height);
  for (let i = 0; i < luma.length; i++) luma[i] = Math.round(0.2126 * px[i * channels]! + 0.7152 * px[i * channels + 1]! + 0.0722 * px[i * channels + 2]!);
  return { width, height, luma };
}

/** A rectangle of a grey image (clamped to it). */
function crop(g: Gray, x: number, y: number, w: number, h: number): Gray {
  [x, y] = [Math.max(0, x), Math.max(0, y)];
  [w, h] = [Math.min(w, g.width - x), Math.min(h, g.height - y)];
  const luma = new Uint8Array(w * h);
  for (let r = 0; r < h; r++) luma.set(g.luma.subarray((y + r) * g.width + x, (y + r) * g.width + x + w), r * w);
  return { width: w, height: h, luma };
}

/** The share of pixels, over the area both images cover from their top left, whose grey levels differ by more than `by`. */
function differing(a: Gray, b: Gray, by = 48): number {
  const w = Math.min(a.width, b.width), h = Math.min(a.height, b.height);
  let n = 0;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (Math.abs(a.luma[y * a.width + x]! - b.luma[y * b.width + x]!) > by) n++;
  return n / (w * h);
}

/**
 * How closely `part` is found in `whole` near (x, y): the least `differing` over the positions up to
 * `slack` pixels off (an element's box in CSS pixels lands on device pixels by rounding of its own).
 */
function foundNear(whole: Gray, part: Gray, x: number, y: number, slack = 3): number {
  let best = 1;
  for (let dy = -slack; dy <= slack; dy++)
    for (let dx = -slack; dx <= slack; dx++) {
      if (x + dx < 0 || y + dy < 0 || x + dx + part.width > whole.width || y + dy + part.height > whole.height) continue;
      best = Math.min(best, differing(crop(whole, x + dx, y + dy, part.width, part.height), part));
    }
  return best;
}

/** The share of pixels dark enough to be ink on the page's white (text, borders, the QR code). */
function ink(g: Gray): number {
  let n = 0;
  for (const v of g.luma) if (v < 160) n++;
  return n / g.luma.length;
}

/** What each status panel must say in words (the title), whatever its colours. */
const TITLE = {
  pending: "Waiting for payment",
  confirming: (seen: number) => `Payment seen, confirming: ${seen} of ${CONFIRMATIONS} confirmations`,
  paid: "Paid",
  underpaid: "Underpaid: less than the amount arrived",
  cancelled: "Cancelled by the merchant",
  expired: "Expired: no payment arrived in time",
  closed: "Expired: this invoice no longer takes payments",
};

/** Each state checked so far: its status, the words of its panel, and the panel as screenshotted. */
const shots: { name: string; status: string; title: string; text: string; panel: Gray }[] = [];

/**
 * Elements that stick out of the viewport sideways, or whose content (a long address, say) sticks out
 * of them, shown or clipped; the visually hidden .sr-only ones aside (clipped to 1 px on purpose).
 */
const SIDEWAYS = `[...document.querySelectorAll("body *")]
  .filter((e) => e.getClientRects().length > 0 && !e.closest(".sr-only"))
  .filter((e) => { const r = e.getBoundingClientRect(); return r.left < -0.5 || r.right > innerWidth + 0.5 || (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1); })
  .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " right " + Math.round(e.getBoundingClientRect().right) + ", content " + e.scrollWidth + " in " + e.clientWidth)`;

/** The panel's box in CSS pixels of the whole page. */
const PANEL_BOX = `(() => { const r = document.getElementById("state").getBoundingClientRect(); return { x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height }; })()`;

/**
 * The checks every state gets. The DOM says the expected status in words (a visible title, not only a
 * colour class), before and after the screenshots, so they show that state; the full-page screenshot
 * is one phone wide, has ink on it, and holds the very status panel screenshotted alone; that panel
 * differs, in grey levels, from the panel of every state checked before whose words differ; nothing
 * sticks out of the phone's width; no moderate, serious or critical axe-core finding; no request off
 * the service's origin.
 */
async function checkState(p: PayPage, name: string, want: { status: string; title: string }): Promise<void> {
  const { page } = p;
  const title = page.locator("#status-title");
  const shown = async () => ({ status: await page.locator("#status").getAttribute("data-status"), title: await title.innerText(), text: await page.locator("#status").innerText() });
  const before = await shown();
  expect({ status: before.status, title: before.title }).toEqual(want);
  // Words a sighted reader sees: laid out at reading size, not the 1 px of a visually hidden text.
  const titleBox = (await title.boundingBox())!;
  expect(titleBox.width).toBeGreaterThan(20);
  expect(titleBox.height).toBeGreaterThan(14);

  const png = await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true, animations: "disabled", caret: "hide" });
  const panelPng = await page.locator("#state").screenshot({ animations: "disabled", caret: "hide" });
  const box = (await page.evaluate(PANEL_BOX)) as { x: number; y: number; w: number; h: number };
  expect(await shown(), "the same state after the screenshots as before").toEqual(before);

  const full = decodeGray(png);
  expect(full.width, "one phone wide").toBe(PHONE.width * SCALE);
  expect(ink(full), "a page with something on it").toBeGreaterThan(0.01);
  const panel = decodeGray(panelPng);
  expect(ink(panel), "a status panel with words in it").toBeGreaterThan(0.01);
  // The full-page screenshot shows this panel where the DOM has it (a little antialiasing aside).
  // The panel alone is the size the DOM gives it (to a CSS pixel or two of rounding), and found in the whole page where the DOM has it.
  expect(Math.abs(panel.width - box.w * SCALE)).toBeLessThanOrEqual(2 * SCALE);
  expect(Math.abs(panel.height - box.h * SCALE)).toBeLessThanOrEqual(2 * SCALE);
  expect(foundNear(full, panel, Math.round(box.x * SCALE), Math.round(box.y * SCALE)), "the full-page screenshot holds the panel screenshotted alone").toBeLessThan(0.005);
  for (const prev of shots) {
    if (prev.status !== want.status) expect(prev.title, `${prev.name} and ${name} tell their status apart in words`).not.toBe(want.title);
    // Another state (another title): other pixels, at least 2 % of them (here 4–19 %; a panel the page failed to redraw: 0).
    // The same title over other details (another amount, a late payment): some other pixels all the same.
    const unlike = differing(prev.panel, panel);
    if (prev.title !== want.title) expect(unlike, `${name} looks different from ${prev.name}`).toBeGreaterThan(0.02);
    else if (prev.text !== before.text) expect(unlike, `${name} shows other details than ${prev.name}`).toBeGreaterThan(0.001);
  }
  shots.push({ name, status: want.status, title: want.title, text: before.text, panel });

  expect(await page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), "no horizontal scroll on a 375 px screen").toBe(true);
  expect(await page.evaluate(SIDEWAYS), "nothing wider than the phone").toEqual([]);

  if (!(await page.evaluate("typeof window.axe !== 'undefined'"))) await page.addScriptTag({ path: AXE });
  const axe = (await page.evaluate(
    "axe.run(document).then((r) => ({ passes: r.passes.length, violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })) }))",
  )) as { passes: number; violations: { id: string; impact: string | null; nodes: string[] }[] };
  expect(axe.passes, "axe checked the page").toBeGreaterThan(10);
  expect(axe.violations.filter((v) => v.impact === "moderate" || v.impact === "serious" || v.impact === "critical")).toEqual([]);

  const origin = new URL(s.t.url).origin;
  expect(p.requests.length).toBeGreaterThan(0);
  // data: URIs (the inline icon) never leave the browser; everything else must be the service's own.
  expect(p.requests.filter((u) => !u.startsWith("data:") && new URL(u).origin !== origin)).toEqual([]);
}

describe("the pay page in each state a buyer can meet", () => {
  it("pending: every digit of the amount, the USD price, local times, and a countdown by the service's clock that says what happens at 0:00", async () => {
    // Keep creating until an amount ends in 0, the digit the page used to drop (the tag is random, 1 in 10).
    let inv = await createInvoice({ amountUsdCents: 1234, description: "Two mugs", orderId: "A-1001" });
    for (let i = 0; i < 100 && !inv.amount.atomic.endsWith("0"); i++) inv = await createInvoice({ amountUsdCents: 1234, description: "Two mugs", orderId: "A-1001" });
    expect(inv.amount.atomic.endsWith("0")).toBe(true);
    const exact = exactXmr(inv.amount.atomic);
    expect(exact).toMatch(/^\d+\.\d{12}$/);
    expect(exact).not.toBe(inv.amount.display);

    // A buyer in Tokyo with a German phone.
    const p = await openPayPage(inv, { locale: "de-DE", timezoneId: "Asia/Tokyo" });
    const { page } = p;
    await statusIs(page, "pending", "Waiting for payment");
    expect(await page.locator("#amount").textContent()).toBe(`${exact} XMR`);
    expect(await page.locator("#amount .tag").textContent()).toBe(exact.slice(-6));
    expect(await page.locator("#amount-hint").textContent()).toContain(exact.slice(-6));
    expect(await page.locator("#fiat").textContent()).toContain("USD 12.34");

    // Local time: Tokyo is UTC+9 all year; the ISO string is not shown.
    const tokyo = new Date(Date.parse(inv.expiresAt) + 9 * 3_600_000).toISOString().slice(11, 16);
    const expires = (await page.locator("#expires").textContent())!;
    expect(expires).toContain(tokyo);
    expect(expires).not.toContain(inv.expiresAt.slice(0, 16));
    expect(await page.locator("#expires").getAttribute("datetime")).toBe(inv.expiresAt);
    expect(await page.locator("body").textContent()).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);

    // 30 minutes by the service's clock, although the browser's clock is 10 minutes behind it.
    expect(await page.locator("#countdown").textContent()).toMatch(/^(29|30):\d\d$/);
    const note = (await page.locator("#countdown-note").textContent())!;
    expect(note).toContain("expires");
    expect(note).toContain("ask the merchant for a new invoice");
    expect(note).toContain(tokyo);
    await expect(page.getByRole("timer", { name: "Time left" }).isVisible()).resolves.toBe(true);

    await page.waitForFunction('document.getElementById("qr").complete && document.getElementById("qr").naturalWidth > 0');
    await checkState(p, "1-pending", { status: "pending", title: TITLE.pending });
    expect(p.requests.some((u) => u.endsWith("/qr.svg"))).toBe(true);
    await p.close();
  }, 120_000);

  it("confirming shows the confirmations as x of y and a progress bar; paid follows, with what was received", async () => {
    const inv = await createInvoice({ amountUsdCents: 999 });
    const p = await openPayPage(inv);
    const { page } = p;
    await statusIs(page, "pending");

    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    s.devnet.monerod.mine(1);
    await s.nextTick();
    await statusIs(page, "confirming", "1 of 2 confirmations");
    expect(await page.locator("#progress").getAttribute("value")).toBe("1");
    expect(await page.locator("#progress").getAttribute("max")).toBe("2");
    await expect(page.getByRole("progressbar", { name: "Confirmations" }).isVisible()).resolves.toBe(true);
    expect(await page.locator("#status").textContent()).toContain("The time limit no longer applies");
    // No way to pay twice while the first payment confirms, and no "Time left: -".
    expect(await page.locator("#pay").isVisible()).toBe(false);
    expect(await page.locator("#received").textContent()).toBe(`${exactXmr(inv.amount.atomic)} XMR`);
    await checkState(p, "2-confirming", { status: "confirming", title: TITLE.confirming(1) });

    s.devnet.monerod.mine(1);
    await s.nextTick();
    await statusIs(page, "paid", "Paid");
    expect(await page.locator("#status").textContent()).toContain(`Received ${exactXmr(inv.amount.atomic)} XMR`);
    await checkState(p, "3-paid", { status: "paid", title: TITLE.paid });
    await p.close();
  }, 120_000);

  it("underpaid: warned while confirming, then told not to send the rest and to contact the merchant", async () => {
    const inv = await createInvoice({ amountUsdCents: 500, orderId: "A-1002" });
    const p = await openPayPage(inv);
    const { page } = p;
    await statusIs(page, "pending");
    // The same tag (last six digits), one whole 0.000001 XMR short.
    const short = BigInt(inv.amount.atomic) - 1_000_000n;
    s.devnet.monerod.send(inv.payTo, short);
    await s.nextTick();
    await statusIs(page, "confirming", "less than");
    await checkState(p, "4-confirming-short", { status: "confirming", title: TITLE.confirming(0) });

    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await statusIs(page, "underpaid", "Underpaid");
    const text = (await page.locator("#status").textContent())!;
    expect(text).toContain(`Received ${exactXmr(short.toString())} XMR of the ${exactXmr(inv.amount.atomic)} XMR asked`);
    expect(text).toContain("Do not send the rest");
    expect(text).toContain("Contact the merchant");
    expect(text).toContain("A-1002");
    expect(await page.locator("#pay").isVisible()).toBe(false);
    await checkState(p, "5-underpaid", { status: "underpaid", title: TITLE.underpaid });
    await p.close();
  }, 120_000);

  it("a Zcash invoice: every zatoshi digit in ZEC, the memo, the ZIP 321 wallet link; then x of y confirmations on the simulated Zcash chain, and paid", async () => {
    const chain = s.devnet.zcashChain!;
    const bob = s.devnet.zcashWallets().find((w) => w.label === "bob")!;
    const shop = await createWatch({
      ctx: { deps: s.t.app.watch, db: s.t.db.db },
      input: { chain: "zcash", address: bob.address, viewKey: bob.ufvk, webhookUrl: s.receiver.hookUrl("/pay-states-zec"), birthdayHeight: chain.tip().height },
      opening: { creditAtomic: 1_000_000n, funding: "usdc" },
    });
    await s.nextTick();
    // Until an amount ends in 0 (its tag is the last three digits, random): the digit a shortened amount would drop.
    const body = { amountUsdCents: 1234, description: "Green tea", orderId: "Z-1001" };
    let inv = await createInvoice(body, shop);
    for (let i = 0; i < 100 && !inv.amount.atomic.endsWith("0"); i++) inv = await createInvoice(body, shop);
    expect(inv.amount.atomic.endsWith("0")).toBe(true);
    expect(inv.amount.coin).toBe("ZEC");
    const exact = exactZec(inv.amount.atomic);
    expect(exact).toMatch(/^\d+\.\d{8}$/);
    expect(BigInt(exact.replace(".", ""))).toBe(BigInt(inv.amount.atomic)); // the digits shown are the zatoshi, all of them
    expect(inv.memo).toMatch(/^vigil-[A-Z2-7]{16}$/);

    const p = await openPayPage(inv);
    const { page } = p;
    await statusIs(page, "pending", "Waiting for payment");
    expect(await page.locator("#amount").textContent()).toBe(`${exact} ZEC`);
    expect(await page.locator("#amount .tag").textContent()).toBe(exact.slice(-3));
    const hint = await page.locator("#amount-hint").textContent();
    expect(hint).toContain(`the last three (${exact.slice(-3)}`);
    expect(hint).toContain("memo");
    expect(await page.locator("#fiat").textContent()).toContain("USD 12.34");
    expect(await page.locator("#memo").textContent()).toBe(inv.memo);
    await expect(page.getByRole("button", { name: "Copy memo" }).isVisible()).resolves.toBe(true);
    const steps = await page.locator("#steps").innerText();
    expect(steps).toContain(`Send exactly ${exact} ZEC`);
    expect(steps).toContain(`Put the memo ${inv.memo} in the payment`);
    expect(steps).toContain(`after ${CONFIRMATIONS} confirmations`);

    // The wallet link is the invoice's ZIP 321 URI: this address, this amount to the zatoshi, the memo in base64url, the description.
    const href = (await page.getByRole("link", { name: "Open in wallet" }).getAttribute("href"))!;
    expect(href).toBe(inv.uri);
    const uri = new URL(href);
    expect(uri.protocol).toBe("zcash:");
    expect(uri.pathname).toBe(inv.payTo);
    expect(zatoshiOf(uri.searchParams.get("amount")!)).toBe(BigInt(inv.amount.atomic));
    expect(Buffer.from(uri.searchParams.get("memo")!, "base64url").toString("utf8")).toBe(inv.memo);
    expect(uri.searchParams.get("message")).toBe("Green tea");
    await page.waitForFunction('document.getElementById("qr").complete && document.getElementById("qr").naturalWidth > 0');
    await checkState(p, "zec-1-pending", { status: "pending", title: TITLE.pending });

    // The buyer's shielded payment with the memo, mined one block at a time.
    chain.send(inv.payTo, BigInt(inv.amount.atomic), inv.memo!);
    chain.mine(1);
    await s.nextTick();
    await statusIs(page, "confirming", `1 of ${CONFIRMATIONS} confirmations`);
    expect(await page.locator("#progress").getAttribute("value")).toBe("1");
    expect(await page.locator("#progress").getAttribute("max")).toBe(String(CONFIRMATIONS));
    expect(await page.locator("#progress-text").textContent()).toBe(`1 of ${CONFIRMATIONS} confirmations`);
    expect(await page.locator("#status").innerText()).toContain(`A payment of ${exact} ZEC has been seen`);
    expect(await page.locator("#pay").isVisible()).toBe(false);
    await checkState(p, "zec-2-confirming", { status: "confirming", title: TITLE.confirming(1) });

    chain.mine(1);
    await s.nextTick();
    await statusIs(page, "paid", "Paid");
    expect(await page.locator("#status").innerText()).toContain(`Received ${exact} ZEC`);
    expect(await page.locator("#received").textContent()).toBe(`${exact} ZEC`);
    await checkState(p, "zec-3-paid", { status: "paid", title: TITLE.paid });
    await p.close();
  }, 120_000);

  it("cancelled by the merchant while the page is open", async () => {
    const inv = await createInvoice({ amountUsdCents: 700 });
    const p = await openPayPage(inv);
    const { page } = p;
    await statusIs(page, "pending");
    const r = await s.call("DELETE", `/v1/checkout/invoices/${inv.invoiceId}`, { token: merchant.watchToken });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    await statusIs(page, "cancelled", "Cancelled by the merchant");
    expect(await page.locator("#status").textContent()).toContain("Do not send a payment to this invoice");
    expect(await page.locator("#pay").isVisible()).toBe(false);
    await checkState(p, "6-cancelled", { status: "cancelled", title: TITLE.cancelled });
    await p.close();
  }, 120_000);

  it("expired: warned a minute before; then do not send to it, and a payment already sent still counts until the local time shown", async () => {
    const inv = await createInvoice({ amountUsdCents: 300, ttlMinutes: 5 });
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: SCALE, isMobile: true, hasTouch: true, locale: "en-GB", timezoneId: "UTC" });
    const requests: string[] = [];
    context.on("request", (r) => requests.push(r.url()));
    const page = await context.newPage();
    await page.clock.install(); // the browser's clock, to let it run ahead below
    await page.goto(inv.payUrl);
    const p: PayPage = { page, requests, close: () => context.close() };
    await statusIs(page, "pending");
    // One minute before the end, a screen reader is told once.
    await page.clock.fastForward("04:05");
    await page.locator("#countdown-alert").filter({ hasText: "One minute left" }).waitFor({ timeout: 10_000 });
    s.advance(5 * 60_000);
    await statusIs(page, "expired", "Expired");
    const text = (await page.locator("#status").textContent())!;
    expect(text).toContain("Do not send a payment to it now");
    expect(text).toContain("ask the merchant for a new invoice");
    expect(text).toContain(`still counts`);
    expect(text).toContain(inv.latePaymentUntil.slice(11, 16)); // UTC wall clock, in the buyer's (en-GB) form
    expect(await page.locator("#pay").isVisible()).toBe(false);
    await checkState(p, "7-expired", { status: "expired", title: TITLE.expired });
    await p.close();
  }, 120_000);

  it("late payment: sent after the invoice expired but before its late-payment limit, it counts; the page says it arrived late, that it counts, then paid", async () => {
    const inv = await createInvoice({ amountUsdCents: 350, ttlMinutes: 5, orderId: "A-1003" });
    const p = await openPayPage(inv, { locale: "en-GB", timezoneId: "UTC" });
    const { page } = p;
    await statusIs(page, "pending");
    s.advance(5 * 60_000);
    // The expiry job, as a worker runs it every 15 s: the invoice is marked expired (invoice_expired queued).
    expect((await expireInvoices(s.t.app.checkout, s.t.db.db)).expired).toBeGreaterThanOrEqual(1);
    await statusIs(page, "expired", "no payment arrived in time");

    // Now the buyer's wallet sends the exact amount: after the expiry, well before the limit (expiry + 24 h).
    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    await s.nextTick();
    const seen = (await s.call("GET", `/v1/checkout/invoices/${inv.invoiceId}`)).json;
    expect(seen).toMatchObject({ status: "confirming", received: { atomic: inv.amount.atomic } });
    expect(Date.parse(seen.seenAt)).toBeGreaterThan(Date.parse(inv.expiresAt));
    expect(Date.parse(seen.seenAt)).toBeLessThan(Date.parse(inv.latePaymentUntil));
    await statusIs(page, "confirming", "after the invoice expired");
    const confirming = await page.locator("#status").innerText();
    expect(confirming).toContain(`A payment of ${exactXmr(inv.amount.atomic)} XMR has been seen`);
    expect(confirming).toContain("still counts for this invoice, at the price held");
    // en-GB in UTC: the expiry and the limit at their UTC wall-clock times.
    expect(confirming).toMatch(new RegExp(`expired \\(${utcDate(inv.expiresAt)}\\)`));
    expect(confirming).toMatch(new RegExp(`late-payment limit \\(${utcDate(inv.latePaymentUntil)}\\)`));
    expect(confirming).toContain("there is nothing more to do");
    expect(await page.locator("#pay").isVisible()).toBe(false);
    expect(await page.locator("#timer-box").isVisible()).toBe(false);
    await checkState(p, "8-late-confirming", { status: "confirming", title: TITLE.confirming(0) });

    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await statusIs(page, "paid", "Paid");
    const paid = await page.locator("#status").innerText();
    expect(paid).toContain(`Received ${exactXmr(inv.amount.atomic)} XMR`);
    expect(paid).toContain("this invoice is settled");
    expect(paid).toContain("after the invoice expired");
    await checkState(p, "9-late-paid", { status: "paid", title: TITLE.paid });
    await p.close();
    // The merchant was told the same story: expired, then seen, then paid.
    const events = s.receiver.deliveries(merchant.watchId).filter((d) => d.body?.invoiceId === inv.invoiceId).map((d) => d.event);
    expect(events).toEqual(["invoice_expired", "invoice_seen", "invoice_paid"]);
  }, 120_000);

  it("a payment after the late-payment limit does not count: the page says so, where the money went, and what to do", async () => {
    const inv = await createInvoice({ amountUsdCents: 375, ttlMinutes: 5, orderId: "A-1004" });
    const p = await openPayPage(inv, { locale: "en-GB", timezoneId: "UTC" });
    const { page } = p;
    await statusIs(page, "pending");
    // A minute past the limit. No expiry job runs here (as on a service whose worker was down): the row
    // is still pending in the database, and a payment must not count for it all the same.
    s.advance(Date.parse(inv.latePaymentUntil) + 60_000 - s.clock.now());
    await statusIs(page, "expired", "no longer takes payments");
    const closed = await page.locator("#status").innerText();
    expect(closed).toMatch(new RegExp(`stopped taking late payments on ${utcDate(inv.latePaymentUntil)}\\.`));
    expect(closed).toContain("Do not send a payment to it; ask the merchant for a new invoice");
    expect(closed).toContain("does not count for this invoice");
    expect(closed).toContain("went to the merchant's own wallet");
    expect(closed).toContain("contact the merchant with your payment's transaction id");
    expect(closed).toContain("A-1004");
    expect(await page.locator("#pay").isVisible()).toBe(false);

    // The buyer pays anyway; the payment confirms in the merchant's wallet.
    const hooksBefore = s.receiver.deliveries(merchant.watchId).length;
    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    const after = (await s.call("GET", `/v1/checkout/invoices/${inv.invoiceId}`)).json;
    expect(after).toMatchObject({ status: "expired", received: null, seenAt: null, latePaymentInSeconds: 0 });
    // What the page says is true: the watch reports the money as an ordinary balance change, and no invoice event names this invoice.
    const hooks = s.receiver.deliveries(merchant.watchId).slice(hooksBefore);
    expect(hooks.filter((d) => d.event === "balance_change").map((d) => (d.body as { delta: { balance_atomic: string } }).delta.balance_atomic)).toContain(inv.amount.atomic);
    expect(s.receiver.deliveries(merchant.watchId).filter((d) => d.body?.invoiceId === inv.invoiceId)).toEqual([]);
    // Nothing can change now, so the page stopped asking; a reload (a buyer coming back) reads the same.
    await page.reload();
    await statusIs(page, "expired", "no longer takes payments");
    await checkState(p, "10-expired-closed", { status: "expired", title: TITLE.closed });
    await p.close();
  }, 120_000);

  it("/favicon.ico answers 200 with the icon the page carries inline", async () => {
    const r = await fetch(`${s.t.url}/favicon.ico`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    const svg = await r.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);

    const page = await browser.newPage();
    const res = await page.goto(`${s.t.url}/favicon.ico`);
    expect(res?.status()).toBe(200);
    await page.goto(`${s.t.url}/pay/#00000000-0000-4000-8000-000000000000`);
    const icon = await page.locator('link[rel="icon"]').getAttribute("href");
    expect(decodeURIComponent(icon!.replace(/^data:image\/svg\+xml,/, ""))).toBe(svg);
    await page.close();
  }, 60_000);
});
