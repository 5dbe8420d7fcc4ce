/**
 * The three facilitator modes as the app builds them: `local` (used by every
 * devnet test), `http` against a facilitator served over real HTTP, and
 * `cdp`'s API-key JWT (checked offline: no network here).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createFacilitator, CDP_FACILITATOR_URL } from "../../src/x402/facilitators.js";
import { createLocalFacilitator } from "../../src/x402/local-facilitator.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { createPayer } from "../../src/x402/payer.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";

function decodeJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [h, c] = token.split(".");
  return { header: JSON.parse(Buffer.from(h!, "base64url").toString()), claims: JSON.parse(Buffer.from(c!, "base64url").toString()) };
}

describe("cdp mode", () => {
  it("talks to Coinbase's facilitator with a per-endpoint ES256 JWT from the API key", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const f = await createFacilitator({ mode: "cdp", apiKeyId: "organizations/o/apiKeys/k", apiKeySecret: pem });
    expect(f.label).toBe(CDP_FACILITATOR_URL);
    const client = f.client as unknown as { url: string; _createAuthHeaders: () => Promise<Record<string, Record<string, string>>> };
    expect(client.url).toBe(CDP_FACILITATOR_URL);
    const headers = await client._createAuthHeaders();
    for (const [endpoint, method] of [["verify", "POST"], ["settle", "POST"], ["supported", "GET"]] as const) {
      const auth = headers[endpoint]?.Authorization ?? headers[endpoint]?.authorization;
      expect(auth, endpoint).toMatch(/^Bearer /);
      const { header, claims } = decodeJwt(auth!.slice(7));
      expect(header).toMatchObject({ alg: "ES256", kid: "organizations/o/apiKeys/k" });
      expect(claims).toMatchObject({ sub: "organizations/o/apiKeys/k", iss: "cdp" });
      expect(claims.uris).toEqual([`${method} api.cdp.coinbase.com/platform/v2/x402/${endpoint}`]);
      expect(Number(claims.exp) - Number(claims.nbf)).toBeLessThanOrEqual(120);
    }
  });
});

describe("http mode against a facilitator served over HTTP", () => {
  let devnet: SimulatedDevnet;
  let server: Server;
  let t: TestApp;
  const seen: string[] = [];

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    // A facilitator HTTP API (POST /verify, POST /settle, GET /supported) backed by the local facilitator.
    const inner = createLocalFacilitator({ rpcUrl: devnet.evmUrl, privateKey: devnet.facilitatorKey, network: "eip155:84532" });
    server = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      seen.push(`${req.method} ${req.url}`);
      const send = (v: unknown) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(v));
      };
      if (req.url === "/supported") return send(await inner.getSupported());
      const { paymentPayload, paymentRequirements } = JSON.parse(body);
      if (req.url === "/verify") return send(await inner.verify(paymentPayload, paymentRequirements));
      if (req.url === "/settle") return send(await inner.settle(paymentPayload, paymentRequirements));
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({
      DEVNET: "off",
      FACILITATOR_MODE: "http",
      FACILITATOR_URL: url,
      X402_NETWORK: "eip155:84532",
      PAY_TO: devnet.payTo,
      MONERO_DAEMON_URL: devnet.moneroUrl,
    });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server?.close(r));
    await devnet?.close();
  });

  it("verifies and settles each paid call through the facilitator URL", async () => {
    const paywall = await (await fetch(`${t.url}/v1/paywall`)).json();
    expect(paywall).toMatchObject({ facilitator_mode: "http", network: "eip155:84532", payTo: devnet.payTo });
    const payer = createPayer(devnet.payers[2].privateKey, { networks: ["eip155:84532"] });
    const before = devnet.evm.usdcBalanceOf(devnet.payTo);
    const r = await payer.payFetch(`${t.url}/v1/q/xmr/height`);
    expect(r.status).toBe(200);
    // GET /supported once at start-up (the configured network must be supported), then one verify and one settle.
    expect(seen).toEqual(["GET /supported", "POST /verify", "POST /settle"]);
    expect(devnet.evm.usdcBalanceOf(devnet.payTo)).toBe(before + 1000n);
  });
});
