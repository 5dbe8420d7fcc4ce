/**
 * Secrets never reach the logs: the whole request path runs at trace level
 * into a captured stream while a watch is created (paid), polled, tested,
 * and a seed phrase is turned into a UFVK (and refused once).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { createPayer } from "../../src/x402/payer.js";
import { startWorkers } from "../../src/workers.js";
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { captureLogs } from "../helpers/log-capture.js";

const PHRASE = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("secrets never appear in logs", () => {
  let devnet: SimulatedDevnet;
  let t: TestApp;
  let receiver: Receiver;
  const logs = captureLogs();

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    receiver = await startReceiver();
    t = await startTestApp({ WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOW_PRIVATE: "1", MONERO_CONFIRMATIONS: "1" }, { devnet, log: logs.log });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await devnet?.close();
  });

  it("keeps view keys, tokens, webhook secrets, payment headers and phrases out of every log line", async () => {
    const wallet = devnet.wallets[0];
    const payer = createPayer(devnet.payers[7].privateKey, { networks: ["eip155:84532"] });
    const created = await payer.payFetch(`${t.url}/v1/private/watch`, {
      method: "POST",
      body: JSON.stringify({ chain: "monero", address: wallet.address, viewKey: wallet.viewKey, webhookUrl: receiver.url }),
    });
    expect(created.status).toBe(200);
    const watch = (await created.json()) as { watchId: string; watchToken: string; webhookSecret: string };
    // A wrong key too: the 400 path must not log the key either.
    const bad = await fetch(`${t.url}/v1/private/watch`, {
      method: "POST",
      body: JSON.stringify({ chain: "monero", address: wallet.address, viewKey: devnet.wallets[1].viewKey, webhookUrl: receiver.url }),
    });
    expect(bad.status).toBe(400);

    devnet.monerod.send(wallet.address, 1_000_000_000_000n);
    devnet.monerod.mine(2);
    const workers = startWorkers(t.app, { autostart: false });
    await workers.tickOnce();
    expect((await fetch(`${t.url}/v1/private/watch/${watch.watchId}/test`, { method: "POST", headers: { "x-watch-token": watch.watchToken } })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/private/watch/${watch.watchId}`, { headers: { "x-watch-token": watch.watchToken } })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/private/watch/${watch.watchId}`, { headers: { "x-watch-token": "wt_wrong" } })).status).toBe(401);

    const derive = (seed: string) =>
      fetch(`${t.url}/v1/private/derive-viewkey`, { method: "POST", body: JSON.stringify({ chain: "zcash", seed }) });
    expect((await derive(PHRASE)).status).toBe(200);
    expect((await derive(PHRASE.replace(/about$/, "abandon"))).status).toBe(400);

    const all = logs.lines.join("");
    expect(all).toContain("\"msg\":\"request\""); // trace level really logged the requests
    for (const secret of [wallet.viewKey!, devnet.wallets[1].viewKey!, watch.watchToken, watch.webhookSecret, "abandon abandon"]) {
      expect(all.includes(secret), `log contains ${secret.slice(0, 12)}…`).toBe(false);
    }
    expect(all).not.toMatch(/"payment-signature"\s*:\s*"ey/i);
    // The webhook secret is not in any answer after creation either.
    const status = await (await fetch(`${t.url}/v1/private/watch/${watch.watchId}`, { headers: { "x-watch-token": watch.watchToken } })).text();
    for (const secret of [wallet.viewKey!, watch.watchToken, watch.webhookSecret]) expect(status.includes(secret)).toBe(false);
    await workers.stop();
  });
});
