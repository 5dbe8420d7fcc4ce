import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/core/clock.js";
import { SSRF_BLOCKED, createWebhookSender, prepareDelivery, type WebhookSender } from "../../src/webhooks/deliver.js";
import { generateWebhookSecret, verifySignature } from "../../src/webhooks/sign.js";
import type { Resolver } from "../../src/webhooks/url-guard.js";

const haveOpenssl = spawnSync("sh", ["-c", "command -v openssl"]).status === 0;

// HTTPS with lookup pinning: the socket goes to the vetted address while TLS
// still checks the certificate against the URL's host name.
describe.skipIf(!haveOpenssl)("HTTPS delivery through the vetted lookup (loopback, self-signed certificate)", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigil-tls-"));
  let server: Server;
  let port: number;
  let cert: Buffer;
  let handshakes = 0;
  const received: { host?: string; sig?: string; body: Buffer }[] = [];
  const senders: WebhookSender[] = [];
  const resolver: Resolver = async (host) => {
    if (host === "receiver.test" || host === "impostor.test") return [{ address: "127.0.0.1", family: 4 }];
    throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
  };

  beforeAll(async () => {
    const gen = spawnSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=receiver.test", "-addext", "subjectAltName=DNS:receiver.test"],
      { encoding: "utf8" },
    );
    if (gen.status !== 0) throw new Error(gen.stderr);
    cert = readFileSync(join(dir, "cert.pem"));
    server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ host: req.headers.host, sig: req.headers["x-service-signature"] as string, body: Buffer.concat(chunks) });
        res.writeHead(200).end("ok");
      });
    });
    // Handshakes for receiver.test only (the impostor test's handshake may complete on the server late).
    server.on("secureConnection", (sock: { servername?: string | false }) => {
      if (sock.servername === "receiver.test") handshakes++;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await Promise.all(senders.map((s) => s.close()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const make = (allowPrivate: boolean) => {
    const s = createWebhookSender({ policy: { allowHttp: false, allowPrivate }, resolver, clock: systemClock, tlsCa: cert, timeoutMs: 3000 });
    senders.push(s);
    return s;
  };

  it("delivers over TLS to the vetted address with the certificate checked against the host name", async () => {
    const secret = generateWebhookSecret();
    const { body, headers } = prepareDelivery(secret, "w-1", "synthetic_test", { event: "synthetic_test" });
    const r = await make(true).send({ url: `https://receiver.test:${port}/hook`, body, headers });
    expect(r).toMatchObject({ ok: true, status: 200 });
    const got = received.at(-1)!;
    expect(got.host).toBe(`receiver.test:${port}`);
    expect(verifySignature(secret, got.body, got.sig)).toBe(true);
  });

  it("fails when the certificate does not name the host (pinning does not bypass TLS checks)", async () => {
    const before = received.length;
    const r = await make(true).send({ url: `https://impostor.test:${port}/hook`, body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID|altname|Hostname/i);
    expect(received.length).toBe(before);
  });

  it("refuses the loopback target under the production policy before any TLS handshake", async () => {
    const before = received.length;
    const r = await make(false).send({ url: `https://receiver.test:${port}/hook`, body: "{}", headers: {} });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(SSRF_BLOCKED);
    expect(received.length).toBe(before);
  });

  it("reuses one kept-alive TLS connection for an address it vetted again on every attempt", async () => {
    const secret = generateWebhookSecret();
    const send = async (s: WebhookSender, i: number) => {
      const { body, headers } = prepareDelivery(secret, "w-2", "synthetic_test", { event: "synthetic_test", i });
      return s.send({ url: `https://receiver.test:${port}/hook`, body, headers });
    };
    const reusing = make(true);
    const h0 = handshakes;
    for (let i = 0; i < 20; i++) expect(await send(reusing, i)).toMatchObject({ ok: true, status: 200 });
    // One connection, or two when the next request is queued before the first one's socket is idle again.
    expect(handshakes - h0).toBeGreaterThanOrEqual(1);
    expect(handshakes - h0).toBeLessThanOrEqual(2);

    // The per-attempt baseline opens a connection every time.
    const perAttempt = createWebhookSender({ policy: { allowHttp: false, allowPrivate: true }, resolver, clock: systemClock, tlsCa: cert, reuseConnections: false });
    senders.push(perAttempt);
    const h1 = handshakes;
    for (let i = 0; i < 5; i++) expect(await send(perAttempt, i)).toMatchObject({ ok: true, status: 200 });
    expect(handshakes - h1).toBe(5);
  });

  it("re-resolves and re-vets before reusing: a host rebound to a blocked address is refused despite the open connection", async () => {
    let answer = "127.0.0.1";
    const lookups: string[] = [];
    const rebinding: Resolver = async (host) => {
      lookups.push(host);
      return [{ address: answer, family: 4 }];
    };
    const s = createWebhookSender({ policy: { allowHttp: false, allowPrivate: true }, resolver: rebinding, clock: systemClock, tlsCa: cert, timeoutMs: 3000 });
    senders.push(s);
    const { body, headers } = prepareDelivery(generateWebhookSecret(), "w-3", "synthetic_test", { event: "synthetic_test" });
    expect(await s.send({ url: `https://receiver.test:${port}/hook`, body, headers })).toMatchObject({ ok: true });
    const before = received.length;
    answer = "169.254.169.254";
    const r = await s.send({ url: `https://receiver.test:${port}/hook`, body, headers });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(SSRF_BLOCKED);
    expect(received.length).toBe(before);
    expect(lookups).toEqual(["receiver.test", "receiver.test"]);
  });
});

if (!haveOpenssl) it.skip("HTTPS delivery test — skipped: openssl is not installed on this machine", () => {});
