/**
 * Input a paid route can refuse on its own is refused before the 402, so
 * nobody is asked to pay (or charged) for a 400: the historical scan (missing
 * address, a view key of another address, an unconfigured chain, heights the
 * wrong way round or above the tip) and watch creation with a webhook URL that
 * can never deliver. Each call is also made by a paying client: it gets the
 * same refusal, and its USDC balance does not move.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

describe("paid routes refuse bad input before the 402, and nothing is charged", () => {
  let s: WatchStack;
  let tip: number;
  const balance = () => s.devnet.evm.usdcBalanceOf(s.devnet.payers[0]!.address);

  beforeAll(async () => {
    s = await startWatchStack({ https: false });
    s.devnet.monerod.mine(3);
    tip = s.devnet.monerod.height();
  });
  afterAll(async () => s?.close());

  async function refusedBothWays(path: string, body: Record<string, unknown>, status: number, code: string): Promise<void> {
    const before = balance();
    const plain = await s.call("POST", path, { body });
    expect(plain.status, `${code}: ${JSON.stringify(plain.json)}`).toBe(status);
    expect(plain.json.error.code).toBe(code);
    expect(plain.headers.get("payment-required")).toBeNull();
    const paying = await s.paid(path, body);
    expect(paying.status, `${code} (paying client): ${JSON.stringify(paying.json)}`).toBe(status);
    expect(paying.json.error.code).toBe(code);
    expect(paying.headers.get("payment-response")).toBeNull();
    expect(balance(), `${code}: the payer's USDC did not move`).toBe(before);
  }

  it("historical scan: each refusal is a 400/503 without a 402", async () => {
    const [alice, bob] = s.wallets;
    const base = { chain: "monero", address: alice!.address, viewKey: alice!.viewKey };
    // A valid request does reach the paywall (the control).
    const ok = await s.call("POST", "/v1/private/historical", { body: { ...base, birthdayHeight: 0, toHeight: tip } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(402);

    await refusedBothWays("/v1/private/historical", { chain: "monero", viewKey: alice!.viewKey }, 400, "address_required");
    const mismatched = await s.call("POST", "/v1/private/historical", { body: { ...base, viewKey: bob!.viewKey } });
    expect(mismatched.status, JSON.stringify(mismatched.json)).toBe(400);
    await refusedBothWays("/v1/private/historical", { ...base, viewKey: bob!.viewKey }, 400, mismatched.json.error.code);
    // Zcash is configured on the devnet: a key that is no UFVK is a 400 before the 402.
    const badUfvk = await s.call("POST", "/v1/private/historical", { body: { chain: "zcash", viewKey: "uviewtest1xyz" } });
    expect(badUfvk.status, JSON.stringify(badUfvk.json)).toBe(400);
    await refusedBothWays("/v1/private/historical", { chain: "zcash", viewKey: "uviewtest1xyz" }, 400, badUfvk.json.error.code);
    await refusedBothWays("/v1/private/historical", { ...base, birthdayHeight: 2, toHeight: 1 }, 400, "invalid_height");
    await refusedBothWays("/v1/private/historical", { ...base, toHeight: tip + 1000 }, 400, "invalid_height");
    await refusedBothWays("/v1/private/historical", { ...base, birthdayHeight: tip + 1000 }, 400, "invalid_height");
  });

  it("watch creation: a webhook URL that can never deliver (port 0) is refused before the 402", async () => {
    const alice = s.wallets[0]!;
    await refusedBothWays(
      "/v1/private/watch",
      { chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: "http://127.0.0.1:0/hook" },
      400,
      "invalid_webhook_url",
    );
    // A name that does not resolve reads like any other DNS-based refusal.
    const nx = await s.call("POST", "/v1/private/watch", {
      body: { chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: "https://no-such-host.invalid/hook" },
    });
    expect(nx.status).toBe(400);
    expect(nx.json.error.details).toEqual({ rule: "host_not_public" });
  });
});
