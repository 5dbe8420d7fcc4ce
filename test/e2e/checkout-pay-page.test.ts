/**
 * The hosted pay page in real headless Chromium (Debian's chromium, driven by
 * playwright-core) against the devnet: open the invoice's payUrl, see the
 * amount and address, pay with a devnet send, mine, tick, and watch the page
 * turn to paid and redirect to successUrl; the QR code, decoded from a
 * screenshot, is the invoice's wallet URI. Screenshots are kept in
 * test-results/checkout-pay-page/{pglite,postgres}/.
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatAtomic, UNITS } from "../../src/core/money.js";
import { CREATE_CREDIT } from "../../src/watch/meter.js";
import { createWatch } from "../../src/watch/service.js";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

const CHROMIUM = "/usr/bin/chromium";
const JSQR = path.resolve(import.meta.dirname, "../../node_modules/jsqr/dist/jsQR.js");
// One folder per store, so the PGlite and PostgreSQL passes may run side by side.
const OUT = path.resolve(import.meta.dirname, "../../test-results/checkout-pay-page", process.env.DATABASE_URL ? "postgres" : "pglite");
const CONFIRMATIONS = 2;

let s: WatchStack;
let browser: Browser;
beforeAll(async () => {
  s = await startWatchStack({ https: false, env: { MONERO_CONFIRMATIONS: String(CONFIRMATIONS), ZCASH_CONFIRMATIONS: String(CONFIRMATIONS) } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"],
  });
  fs.mkdirSync(OUT, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

/** Decodes a QR code from PNG bytes: Chromium decodes the image, jsQR reads the code. */
async function decodeQr(png: Buffer): Promise<string | null> {
  const page = await browser.newPage();
  try {
    await page.addScriptTag({ path: JSQR });
    // Runs in the page (the test's TypeScript has no DOM types, hence a string).
    const read = `(async (dataUrl) => {
      const img = new Image();
      img.src = dataUrl;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const g = canvas.getContext("2d");
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, canvas.width, canvas.height);
      const found = window.jsQR(data.data, data.width, data.height);
      return found ? found.data : null;
    })(${JSON.stringify(`data:image/png;base64,${png.toString("base64")}`)})`;
    return (await page.evaluate(read)) as string | null;
  } finally {
    await page.close();
  }
}

describe("the hosted pay page", () => {
  it("shows the invoice, follows its status to paid, and redirects to successUrl", async () => {
    const alice = s.wallets.find((w) => w.label === "alice")!;
    const m = await createWatch({
      ctx: { deps: s.t.app.watch, db: s.t.db.db },
      input: { chain: "monero", address: alice.address, viewKey: alice.viewKey!, webhookUrl: s.receiver.hookUrl("/pay-page") },
      opening: { creditAtomic: CREATE_CREDIT, funding: "usdc" },
    });
    const successUrl = s.receiver.hookUrl("/thanks");
    const r = await s.call("POST", "/v1/checkout/invoices", { body: { watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 999, description: "A <b>teapot</b>", successUrl } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const inv = r.json;

    const page = await browser.newPage({ viewport: { width: 390, height: 844 } }); // a phone-sized screen
    await page.goto(inv.payUrl);
    await page.getByRole("status").filter({ hasText: "Waiting for payment" }).waitFor({ timeout: 15_000 });
    // Every digit, trailing zeros included (amount.display drops them).
    expect(await page.locator("#amount").textContent()).toBe(`${formatAtomic(BigInt(inv.amount.atomic), UNITS.xmr, { fixed: true })} XMR`);
    expect(await page.locator("#payTo").textContent()).toBe(inv.payTo);
    // Text, never markup: the description is shown as typed.
    expect(await page.locator("#description").textContent()).toBe("A <b>teapot</b>");
    expect(await page.locator("#description b").count()).toBe(0);
    expect(await page.locator("#uri").getAttribute("href")).toBe(inv.uri);
    await expect(page.getByRole("button", { name: "Copy address" }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(OUT, "1-pending.png") });

    // The QR code, read back from a screenshot of the page, is the wallet URI.
    const qr = page.getByRole("img", { name: "QR code of the wallet link" });
    await qr.waitFor({ timeout: 15_000 });
    await page.waitForFunction('document.getElementById("qr").complete && document.getElementById("qr").naturalWidth > 0');
    const shot = await qr.screenshot({ path: path.join(OUT, "1-qr.png") });
    expect(await decodeQr(shot)).toBe(inv.uri);

    s.devnet.monerod.send(inv.payTo, BigInt(inv.amount.atomic));
    await s.nextTick();
    await page.getByRole("status").filter({ hasText: "Payment seen, confirming" }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(OUT, "2-confirming.png") });

    s.devnet.monerod.mine(CONFIRMATIONS);
    await s.nextTick();
    await page.getByRole("status").filter({ hasText: "Paid" }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(OUT, "3-paid.png") });
    await page.waitForURL(successUrl, { timeout: 15_000 });
    await page.close();
  }, 120_000);

  it("a Zcash invoice: shows the memo, its QR code is the ZIP 321 URI, and it turns paid", async () => {
    const bob = s.devnet.zcashWallets().find((w) => w.label === "bob")!;
    const chain = s.devnet.zcashChain!;
    const m = await createWatch({
      ctx: { deps: s.t.app.watch, db: s.t.db.db },
      input: { chain: "zcash", address: bob.address, viewKey: bob.ufvk, webhookUrl: s.receiver.hookUrl("/pay-page-zec"), birthdayHeight: chain.tip().height },
      opening: { creditAtomic: CREATE_CREDIT, funding: "usdc" },
    });
    await s.nextTick();
    const r = await s.call("POST", "/v1/checkout/invoices", { body: { watchId: m.watchId, watchToken: m.watchToken, amountUsdCents: 450, description: "Oolong" } });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const inv = r.json;
    // A phone: narrow, and two device pixels per CSS pixel.
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await page.goto(inv.payUrl);
    await page.getByRole("status").filter({ hasText: "Waiting for payment" }).waitFor({ timeout: 15_000 });
    expect(await page.locator("#amount").textContent()).toBe(`${formatAtomic(BigInt(inv.amount.atomic), UNITS.zec, { fixed: true })} ZEC`);
    expect(await page.locator("#memo").textContent()).toBe(inv.memo);
    await expect(page.getByRole("button", { name: "Copy memo" }).isVisible()).resolves.toBe(true);
    const qr = page.getByRole("img", { name: "QR code of the wallet link" });
    await page.waitForFunction('document.getElementById("qr").complete && document.getElementById("qr").naturalWidth > 0');
    const shot = await qr.screenshot({ path: path.join(OUT, "zec-1-qr.png") });
    expect(await decodeQr(shot)).toBe(inv.uri);
    expect(inv.uri.startsWith("zcash:")).toBe(true);
    await page.screenshot({ path: path.join(OUT, "zec-1-pending.png") });

    chain.send(inv.payTo, BigInt(inv.amount.atomic), inv.memo);
    chain.mine(CONFIRMATIONS);
    await s.nextTick();
    await s.nextTick();
    await page.getByRole("status").filter({ hasText: "Paid" }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: path.join(OUT, "zec-2-paid.png") });
    await page.close();
  }, 120_000);

  it("an unknown invoice id says so", async () => {
    const page = await browser.newPage();
    await page.goto(`${s.t.url}/pay/#00000000-0000-4000-8000-000000000000`);
    await page.getByRole("alert").filter({ hasText: "No invoice has this id" }).waitFor({ timeout: 15_000 });
    await page.close();
  }, 60_000);
});
