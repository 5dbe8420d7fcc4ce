/**
 * Receiver snippets for `GET /v1/private/snippets`: complete, dependency-free
 * webhook receivers that verify `X-Service-Signature` over the raw body.
 * test/webhooks/snippets.test.ts runs each of them against signed and
 * tampered deliveries, so these strings are tested code, not prose.
 */
import { z } from "zod";
import { HEADER_EVENT, HEADER_SIGNATURE, HEADER_WATCH_ID, MAX_WEBHOOK_BODY_BYTES } from "./deliver.js";
import { INVOICE_EVENTS } from "./events.js";
import { SIGNATURE_SCHEME_DESCRIPTION } from "./sign.js";

export const SNIPPET_LANGUAGES = ["node", "python", "php"] as const;
export type SnippetLanguage = (typeof SNIPPET_LANGUAGES)[number];

export function isSnippetLanguage(x: unknown): x is SnippetLanguage {
  return typeof x === "string" && (SNIPPET_LANGUAGES as readonly string[]).includes(x);
}

export const ReceiverSnippetSchema = z.object({
  /** Suggested file name. */
  filename: z.string(),
  /** Command that starts the receiver (env WEBHOOK_SECRET, optional HOST and PORT). */
  run: z.string(),
  /** Runtime needed; no third-party packages. */
  requires: z.string(),
  /** The complete receiver source. */
  code: z.string(),
});
export type ReceiverSnippet = z.infer<typeof ReceiverSnippetSchema>;

const NODE_CODE = `// Vigil webhook receiver: Node.js 18+, no dependencies.
// Run: WEBHOOK_SECRET='whsec_...' PORT=8080 node receiver.mjs
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

// The webhookSecret string exactly as returned when the watch was created
// (keep the whsec_ prefix; do not hex-decode it). Its UTF-8 bytes are the HMAC key.
const SECRET = process.env.WEBHOOK_SECRET;
if (!SECRET) throw new Error("set WEBHOOK_SECRET");

// rawBody: the request body bytes exactly as received (a Buffer), never re-serialised JSON.
export function verifySignature(rawBody, header, secret) {
  if (typeof header !== "string") return false;
  const digest = createHmac("sha256", Buffer.from(secret, "utf8")).update(rawBody).digest("hex");
  const expected = Buffer.from("sha256=" + digest, "utf8");
  const given = Buffer.from(header.trim(), "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// Watch events carry the balance after the event: confirmed (balanceAtomic) and
// still waiting for confirmations (pendingAtomic), in atomic units.
const UNITS = { monero: [12, "XMR"], zcash: [8, "ZEC"] };
function coins(atomic, chain) {
  const [decimals, symbol] = UNITS[chain] || [0, "atomic units"];
  const v = BigInt(atomic || "0");
  const sign = v < 0n ? "-" : "";
  const abs = (v < 0n ? -v : v).toString().padStart(decimals + 1, "0");
  return sign + (decimals ? abs.slice(0, -decimals) + "." + abs.slice(-decimals) : abs) + " " + symbol;
}
function amounts(d) {
  const now = d.current;
  if (!now || now.balanceAtomic === undefined) return "";
  const delta = d.delta || {};
  return ": confirmed " + coins(now.balanceAtomic, d.chain) + " (change " + coins(delta.balance_atomic, d.chain) + ")" +
    ", pending " + coins(now.pendingAtomic, d.chain) + " (change " + coins(delta.pending_atomic, d.chain) + ")";
}

createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > ${MAX_WEBHOOK_BODY_BYTES}) req.destroy(); // deliveries are at most 64 KB
    else chunks.push(chunk);
  });
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    if (req.method !== "POST" || !verifySignature(raw, req.headers["x-service-signature"], SECRET)) {
      res.writeHead(401, { "content-type": "text/plain" }).end("bad signature\\n");
      return;
    }
    const delivery = JSON.parse(raw.toString("utf8"));
    if (delivery.event !== "synthetic_test") {
      // Handle delivery.event / delivery.delta / delivery.credit here.
      // Deduplicate on delivery.nonce: a delivery can arrive more than once.
    }
    console.log("verified " + req.headers["x-service-event"] + " for watch " + req.headers["x-service-watch-id"] + amounts(delivery));
    res.writeHead(200, { "content-type": "text/plain" }).end("ok\\n");
  });
}).listen(Number(process.env.PORT || 8080), process.env.HOST || "127.0.0.1");
`;

const PYTHON_CODE = `# Vigil webhook receiver: Python 3.8+, standard library only.
# Run: WEBHOOK_SECRET='whsec_...' PORT=8080 python3 receiver.py
import hashlib
import hmac
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer

# The webhookSecret string exactly as returned when the watch was created
# (keep the whsec_ prefix; do not hex-decode it). Its UTF-8 bytes are the HMAC key.
SECRET = os.environ["WEBHOOK_SECRET"]


def verify_signature(raw_body, header, secret):
    """raw_body: the request body bytes exactly as received, never re-serialised JSON."""
    if not header:
        return False
    digest = hmac.new(secret.encode("utf-8"), raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(("sha256=" + digest).encode("utf-8"), header.strip().encode("utf-8"))


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length > ${MAX_WEBHOOK_BODY_BYTES}:  # deliveries are at most 64 KB
            return self.reply(413, b"too large\\n")
        raw = self.rfile.read(length)
        if not verify_signature(raw, self.headers.get("X-Service-Signature"), SECRET):
            return self.reply(401, b"bad signature\\n")
        delivery = json.loads(raw)
        if delivery.get("event") != "synthetic_test":
            pass  # Handle delivery["event"], ["delta"], ["credit"] here; deduplicate on delivery["nonce"].
        print("verified %s for watch %s" % (self.headers.get("X-Service-Event"), self.headers.get("X-Service-Watch-Id")), flush=True)
        self.reply(200, b"ok\\n")

    def reply(self, status, text):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)


if __name__ == "__main__":
    address = (os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "8080")))
    HTTPServer(address, Receiver).serve_forever()
`;

const PHP_CODE = `<?php
// Vigil webhook receiver: PHP 7.4+, no extensions beyond the defaults.
// Run: WEBHOOK_SECRET='whsec_...' php -S 127.0.0.1:8080 receiver.php
// (or drop it behind any web server that passes the environment variable).

// The webhookSecret string exactly as returned when the watch was created
// (keep the whsec_ prefix; do not hex-decode it). Its bytes are the HMAC key.
$secret = getenv('WEBHOOK_SECRET');

// The request body bytes exactly as received, never re-serialised JSON.
$raw = file_get_contents('php://input');
$header = isset($_SERVER['HTTP_X_SERVICE_SIGNATURE']) ? trim($_SERVER['HTTP_X_SERVICE_SIGNATURE']) : '';
$expected = 'sha256=' . hash_hmac('sha256', $raw, $secret);

if ($_SERVER['REQUEST_METHOD'] !== 'POST' || $secret === false || !hash_equals($expected, $header)) {
    http_response_code(401);
    header('Content-Type: text/plain');
    echo "bad signature\\n";
    exit;
}

$delivery = json_decode($raw, true);
if (($delivery['event'] ?? '') !== 'synthetic_test') {
    // Handle $delivery['event'], ['delta'], ['credit'] here; deduplicate on $delivery['nonce'].
}
error_log('verified ' . ($_SERVER['HTTP_X_SERVICE_EVENT'] ?? '') . ' for watch ' . ($_SERVER['HTTP_X_SERVICE_WATCH_ID'] ?? ''));
http_response_code(200);
header('Content-Type: text/plain');
echo "ok\\n";
`;

export const RECEIVER_SNIPPETS: Readonly<Record<SnippetLanguage, ReceiverSnippet>> = Object.freeze({
  node: {
    filename: "receiver.mjs",
    run: "WEBHOOK_SECRET='whsec_...' PORT=8080 node receiver.mjs",
    requires: "Node.js 18 or newer (node:crypto timingSafeEqual over the raw body)",
    code: NODE_CODE,
  },
  python: {
    filename: "receiver.py",
    run: "WEBHOOK_SECRET='whsec_...' PORT=8080 python3 receiver.py",
    requires: "Python 3.8 or newer, standard library (hmac.compare_digest)",
    code: PYTHON_CODE,
  },
  php: {
    filename: "receiver.php",
    run: "WEBHOOK_SECRET='whsec_...' php -S 127.0.0.1:8080 receiver.php",
    requires: "PHP 7.4 or newer (hash_hmac and hash_equals)",
    code: PHP_CODE,
  },
});

/** The shape of the guide; it is also the route's output schema. */
export const SnippetsGuideSchema = z.object({
  about: z.string(),
  headers: z.object({ signature: z.string(), watch_id: z.string(), event: z.string() }),
  verify: z.object({ node: ReceiverSnippetSchema.optional(), python: ReceiverSnippetSchema.optional(), php: ReceiverSnippetSchema.optional() }),
  create: z.object({
    pay_in_coin: z.object({ available: z.boolean(), note: z.string() }),
    pay_in_usdc: z.object({
      method: z.literal("POST"),
      url: z.string(),
      price: z.string(),
      body: z.record(z.string(), z.unknown()),
      returns: z.string(),
      note: z.string(),
    }),
  }),
  test: z.object({ method: z.literal("POST"), url: z.string(), headers: z.record(z.string(), z.string()), note: z.string(), example: z.string() }),
  checkout: z.object({ available: z.boolean(), events: z.array(z.string()), note: z.string() }),
  languages: z.array(z.enum(SNIPPET_LANGUAGES)),
});
export type SnippetsGuide = z.infer<typeof SnippetsGuideSchema>;

/**
 * The guide served by `GET /v1/private/snippets`. `lang` narrows `verify` to
 * one language; `languages` always lists all of them.
 */
export function snippetsGuide(
  baseUrl: string,
  lang?: SnippetLanguage,
  payInCoin?: { available: boolean; note: string },
  checkout?: SnippetsGuide["checkout"],
  /** The x402 network this deployment's paywall asks for (e.g. eip155:84532 on the devnet). */
  paymentNetwork?: string,
): SnippetsGuide {
  const base = baseUrl.replace(/\/+$/, "");
  const verify: Partial<Record<SnippetLanguage, ReceiverSnippet>> = {};
  for (const l of SNIPPET_LANGUAGES) if (lang === undefined || lang === l) verify[l] = { ...RECEIVER_SNIPPETS[l] };
  const watchBody = {
    chain: "monero",
    address: "<your receiving address>",
    viewKey: "<your private view key (read-only)>",
    webhookUrl: "https://example.com/vigil-webhook",
  };
  return {
    about:
      "Each webhook is an HTTP POST with a JSON body. " +
      SIGNATURE_SCHEME_DESCRIPTION +
      " Deliveries time out after 8 s, failures are retried on the next poll tick, and 50 consecutive failures retire the watch. " +
      "Answer 2xx quickly; skip processing when the event is synthetic_test; deduplicate on the body's nonce.",
    headers: { signature: HEADER_SIGNATURE, watch_id: HEADER_WATCH_ID, event: HEADER_EVENT },
    verify,
    create: {
      pay_in_coin: payInCoin ?? {
        available: false,
        note: "Paying for a watch in XMR or ZEC (POST /v1/private/watch-crypto) is not offered by this deployment yet: pay in USDC.",
      },
      pay_in_usdc: {
        method: "POST",
        url: `${base}/v1/private/watch`,
        price: `$0.10 via x402 (USDC on ${paymentNetwork ?? "the network named in the 402"}); the $0.10 becomes the opening credit`,
        body: watchBody,
        returns: "watchId, watchToken and webhookSecret (shown once), creditAtomic, rates, topupEndpoints, testEndpoint",
        note: "The first call answers 402 with a Payment-Required header; sign the EIP-3009 authorisation it describes and retry with X-PAYMENT.",
      },
    },
    test: {
      method: "POST",
      url: `${base}/v1/private/watch/{watchId}/test`,
      headers: { "x-watch-token": "<watchToken>" },
      note: "Sends one synthetic_test delivery now, signed exactly like a real one: attempted once (never retried), not billed, and the answer says how your receiver answered (status, latency, error). Use it to check your receiver.",
      example: `curl -sS -X POST ${base}/v1/private/watch/<watchId>/test -H 'x-watch-token: <watchToken>'`,
    },
    checkout: checkout ?? {
      available: false,
      events: [...INVOICE_EVENTS],
      note: "Checkout invoices are not offered by this deployment yet. When they are, their webhooks go to the watch's webhookUrl, signed with the same webhookSecret and verified with the same code.",
    },
    languages: [...SNIPPET_LANGUAGES],
  };
}
