/**
 * The hosted pay page: one static HTML file (web/pay/index.html, deployable to
 * any static host) that reads the invoice id from the URL fragment and polls
 * the public invoice route. Served by the API at /pay/ with the API's own
 * base URL filled in; read from disk on first use. The page carries its icon
 * inline (a data: URI, so a static copy needs no second file); the API serves
 * that same SVG at /favicon.ico.
 */
import { readFileSync } from "node:fs";
import QRCode from "qrcode";

export const PAY_PAGE_PATH = "/pay/";

let cached: string | null = null;

function pageSource(): string {
  cached ??= readFileSync(new URL("../../web/pay/index.html", import.meta.url), "utf8");
  return cached;
}

export function payPageHtml(apiBaseUrl: string): string {
  const esc = apiBaseUrl.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  return pageSource().replace('<meta name="referrer" content="no-referrer">', `<meta name="referrer" content="no-referrer">\n<meta name="vigil-api" content="${esc}">`);
}

const ICON_LINK = /<link rel="icon" type="image\/svg\+xml" href="data:image\/svg\+xml,([^"]+)">/;

/** The service's icon: the SVG of the pay page's own `<link rel="icon">`, one drawing for both. */
export function faviconSvg(): string {
  const m = ICON_LINK.exec(pageSource());
  if (!m?.[1]) throw new Error("web/pay/index.html has no inline SVG icon");
  return decodeURIComponent(m[1]);
}

/**
 * The QR code of an invoice's wallet URI as SVG, drawn by this service (the
 * pay page never asks a third party to render it). Error correction M, a
 * four-module quiet zone, black on white.
 */
export async function walletUriQrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 4, color: { dark: "#000000", light: "#ffffff" } });
}
