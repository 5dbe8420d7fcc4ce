/**
 * Start-up sanity against the facilitator: `vigil api` asks its /supported
 * once and refuses to start, with a clear message, when the configured
 * network is not among what it settles; it starts when it is.
 */
import http from "node:http";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli } from "../helpers/process.js";
import { storeDataDir } from "../helpers/app.js";

describe("the facilitator's /supported is checked at start-up", () => {
  let server: http.Server;
  let url: string;
  let asked = 0;
  const dirs: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.method === "GET" && req.url === "/supported") {
        asked++;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }], extensions: [], signers: {} }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const env = (network: string) => {
    const dir = storeDataDir();
    dirs.push(dir);
    return {
      DEVNET: "off",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dir,
      FACILITATOR_MODE: "http",
      FACILITATOR_URL: url,
      X402_NETWORK: network,
      PAY_TO: "0x1111111111111111111111111111111111111111",
    };
  };

  it("refuses to start with a clear message when the configured network is not supported", async () => {
    const before = asked;
    const err = await startCli(["api"], env("eip155:84532")).then(
      async (child) => {
        await child.stop();
        return undefined;
      },
      (e: Error) => e,
    );
    expect(err, "the API started").toBeInstanceOf(Error);
    expect(err!.message).toMatch(/child exited with 1/);
    expect(err!.message).toContain(`The facilitator ${url} does not support x402 v2 "exact" payments on eip155:84532`);
    expect(err!.message).toContain("v2 exact on eip155:8453");
    expect(err!.message).not.toMatch(/at .*\.[jt]s:\d+/);
    expect(asked).toBe(before + 1);
  }, 90_000);

  it("starts when the facilitator supports the configured network", async () => {
    const child = await startCli(["api"], env("eip155:8453"));
    try {
      expect((await fetch(`${child.url}/v1/health`)).status).toBeLessThan(600);
    } finally {
      await child.stop();
    }
  }, 90_000);
});
