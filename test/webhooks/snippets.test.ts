import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { createWebhookSender, prepareDelivery } from "../../src/webhooks/deliver.js";
import { generateWebhookSecret } from "../../src/webhooks/sign.js";
import { RECEIVER_SNIPPETS, SNIPPET_LANGUAGES, isSnippetLanguage, snippetsGuide, type SnippetLanguage } from "../../src/webhooks/snippets.js";

function has(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

const dir = mkdtempSync(join(tmpdir(), "vigil-snippets-"));
const children: ChildProcess[] = [];
const sender = createWebhookSender({ policy: { allowHttp: true, allowPrivate: true }, clock: systemClock, timeoutMs: 5000 });

afterAll(async () => {
  for (const c of children) c.kill("SIGTERM");
  await sender.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Receiver {
  url: string;
  output: () => string;
}

function command(lang: SnippetLanguage, file: string, port: number): [string, string[]] {
  if (lang === "node") return ["node", [file]];
  if (lang === "python") return ["python3", [file]];
  return ["php", ["-S", `127.0.0.1:${port}`, file]];
}

async function startReceiver(lang: SnippetLanguage, secret: string): Promise<Receiver> {
  const snippet = RECEIVER_SNIPPETS[lang];
  const file = join(dir, `${lang}-${snippet.filename}`);
  writeFileSync(file, snippet.code);
  const port = await freePort();
  const [cmd, args] = command(lang, file, port);
  const child = spawn(cmd, args, {
    cwd: dir,
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}/webhook`;
  // wait until it accepts connections
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`${lang} receiver exited: ${out}`);
    const probe = await sender.send({ url, body: "{}", headers: {} });
    if (probe.status !== undefined) return { url, output: () => out };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${lang} receiver did not start: ${out}`);
}

const watchId = "5f0c7a52-8d7e-4f0e-9c7a-2a4e7d0f1b33";
const payload = {
  watchId,
  chain: "zcash",
  address: "u1qexample",
  event: "balance_change",
  timestamp: "2026-01-01T00:03:00.000Z",
  nonce: "b6a1f0c2",
  previous: { balanceAtomic: "0", scannedHeight: 3042000 },
  current: { balanceAtomic: "150000000", scannedHeight: 3042001, memo: "thé ☕ 𝄞" },
  delta: { balance_atomic: "150000000", before_atomic: "0", after_atomic: "150000000" },
  credit: { remaining_atomic: "99958", remaining_usd: "0.099958", days_remaining: 4.997, low_credit: false },
};

for (const lang of SNIPPET_LANGUAGES) {
  const runtime = lang === "node" ? "node" : lang === "python" ? "python3" : "php";
  const available = has(runtime);
  if (!available) {
    console.warn(`snippets: skipped the ${lang} receiver test because ${runtime} is not on PATH`);
    it.skip(`${lang} receiver snippet — skipped: \`${runtime}\` is not installed on this machine`, () => {});
    continue;
  }
  describe(`${lang} receiver snippet (run with ${runtime})`, () => {
    const secret = generateWebhookSecret();
    let rx: Receiver;

    it("starts", async () => {
      rx = await startReceiver(lang, secret);
    });

    it("accepts a correctly signed delivery (non-ASCII body bytes included)", async () => {
      const { body, headers } = prepareDelivery(secret, watchId, "balance_change", payload);
      const r = await sender.send({ url: rx.url, body, headers });
      expect(r).toMatchObject({ ok: true, status: 200 });
      await new Promise((res) => setTimeout(res, 100));
      expect(rx.output()).toContain(`verified balance_change for watch ${watchId}`);
      // The walk-through's receiver (Node) also prints the amounts: confirmed vs pending, with their changes.
      if (lang === "node") {
        expect(rx.output()).toContain(
          `verified balance_change for watch ${watchId}: confirmed ${payload.chain === "zcash" ? "1.50000000 ZEC" : "0.000150000000 XMR"} (change`,
        );
        expect(rx.output()).toMatch(/pending 0\.0+ (XMR|ZEC) \(change/);
      }
    });

    it("accepts a synthetic_test delivery", async () => {
      const { body, headers } = prepareDelivery(secret, watchId, "synthetic_test", { ...payload, event: "synthetic_test" });
      expect((await sender.send({ url: rx.url, body, headers })).status).toBe(200);
    });

    it("rejects a tampered body", async () => {
      const { body, headers } = prepareDelivery(secret, watchId, "balance_change", payload);
      const tampered = body.replace('"150000000"', '"950000000"');
      expect(tampered).not.toBe(body);
      const r = await sender.send({ url: rx.url, body: tampered, headers });
      expect(r).toMatchObject({ ok: false, status: 401 });
    });

    it("rejects re-serialised JSON with different bytes", async () => {
      const { body, headers } = prepareDelivery(secret, watchId, "balance_change", payload);
      const reserialised = JSON.stringify(JSON.parse(body), null, 1);
      const r = await sender.send({ url: rx.url, body: reserialised, headers });
      expect(r.status).toBe(401);
    });

    it("rejects a signature made with another secret, a hex-decoded key, or none", async () => {
      const other = prepareDelivery(generateWebhookSecret(), watchId, "balance_change", payload);
      expect((await sender.send({ url: rx.url, body: other.body, headers: other.headers })).status).toBe(401);
      const { body, headers } = prepareDelivery(secret, watchId, "balance_change", payload);
      const noSig = { ...headers };
      delete noSig["X-Service-Signature"];
      expect((await sender.send({ url: rx.url, body, headers: noSig })).status).toBe(401);
      const { createHmac } = await import("node:crypto");
      const hexKeySig = "sha256=" + createHmac("sha256", Buffer.from(secret.slice(6), "hex")).update(body).digest("hex");
      expect((await sender.send({ url: rx.url, body, headers: { ...headers, "X-Service-Signature": hexKeySig } })).status).toBe(401);
    });
  });
}

describe("snippetsGuide", () => {
  it("has the spec's keys and header names", () => {
    const g = snippetsGuide("https://api.vigil.example/");
    expect(Object.keys(g).sort()).toEqual(["about", "checkout", "create", "headers", "languages", "test", "verify"]);
    expect(g.headers).toEqual({ signature: "X-Service-Signature", watch_id: "X-Service-Watch-Id", event: "X-Service-Event" });
    expect(Object.keys(g.verify)).toEqual(["node", "python", "php"]);
    expect(Object.keys(g.create).sort()).toEqual(["pay_in_coin", "pay_in_usdc"]);
    expect(g.languages).toEqual(["node", "python", "php"]);
    // Without the coin and checkout modules' offers the guide says they are not offered instead of pointing at missing routes.
    expect(g.create.pay_in_coin.available).toBe(false);
    expect(g.checkout.available).toBe(false);
    expect(g.create.pay_in_usdc.url).toBe("https://api.vigil.example/v1/private/watch");
    expect(g.test.url).toBe("https://api.vigil.example/v1/private/watch/{watchId}/test");
    expect(g.about).toContain("UTF-8 bytes of the webhookSecret string exactly as returned");
  });

  it("narrows verify to one language", () => {
    for (const lang of SNIPPET_LANGUAGES) {
      const g = snippetsGuide("http://localhost:8080", lang);
      expect(Object.keys(g.verify)).toEqual([lang]);
      expect(g.verify[lang]!.code).toBe(RECEIVER_SNIPPETS[lang].code);
      expect(g.languages).toEqual(["node", "python", "php"]);
    }
  });

  it("every snippet says how the key is formed and compares in constant time", () => {
    expect(RECEIVER_SNIPPETS.node.code).toContain("timingSafeEqual");
    expect(RECEIVER_SNIPPETS.python.code).toContain("hmac.compare_digest");
    expect(RECEIVER_SNIPPETS.php.code).toContain("hash_equals");
    for (const lang of SNIPPET_LANGUAGES) expect(RECEIVER_SNIPPETS[lang].code).toContain("exactly as returned");
  });

  it("recognises languages", () => {
    expect(isSnippetLanguage("python")).toBe(true);
    expect(isSnippetLanguage("ruby")).toBe(false);
    expect(isSnippetLanguage(undefined)).toBe(false);
  });
});
