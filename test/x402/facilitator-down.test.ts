/**
 * A paid call while the x402 facilitator (FACILITATOR_MODE=http) stops
 * answering, on the real app: the facilitator answered /supported at start-up,
 * then holds a /verify without an answer. The same payment sent again
 * meanwhile is 409 payment_in_progress (the first request holds it); when the
 * facilitator's connection drops, the first is 502 facilitator_unavailable,
 * the payment is released (nothing was charged, nothing recorded), and the
 * same payment retried while the facilitator is gone is 502 again, not 409.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { generatePrivateKey } from "viem/accounts";
import { createPayer } from "../../src/x402/payer.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

const NETWORK = "eip155:84532";

/** A facilitator that answers /supported and holds every /verify until `goAway`, which drops them and stops listening. */
async function startHoldingFacilitator() {
  const held: http.ServerResponse[] = [];
  const waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url === "/supported") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ kinds: [{ x402Version: 2, scheme: "exact", network: NETWORK }], extensions: [], signers: {} }));
      return;
    }
    if (req.url === "/verify") {
      held.push(res);
      waiting.splice(0).forEach((w) => w());
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    /** Resolves once a /verify is being held. */
    verifyHeld: () => new Promise<void>((r) => (held.length > 0 ? r() : waiting.push(r))),
    goAway: async () => {
      for (const res of held) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe("the facilitator stops answering during a paid call", () => {
  let facilitator: Awaited<ReturnType<typeof startHoldingFacilitator>>;
  let t: TestApp;

  beforeAll(async () => {
    facilitator = await startHoldingFacilitator();
    t = await startTestApp({ FACILITATOR_MODE: "http", FACILITATOR_URL: facilitator.url, X402_NETWORK: NETWORK, PAY_TO: "0x1111111111111111111111111111111111111111" });
  });
  afterAll(async () => {
    await t?.close();
    await facilitator?.goAway();
  });

  it("the same payment meanwhile is 409 payment_in_progress; then 502 facilitator_unavailable, and nothing is kept", async () => {
    const post = await fetch(`${t.url}/v1/board/bounties`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Facilitator gone", body: "A notice to boost while the facilitator is away." }),
    });
    expect(post.status).toBe(201);
    const notice = (await post.json()) as { id: string };
    const boost = (headers: Record<string, string> = {}) =>
      fetch(`${t.url}/v1/board/bounties/${notice.id}/boost`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ amountAtomic: "150000" }),
      });
    const unpaid = await boost();
    expect(unpaid.status).toBe(402);
    const payer = createPayer(generatePrivateKey(), { networks: [NETWORK] });
    const signed = await payer.signFor(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!));
    const paying = { [signed.headerName]: signed.header };

    const first = boost(paying);
    await facilitator.verifyHeld();
    const again = await boost(paying);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("payment_in_progress");

    await facilitator.goAway();
    const dropped = await first;
    expect(dropped.status).toBe(502);
    expect(await dropped.json()).toMatchObject({ error: { code: "facilitator_unavailable", message: expect.stringContaining("nothing was charged") } });
    expect(await t.db.db.selectFrom("payments").select("id").execute()).toEqual([]);

    const retried = await boost(paying);
    expect(retried.status).toBe(502);
    expect(((await retried.json()) as { error: { code: string } }).error.code).toBe("facilitator_unavailable");
  });
});
