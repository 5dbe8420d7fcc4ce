import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock, systemClock } from "../../src/core/clock.js";
import { ServiceError } from "../../src/core/errors.js";
import {
  HEADER_EVENT,
  HEADER_SIGNATURE,
  HEADER_WATCH_ID,
  MAX_WEBHOOK_BODY_BYTES,
  SSRF_BLOCKED,
  buildDeliveryHeaders,
  createWebhookSender,
  prepareDelivery,
  vettedLookup,
  type WebhookSender,
} from "../../src/webhooks/deliver.js";
import { generateWebhookSecret, signBody, verifySignature } from "../../src/webhooks/sign.js";
import { checkWebhookUrl, type ResolvedAddress, type Resolver, type WebhookUrlPolicy } from "../../src/webhooks/url-guard.js";

const DEV: WebhookUrlPolicy = { allowHttp: true, allowPrivate: true };
const HTTP_PUBLIC_ONLY: WebhookUrlPolicy = { allowHttp: true, allowPrivate: false };

interface Seen {
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

let server: Server;
let port: number;
let seen: Seen[] = [];
let bigWritten = 0;
let bigFinished = false;
let bigClosed: Promise<void> = Promise.resolve();
const BIG_TOTAL = 64 * 1024 * 1024;

function handler(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const path = req.url ?? "/";
    seen.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
    if (path === "/ok") {
      res.writeHead(204).end();
    } else if (path === "/ok-with-body") {
      res.writeHead(200, { "content-type": "text/plain" }).end("thanks");
    } else if (path === "/error") {
      res.writeHead(500).end("boom");
    } else if (path === "/redirect") {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
    } else if (path === "/never") {
      // never answers
    } else if (path === "/stall-body") {
      res.writeHead(200, { "content-length": "1000" });
      res.write("partial");
    } else if (path === "/big") {
      bigWritten = 0;
      bigFinished = false;
      bigClosed = new Promise((resolve) => res.on("close", () => resolve()));
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      const pump = (): void => {
        while (bigWritten < BIG_TOTAL && !res.destroyed) {
          bigWritten += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", pump);
            return;
          }
        }
        if (!res.destroyed) {
          bigFinished = true;
          res.end();
        }
      };
      pump();
    } else {
      res.writeHead(404).end();
    }
  });
}

beforeAll(async () => {
  server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
});

function dnsOf(table: Record<string, string[][]>): Resolver & { calls: string[] } {
  // each host maps to a sequence of answers: call n gets answers[min(n, last)]
  const counts = new Map<string, number>();
  const calls: string[] = [];
  const r = (async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const seq = table[host];
    if (!seq) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    const n = counts.get(host) ?? 0;
    counts.set(host, n + 1);
    return seq[Math.min(n, seq.length - 1)].map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  }) as Resolver & { calls: string[] };
  r.calls = calls;
  return r;
}

const senders: WebhookSender[] = [];
function sender(opts: Parameters<typeof createWebhookSender>[0]): WebhookSender {
  const s = createWebhookSender(opts);
  senders.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(senders.map((s) => s.close()));
});

const secret = generateWebhookSecret();
const watchId = "0b7d1c7e-2f3a-4c55-9d1e-6a1f0e9b2c11";
const payload = {
  watchId,
  chain: "monero",
  address: "4A...",
  event: "balance_change",
  timestamp: "2026-01-01T00:00:00.000Z",
  nonce: "n-1",
  previous: { balanceAtomic: "0", scannedHeight: 10 },
  current: { balanceAtomic: "1000", scannedHeight: 11 },
  delta: { balance_atomic: "1000", before_atomic: "0", after_atomic: "1000" },
  credit: { remaining_atomic: "95000" },
};

describe("prepareDelivery and headers", () => {
  it("signs the exact serialised body and builds the three service headers", () => {
    const { body, headers } = prepareDelivery(secret, watchId, "balance_change", payload);
    expect(body).toBe(JSON.stringify(payload));
    expect(headers[HEADER_WATCH_ID]).toBe(watchId);
    expect(headers[HEADER_EVENT]).toBe("balance_change");
    expect(headers[HEADER_SIGNATURE]).toBe(signBody(secret, body));
    expect(headers["Content-Type"]).toBe("application/json");
    expect(buildDeliveryHeaders("w", "low_credit", "sha256=00")).toMatchObject({ "X-Service-Event": "low_credit", "X-Service-Signature": "sha256=00" });
  });

  it("refuses bodies above 64 KB with a 413", () => {
    const fits = { pad: "x".repeat(MAX_WEBHOOK_BODY_BYTES - 10) }; // {"pad":"…"} is 10 bytes of framing
    expect(prepareDelivery(secret, watchId, "x", fits).body.length).toBe(MAX_WEBHOOK_BODY_BYTES);
    try {
      prepareDelivery(secret, watchId, "x", { pad: "x".repeat(MAX_WEBHOOK_BODY_BYTES - 9) });
      throw new Error("expected a throw");
    } catch (e) {
      expect(e).toBeInstanceOf(ServiceError);
      expect((e as ServiceError).status).toBe(413);
      expect((e as ServiceError).code).toBe("webhook_body_too_large");
    }
  });
});

describe("delivery to a loopback receiver (development policy)", () => {
  it("delivers the exact body with headers a receiver can verify, via a name resolved by the vetted lookup", async () => {
    const dns = dnsOf({ "receiver.test": [["127.0.0.1"]] });
    const s = sender({ policy: DEV, resolver: dns, clock: systemClock });
    const { body, headers } = prepareDelivery(secret, watchId, "balance_change", payload);
    const r = await s.send({ url: `http://receiver.test:${port}/ok`, body, headers });
    expect(r).toMatchObject({ ok: true, status: 204 });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen).toHaveLength(1);
    const got = seen[0];
    // receiver.test exists only in the injected resolver: the socket went where the lookup said
    expect(got.headers.host).toBe(`receiver.test:${port}`);
    expect(dns.calls).toEqual(["receiver.test"]);
    expect(got.body.toString("utf8")).toBe(body);
    expect(got.headers["x-service-watch-id"]).toBe(watchId);
    expect(got.headers["x-service-event"]).toBe("balance_change");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(verifySignature(secret, got.body, String(got.headers["x-service-signature"]))).toBe(true);
  });

  it("resolves again on every delivery (no pooled socket skips the check)", async () => {
    const dns = dnsOf({ "receiver.test": [["127.0.0.1"]] });
    const s = sender({ policy: DEV, resolver: dns, clock: systemClock });
    for (let i = 0; i < 3; i++) {
      expect((await s.send({ url: `http://receiver.test:${port}/ok`, body: "{}", headers: {} })).ok).toBe(true);
    }
    expect(dns.calls).toHaveLength(3);
  });

  it("delivers to a loopback literal under allowPrivate", async () => {
    const s = sender({ policy: DEV, clock: systemClock });
    const r = await s.send({ url: `http://127.0.0.1:${port}/ok-with-body`, body: "{}", headers: {} });
    expect(r).toMatchObject({ ok: true, status: 200, bytesRead: 6 });
  });

  it("treats non-2xx as failure and does not follow redirects", async () => {
    const s = sender({ policy: DEV, clock: systemClock });
    const e = await s.send({ url: `http://127.0.0.1:${port}/error`, body: "{}", headers: {} });
    expect(e).toMatchObject({ ok: false, status: 500 });
    expect(e.error).toMatch(/500/);
    seen = [];
    const r = await s.send({ url: `http://127.0.0.1:${port}/redirect`, body: "{}", headers: {} });
    expect(r).toMatchObject({ ok: false, status: 302 });
    expect(r.error).toMatch(/^redirect_not_followed/);
    expect(seen.map((x) => x.path)).toEqual(["/redirect"]);
  });

  it("reads at most 4 KB of the response and then drops the connection", async () => {
    const s = sender({ policy: DEV, clock: systemClock });
    const r = await s.send({ url: `http://127.0.0.1:${port}/big`, body: "{}", headers: {} });
    expect(r.ok).toBe(true);
    expect(r.bytesRead).toBe(4096);
    await bigClosed;
    expect(bigFinished).toBe(false);
    expect(bigWritten).toBeLessThan(BIG_TOTAL);
  });

  it("gives up after the timeout when the receiver never answers", async () => {
    const s = sender({ policy: DEV, clock: systemClock, timeoutMs: 300 });
    const t0 = Date.now();
    const r = await s.send({ url: `http://127.0.0.1:${port}/never`, body: "{}", headers: {} });
    const took = Date.now() - t0;
    expect(r.ok).toBe(false);
    expect(r.status).toBeUndefined();
    expect(r.error).toMatch(/timeout|abort/i);
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3000);
    expect(r.durationMs).toBeGreaterThanOrEqual(250);
  });

  it("counts a 2xx whose body stalls as delivered, without waiting past the timeout", async () => {
    const s = sender({ policy: DEV, clock: systemClock, timeoutMs: 300 });
    const t0 = Date.now();
    const r = await s.send({ url: `http://127.0.0.1:${port}/stall-body`, body: "{}", headers: {} });
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it("reports connection failures without throwing", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const s = sender({ policy: DEV, clock: systemClock });
    const r = await s.send({ url: `http://127.0.0.1:${deadPort}/ok`, body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/ECONNREFUSED/);
    const nx = await sender({ policy: DEV, resolver: dnsOf({}), clock: systemClock }).send({ url: `http://nowhere.test:${port}/ok`, body: "{}", headers: {} });
    expect(nx.ok).toBe(false);
    expect(nx.error).toMatch(/ENOTFOUND/);
  });

  it("sends again once, on a new connection, when a kept-alive connection turns out closed by the receiver; a receiver that always drops gets two tries, not more", async () => {
    // A raw HTTP/1.1 receiver: the first request on a connection is answered and the
    // connection kept alive; a second request on that same connection finds it closed
    // without an answer (the race of a receiver's keep-alive timeout).
    const received: { connection: number; body: string }[] = [];
    let connections = 0;
    let dropEverything = false;
    const raw = net.createServer((sock) => {
      const id = ++connections;
      let served = 0;
      let buf = "";
      sock.on("data", (d) => {
        buf += d.toString("latin1");
        for (;;) {
          const end = buf.indexOf("\r\n\r\n");
          if (end < 0) return;
          const len = Number(/content-length: *(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
          if (buf.length < end + 4 + len) return;
          const body = buf.slice(end + 4, end + 4 + len);
          buf = buf.slice(end + 4 + len);
          if (dropEverything || served > 0) {
            sock.destroy();
            return;
          }
          served++;
          received.push({ connection: id, body });
          sock.write("HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\n");
        }
      });
      sock.on("error", () => {});
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    const rawPort = (raw.address() as AddressInfo).port;
    try {
      const s = sender({ policy: DEV, clock: systemClock });
      const url = `http://127.0.0.1:${rawPort}/hook`;
      expect(await s.send({ url, body: '{"n":1}', headers: {} })).toMatchObject({ ok: true, status: 204 });
      // Same pool, same kept-alive connection: dropped, then sent again on a new one.
      expect(await s.send({ url, body: '{"n":2}', headers: {} })).toMatchObject({ ok: true, status: 204 });
      expect(received).toEqual([
        { connection: 1, body: '{"n":1}' },
        { connection: 2, body: '{"n":2}' },
      ]);
      dropEverything = true;
      const before = connections;
      const r = await s.send({ url, body: '{"n":3}', headers: {} });
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/UND_ERR_SOCKET|ECONNRESET|EPIPE|other side closed/);
      // The kept-alive connection 2 and one new connection: two tries.
      expect(connections - before).toBe(1);
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it("refuses a body above 64 KB without connecting", async () => {
    const s = sender({ policy: DEV, clock: new ManualClock() });
    const r = await s.send({ url: `http://127.0.0.1:${port}/ok`, body: "x".repeat(MAX_WEBHOOK_BODY_BYTES + 1), headers: {} });
    expect(r).toMatchObject({ ok: false, durationMs: 0 });
    expect(r.error).toMatch(/^body_too_large/);
    expect(seen).toEqual([]);
  });
});

describe("delivery under the production address policy", () => {
  it("refuses a loopback literal before connecting", async () => {
    const s = sender({ policy: HTTP_PUBLIC_ONLY, clock: systemClock });
    for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]", "2130706433", "0x7f.1", "127.1"]) {
      const r = await s.send({ url: `http://${host}:${port}/ok`, body: "{}", headers: {} });
      expect(r.ok).toBe(false);
      expect(r.error).toContain(SSRF_BLOCKED);
    }
    expect(seen).toEqual([]);
  });

  it("refuses https-only violations at delivery too", async () => {
    const s = sender({ policy: { allowHttp: false, allowPrivate: true }, clock: systemClock });
    const r = await s.send({ url: `http://127.0.0.1:${port}/ok`, body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/https/);
    expect(seen).toEqual([]);
  });

  it("refuses at connect time a name that resolves to loopback", async () => {
    const dns = dnsOf({ "receiver.test": [["127.0.0.1"]] });
    const s = sender({ policy: HTTP_PUBLIC_ONLY, resolver: dns, clock: systemClock });
    const r = await s.send({ url: `http://receiver.test:${port}/ok`, body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(SSRF_BLOCKED);
    expect(dns.calls).toEqual(["receiver.test"]);
    expect(seen).toEqual([]);
  });

  it("never reaches the private address of a name answering public first, then private", async () => {
    const dns = dnsOf({ "rebind.test": [["93.184.216.34", "127.0.0.1"]] });
    const s = sender({ policy: HTTP_PUBLIC_ONLY, resolver: dns, clock: systemClock });
    const r = await s.send({ url: `http://rebind.test:${port}/ok`, body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(SSRF_BLOCKED);
    expect(seen).toEqual([]);
  });

  it("a rebinding DNS that passed the creation check is caught at delivery", async () => {
    // first lookup (creation) answers a public address, later ones answer loopback
    const dns = dnsOf({ "rebind.test": [["93.184.216.34"], ["127.0.0.1"]] });
    const url = `http://rebind.test:${port}/ok`;
    await expect(checkWebhookUrl(url, HTTP_PUBLIC_ONLY, dns)).resolves.toBeInstanceOf(URL);
    const s = sender({ policy: HTTP_PUBLIC_ONLY, resolver: dns, clock: systemClock });
    const r = await s.send({ url, body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(SSRF_BLOCKED);
    expect(dns.calls).toEqual(["rebind.test", "rebind.test"]);
    expect(seen).toEqual([]);
  });

  it("keeps metadata addresses out even under the development policy", async () => {
    const dns = dnsOf({ "imds.test": [["169.254.169.254"]] });
    const s = sender({ policy: DEV, resolver: dns, clock: systemClock });
    const r = await s.send({ url: "http://imds.test/latest/meta-data/", body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(SSRF_BLOCKED);
    // The DNS-based refusal reads as every other one (url-guard.ts: HOST_NOT_PUBLIC_MESSAGE).
    expect(r.error).toContain("only to public addresses");
  });
});

describe("vettedLookup", () => {
  const call = (fn: ReturnType<typeof vettedLookup>, host: string, options: object) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
      fn(host, options, (err, address, family) => resolve({ err, address, family })),
    );

  it("honours options.all and options.family", async () => {
    const dns = dnsOf({ "dual.test": [["127.0.0.1", "::1"]] });
    const fn = vettedLookup(dns, DEV);
    expect((await call(fn, "dual.test", { all: true })).address).toEqual([
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ]);
    expect(await call(fn, "dual.test", {})).toMatchObject({ err: null, address: "127.0.0.1", family: 4 });
    expect(await call(fn, "dual.test", { family: 6 })).toMatchObject({ err: null, address: "::1", family: 6 });
    expect((await call(fn, "dual.test", { all: true, family: 4 })).address).toEqual([{ address: "127.0.0.1", family: 4 }]);
  });

  it("fails the whole lookup when any answer is blocked", async () => {
    const dns = dnsOf({ "mixed.test": [["93.184.216.34", "10.0.0.1"]] });
    const r = await call(vettedLookup(dns, HTTP_PUBLIC_ONLY), "mixed.test", { all: true });
    expect(r.err?.code).toBe(SSRF_BLOCKED);
  });
});
