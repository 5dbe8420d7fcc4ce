/**
 * POST /v1/private/watch/{id}/test fires exactly one webhook and answers
 * what happened (status, latency, error) in the same call. A failed test is
 * never retried by the tick, never billed, and never counts toward the 50
 * consecutive failures that retire a watch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

describe("the test webhook: one attempt, answered synchronously, outside the retry and retirement machinery", () => {
  let s: WatchStack;
  let watchId: string;
  let token: string;
  const path = "/test-event";

  beforeAll(async () => {
    s = await startWatchStack({ https: false });
    const alice = s.wallets[0]!;
    const r = await s.paid("/v1/private/watch", { chain: "monero", address: alice.address, viewKey: alice.viewKey, webhookUrl: s.receiver.hookUrl(path) });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    watchId = r.json.watchId;
    token = r.json.watchToken;
    s.receiver.registerSecret(watchId, r.json.webhookSecret);
    // The first tick's scan_complete goes out and is accepted: from here the receiver sees only test events.
    await s.tick();
  });
  afterAll(async () => s?.close());

  const attemptsOf = (nonce: string) => s.receiver.attempts.filter((a) => a.nonce === nonce);
  const watchRow = () => s.t.db.db.selectFrom("watches").selectAll().where("id", "=", watchId).executeTakeFirstOrThrow();
  const testRows = () => s.t.db.db.selectFrom("webhook_outbox").select(["id", "status"]).where("watch_id", "=", watchId).where("event", "=", "synthetic_test").execute();

  it("a receiver that fails: the answer says so at once; no retry, no failure counted, nothing queued", async () => {
    s.receiver.failPath(path, 503);
    const before = await watchRow();
    const nonces: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.call("POST", `/v1/private/watch/${watchId}/test`, { token });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json).toMatchObject({ watchId, event: "synthetic_test", delivered: false, receiverStatus: 503, retried: false });
      expect(r.json.error).toContain("503");
      expect(r.json.latencyMs).toEqual(expect.any(Number));
      nonces.push(r.json.nonce);
      expect(attemptsOf(r.json.nonce), "exactly one attempt per call").toHaveLength(1);
    }
    const after = await watchRow();
    expect(after.consecutive_failures).toBe(before.consecutive_failures);
    expect(after.status).toBe("active");
    expect(after.credit_atomic).toBe(before.credit_atomic);
    expect(await testRows(), "a test event is never queued for later").toEqual([]);

    // The receiver recovers; ticks later the failed tests are still never sent again.
    s.receiver.failPath(path, null);
    s.advance(120_000);
    await s.tick();
    s.advance(120_000);
    await s.tick();
    for (const n of nonces) expect(attemptsOf(n), `nonce ${n} retried`).toHaveLength(1);
  });

  it("a receiver that accepts: delivered, its status and latency, the signed body; no charge and no delivery count", async () => {
    const before = await watchRow();
    const r = await s.call("POST", `/v1/private/watch/${watchId}/test`, { token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ delivered: true, receiverStatus: 200, error: null, retried: false });
    expect(r.json.latencyMs).toBeGreaterThanOrEqual(0);
    const [attempt] = attemptsOf(r.json.nonce);
    expect(attempt!.signatureValid).toBe(true);
    expect(attempt!.body).toMatchObject({ event: "synthetic_test", test: true });
    const after = await watchRow();
    expect(after.credit_atomic).toBe(before.credit_atomic);
    expect(after.delivery_count).toBe(before.delivery_count);
  });

  it("a receiver that never listens: an error, no status, still one attempt and nothing counted", async () => {
    const before = await watchRow();
    await s.t.db.db.updateTable("watches").set({ webhook_url: "http://127.0.0.1:9/closed" }).where("id", "=", watchId).execute();
    const r = await s.call("POST", `/v1/private/watch/${watchId}/test`, { token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ delivered: false, receiverStatus: null, retried: false });
    expect(r.json.error).toMatch(/ECONNREFUSED|connect/i);
    expect((await watchRow()).consecutive_failures).toBe(before.consecutive_failures);
    expect(await testRows()).toEqual([]);
  });

  it("the snippets guide names the payment network actually in use (the devnet's Base Sepolia), and the test route as it behaves", async () => {
    const g = await s.call("GET", "/v1/private/snippets");
    expect(g.status).toBe(200);
    expect(g.json.create.pay_in_usdc.price).toContain(s.t.app.config.X402_NETWORK);
    expect(s.t.app.config.X402_NETWORK).toBe("eip155:84532");
    expect(g.json.create.pay_in_usdc.price).not.toContain("eip155:8453)");
    expect(g.json.test.note).toContain("never retried");
  });
});
