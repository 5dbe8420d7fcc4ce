import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../src/core/clock.js";
import { ServiceError } from "../../../../src/core/errors.js";
import { MoneroDaemonClient, createMoneroDaemon } from "../../../../src/chains/monero/daemon-client.js";
import { createMoneroHistorical } from "../../../../src/chains/monero/historical.js";
import { historicalInput, historicalRoute, moneroHistoricalScan } from "../../../../src/watch/historical-route.js";
import type { RequestContext } from "../../../../src/http/route-table.js";
import { TEST_LOOKAHEAD, startTestMonerod } from "./helpers.js";

type Monerod = Awaited<ReturnType<typeof startTestMonerod>>;
const XMR = 1_000_000_000_000n;

describe("historical scan against the simulated monerod", () => {
  let d: Monerod;
  let client: MoneroDaemonClient;
  const clock = new ManualClock(Date.now());
  const txs: Record<string, { txid: string; height: number }> = {};
  let firstHeight = 0;

  beforeAll(async () => {
    d = await startTestMonerod({ initialBlocks: 2 });
    client = new MoneroDaemonClient({ url: d.url, attempts: 1 });
    const [alice] = d.wallets;
    firstHeight = d.height() + 1;
    txs.a = { txid: d.send(alice!.address, 1n * XMR), height: firstHeight };
    d.mine(1);
    txs.b = { txid: d.send(alice!.subaddresses[0]!.address, 2n * XMR), height: firstHeight + 1 };
    d.send(d.wallets[1]!.address, 5n * XMR); // someone else
    d.mine(1);
    d.mine(8);
    txs.c = { txid: d.send(alice!.address, 3n * XMR), height: d.height() + 1 };
    d.mine(2);
  });
  afterAll(async () => {
    await client.close();
    await d.close();
  });

  const service = (opts: Partial<Parameters<typeof createMoneroHistorical>[0]> = {}) =>
    createMoneroHistorical({ daemon: client, clock, lookahead: TEST_LOOKAHEAD, maxBlocks: 1000, ...opts });

  it("totals a primary address over the whole range, with the per-output list", async () => {
    const alice = d.wallets[0]!;
    const r = await service()({ address: alice.address, viewKey: alice.viewKey, includeOutputs: true });
    expect(r).toMatchObject({
      chain: "monero",
      network: "testnet",
      from_height: 0,
      to_height: d.height(),
      tip_height: d.height(),
      scanned_blocks: d.height() + 1,
      received_atomic: String(6n * XMR),
      spent_atomic: "0",
      // a and b have ≥ 10 confirmations; c (2 confirmations) is still locked.
      spendable_atomic: String(3n * XMR),
      locked_atomic: String(3n * XMR),
      spent_visibility: "not_visible_with_view_key",
      output_count: 3,
    });
    expect(r.outputs!.map((o) => [o.txid, o.height, o.subaddress])).toEqual([
      [txs.a!.txid, txs.a!.height, { major: 0, minor: 0 }],
      [txs.b!.txid, txs.b!.height, { major: 0, minor: 1 }],
      [txs.c!.txid, txs.c!.height, { major: 0, minor: 0 }],
    ]);
    expect(r.notes.join(" ")).toMatch(/spend/);
    expect(JSON.stringify(r)).not.toContain(alice.viewKey);
  });

  it("respects birthdayHeight and toHeight, and leaves the list out unless asked", async () => {
    const alice = d.wallets[0]!;
    const r = await service()({ address: alice.address, viewKey: alice.viewKey, birthdayHeight: firstHeight + 1, toHeight: firstHeight + 1 });
    expect(r).toMatchObject({ from_height: firstHeight + 1, to_height: firstHeight + 1, scanned_blocks: 1, received_atomic: String(2n * XMR), output_count: 1 });
    expect(r.outputs).toBeUndefined();
  });

  it("a subaddress sees only its own payments", async () => {
    const alice = d.wallets[0]!;
    const r = await service()({ address: alice.subaddresses[0]!.address, viewKey: alice.viewKey });
    expect(r.received_atomic).toBe(String(2n * XMR));
  });

  it("refuses a range longer than maxBlocks up front with 400 range_too_large and a usable suggestion", async () => {
    const alice = d.wallets[0]!;
    d.resetRequestCounts();
    const err = await service({ maxBlocks: 5 })({ address: alice.address, viewKey: alice.viewKey }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(400);
    expect((err as ServiceError).code).toBe("range_too_large");
    expect((err as ServiceError).details).toMatchObject({ requested_blocks: d.height() + 1, max_blocks: 5, suggested_birthday_height: d.height() - 4 });
    expect(d.requestCounts().get_block ?? 0).toBe(0);
    const ok = await service({ maxBlocks: 5 })({ address: alice.address, viewKey: alice.viewKey, birthdayHeight: d.height() - 4 });
    expect(ok.scanned_blocks).toBe(5);
  });

  it("refuses a range holding more transactions than one call scans, counted from headers before any scanning", async () => {
    const alice = d.wallets[0]!;
    const total = d.height() + 1 + 4; // a coinbase per block + 4 transfers
    d.resetRequestCounts();
    const err = await service({ maxTxs: 6 })({ address: alice.address, viewKey: alice.viewKey }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: "range_too_large" });
    const details = (err as ServiceError).details as { estimated_txs: number; max_txs: number; suggested_birthday_height: number };
    expect(details).toMatchObject({ estimated_txs: total, max_txs: 6 });
    expect(d.requestCounts().get_block ?? 0).toBe(0);
    // The suggestion is the earliest start that fits: it works, one block earlier does not.
    const ok = await service({ maxTxs: 6 })({ address: alice.address, viewKey: alice.viewKey, birthdayHeight: details.suggested_birthday_height });
    expect(ok.to_height).toBe(d.height());
    await expect(
      service({ maxTxs: 6 })({ address: alice.address, viewKey: alice.viewKey, birthdayHeight: details.suggested_birthday_height - 1 }),
    ).rejects.toMatchObject({ code: "range_too_large" });
  });

  it("heights outside the chain are 400 invalid_height", async () => {
    const alice = d.wallets[0]!;
    await expect(service()({ address: alice.address, viewKey: alice.viewKey, toHeight: d.height() + 1 })).rejects.toMatchObject({
      status: 400,
      code: "invalid_height",
    });
    await expect(service()({ address: alice.address, viewKey: alice.viewKey, birthdayHeight: 5, toHeight: 4 })).rejects.toMatchObject({
      status: 400,
      code: "invalid_height",
    });
  });

  it("a scan that runs out of time stops with 504 scan_timeout and says how far it got", async () => {
    const alice = d.wallets[0]!;
    const err = await service({ deadlineMs: -1 })({ address: alice.address, viewKey: alice.viewKey }).catch((e: unknown) => e);
    expect((err as ServiceError).status).toBe(504);
    expect((err as ServiceError).code).toBe("scan_timeout");
    expect((err as ServiceError).details).toMatchObject({ scanned_through: -1, from_height: 0 });
  });

  it("a wrong key is 400 before any chain work", async () => {
    const alice = d.wallets[0]!;
    const wrongKey = d.wallets[1]!.viewKey;
    const err = await service()({ address: alice.address, viewKey: wrongKey }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: "view_key_mismatch" });
    expect(JSON.stringify({ m: (err as Error).message, d: (err as ServiceError).details })).not.toContain(wrongKey);
  });

  describe("route", () => {
    const ctx = {} as RequestContext;
    const route = () => historicalRoute({ monero: moneroHistoricalScan(service()) });

    it("is declared as the spec says", () => {
      const r = route();
      expect(r).toMatchObject({ method: "POST", path: "/v1/private/historical", operationId: "privateHistorical", price: 500_000n, mcpTool: "service_private_watch_historical" });
    });

    it("answers a Monero scan through the validated input", async () => {
      const alice = d.wallets[0]!;
      const input = historicalInput.parse({ chain: "monero", address: alice.address, viewKey: alice.viewKey, includeNotes: true });
      const out = (await route().handler(input, ctx)) as { received_atomic: string; outputs: unknown[] };
      expect(out.received_atomic).toBe(String(6n * XMR));
      expect(out.outputs).toHaveLength(3);
      // The published schema is the whole answer: the route passes on every field the scan returns.
      const direct = await service()({ address: alice.address, viewKey: alice.viewKey, includeOutputs: true });
      expect(out).toEqual(direct);
    });

    it("Monero without an address is 400; Zcash is 503 until its scanner is plugged in", async () => {
      const alice = d.wallets[0]!;
      await expect(route().handler(historicalInput.parse({ chain: "monero", viewKey: alice.viewKey }), ctx)).rejects.toMatchObject({
        status: 400,
        code: "address_required",
      });
      await expect(route().handler(historicalInput.parse({ chain: "zcash", viewKey: "uview1..." }), ctx)).rejects.toMatchObject({
        status: 503,
        code: "chain_not_configured",
      });
    });

    it("rejects bad input shapes", () => {
      expect(historicalInput.safeParse({ chain: "bitcoin", viewKey: "x" }).success).toBe(false);
      expect(historicalInput.safeParse({ chain: "monero", viewKey: "x", birthdayHeight: -1 }).success).toBe(false);
      expect(historicalInput.safeParse({ chain: "monero", viewKey: "x", toHeight: 1.5 }).success).toBe(false);
    });

    it("without a Monero daemon: 503 chain_not_configured", async () => {
      const alice = d.wallets[0]!;
      const r = historicalRoute({ monero: moneroHistoricalScan(createMoneroHistorical({ daemon: createMoneroDaemon(undefined), clock, lookahead: TEST_LOOKAHEAD })) });
      await expect(r.handler(historicalInput.parse({ chain: "monero", address: alice.address, viewKey: alice.viewKey }), ctx)).rejects.toMatchObject({
        status: 503,
        code: "chain_not_configured",
      });
    });
  });
});
