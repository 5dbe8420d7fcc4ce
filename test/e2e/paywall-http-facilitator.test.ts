/**
 * A paid call through the real app on the devnet with FACILITATOR_MODE=http
 * and no FACILITATOR_URL: the service calls the devnet's facilitator over
 * loopback HTTP (as it calls a hosted facilitator in production), which
 * verifies and settles once, on the devnet chain. Without the setting the
 * devnet service keeps settling in its own process (local mode), and how the
 * devnet's overlay decides between the two.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { applyConfigOverlay, loadConfig } from "../../src/config.js";
import { createApp } from "../../src/app.js";
import { createPayer } from "../../src/x402/payer.js";
import { silentLog, startTestApp, tempDir, type TestApp } from "../helpers/app.js";

const ROUTE = "/v1/q/xmr/height";

describe("the devnet service with FACILITATOR_MODE=http", () => {
  let devnet: SimulatedDevnet;
  let t: TestApp;

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    t = await startTestApp({ DEVNET: "on", FACILITATOR_MODE: "http" }, { devnet });
  });
  afterAll(async () => {
    await t?.close();
    await devnet?.close();
  });

  it("calls the devnet's facilitator, and says so in /v1/paywall", async () => {
    expect(t.app.config).toMatchObject({ FACILITATOR_MODE: "http", FACILITATOR_URL: devnet.facilitatorUrl });
    const paywall = (await (await fetch(`${t.url}/v1/paywall`)).json()) as { facilitator: string; facilitator_mode: string };
    expect(paywall).toMatchObject({ facilitator: devnet.facilitatorUrl, facilitator_mode: "http" });
    // The start-up check asked the facilitator's /supported over HTTP.
    expect(devnet.facilitator.calls.supported).toBeGreaterThanOrEqual(1);
  });

  it("a paid call is verified and settled once by the devnet's facilitator, on chain, also when it is sent again", async () => {
    const challenge = await fetch(`${t.url}${ROUTE}`);
    expect(challenge.status).toBe(402);
    const price = BigInt(decodePaymentRequiredHeader(challenge.headers.get("payment-required")!).accepts[0]!.amount);
    const payer = devnet.payers[4]!;
    const [payer0, payee0] = [devnet.evm.usdcBalanceOf(payer.address), devnet.evm.usdcBalanceOf(devnet.payTo)];
    const calls0 = { ...devnet.facilitator.calls };
    const signed = await createPayer(payer.privateKey, { networks: ["eip155:84532"] }).signFor(decodePaymentRequiredHeader(challenge.headers.get("payment-required")!));

    const r = await fetch(`${t.url}${ROUTE}`, { headers: { [signed.headerName]: signed.header } });
    expect(r.status).toBe(200);
    const settled = decodePaymentResponseHeader(r.headers.get("payment-response")!);
    expect(settled).toMatchObject({ success: true, network: "eip155:84532" });
    expect(devnet.facilitator.calls).toEqual({ ...calls0, verify: calls0.verify + 1, settle: calls0.settle + 1 });
    // On chain: one transferWithAuthorization, sent by the devnet facilitator's gas key.
    expect(devnet.evm.chain.getTransaction(settled.transaction)).toMatchObject({ from: devnet.facilitator.address, status: "success" });
    expect(devnet.facilitator.address).toBe(privateKeyToAccount(devnet.facilitatorKey).address);
    expect(devnet.evm.usdcBalanceOf(payer.address)).toBe(payer0 - price);
    expect(devnet.evm.usdcBalanceOf(devnet.payTo)).toBe(payee0 + price);
    const row = await t.db.db.selectFrom("payments").selectAll().where("tx_hash", "=", settled.transaction).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "settled", payer: payer.address.toLowerCase() });

    // The same paid request again: answered from the service's record of the payment; the facilitator is not asked again, nothing moves.
    const again = await fetch(`${t.url}${ROUTE}`, { headers: { [signed.headerName]: signed.header } });
    expect(again.status).toBe(200);
    expect(decodePaymentResponseHeader(again.headers.get("payment-response")!).transaction).toBe(settled.transaction);
    expect(devnet.facilitator.calls).toEqual({ ...calls0, verify: calls0.verify + 1, settle: calls0.settle + 1 });
    expect(devnet.evm.usdcBalanceOf(payer.address)).toBe(payer0 - price);
  });

  it("without FACILITATOR_MODE the devnet service settles in its own process, as before", async () => {
    const local = await startTestApp({}, { devnet });
    try {
      expect(local.app.config.FACILITATOR_MODE).toBe("local");
      const calls0 = { ...devnet.facilitator.calls };
      const r = await createPayer(devnet.payers[5]!.privateKey, { networks: ["eip155:84532"] }).payFetch(`${local.url}${ROUTE}`);
      expect(r.status).toBe(200);
      expect(decodePaymentResponseHeader(r.headers.get("payment-response")!).success).toBe(true);
      expect(devnet.facilitator.calls).toEqual(calls0);
    } finally {
      await local.close();
    }
  });
});

describe("the devnet overlay and the facilitator settings", () => {
  const overlay = {
    devnet: true,
    FACILITATOR_MODE: "local",
    EVM_RPC_URL: "http://127.0.0.1:1",
    FACILITATOR_URL: "http://127.0.0.1:2",
    X402_NETWORK: "eip155:84532",
  } as const;

  it("a given http mode calls the devnet's facilitator, even where another URL was given; any other mode settles locally", () => {
    expect(applyConfigOverlay(loadConfig({ DEVNET: "on", FACILITATOR_MODE: "http" }), overlay)).toMatchObject({ FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:2" });
    expect(applyConfigOverlay(loadConfig({ DEVNET: "on", FACILITATOR_MODE: "http", FACILITATOR_URL: "https://facilitator.example" }), overlay)).toMatchObject({
      FACILITATOR_MODE: "http",
      FACILITATOR_URL: "http://127.0.0.1:2",
    });
    expect(applyConfigOverlay(loadConfig({ DEVNET: "on", FACILITATOR_MODE: "cdp" }), overlay).FACILITATOR_MODE).toBe("local");
    expect(applyConfigOverlay(loadConfig({ DEVNET: "on" }), overlay).FACILITATOR_MODE).toBe("local");
  });

  it("http mode on a devnet whose payment chain is real (no facilitator of its own) and no URL: the app refuses to start, naming FACILITATOR_URL", async () => {
    const realChain = { devnet: true, FACILITATOR_MODE: "local", PAY_TO: "0x3333333333333333333333333333333333333333" } as const;
    const config = applyConfigOverlay(loadConfig({ DEVNET: "on", FACILITATOR_MODE: "http", EVM_RPC_URL: "http://127.0.0.1:8545", DATA_DIR: tempDir(), LOG_LEVEL: "silent" }), realChain);
    expect(config.FACILITATOR_MODE).toBe("http");
    expect(config.FACILITATOR_URL).toBeUndefined();
    await expect(createApp(config, { log: silentLog })).rejects.toThrow(/FACILITATOR_MODE=http needs FACILITATOR_URL/);
  });
});
