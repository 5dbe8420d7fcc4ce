/**
 * The x402 paywall over real HTTP against the devnet: its EVM JSON-RPC chain
 * with USDC and the built-in local facilitator settling on it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { sql } from "kysely";
import { privateKeyToAccount, mnemonicToAccount } from "viem/accounts";
import { bytesToHex, type Hex } from "viem";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { defineRoute, StreamBody } from "../../src/http/route-table.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { DEVNET_MNEMONIC } from "../../devnet/evm.js";
import { createPayer } from "../../src/x402/payer.js";
import { createLocalFacilitator } from "../../src/x402/local-facilitator.js";
import { MIN_VALIDITY_SECONDS as MIN_VALIDITY } from "../../src/x402/exact-payload.js";
const MIN_VALIDITY_SECONDS = Number(MIN_VALIDITY);
import { startTestApp, tempDir, type TestApp } from "../helpers/app.js";
import { authorizationTypes } from "@x402/evm";

const PRICE = 10_000n; // $0.01

const keyAt = (i: number): Hex => bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!);

/** Signs an EIP-3009 authorisation by hand, so a test can choose every field. */
async function signPayment(
  key: Hex,
  req: PaymentRequirements,
  over: Partial<{ value: string; to: string; validAfter: string; validBefore: string; chainId: number; name: string }> = {},
): Promise<PaymentPayload> {
  const account = privateKeyToAccount(key);
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: account.address,
    to: (over.to ?? req.payTo) as Hex,
    value: over.value ?? req.amount,
    validAfter: over.validAfter ?? "0",
    validBefore: over.validBefore ?? String(now + 120),
    nonce: bytesToHex(randomBytes(32)),
  };
  const signature = await account.signTypedData({
    domain: {
      name: over.name ?? String(req.extra.name),
      version: String(req.extra.version),
      chainId: over.chainId ?? Number(req.network.split(":")[1]),
      verifyingContract: req.asset as Hex,
    },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return { x402Version: 2, accepted: req, payload: { authorization, signature } } as PaymentPayload;
}

describe("x402 paywall end to end (devnet chain + local facilitator)", () => {
  let devnet: SimulatedDevnet;
  let t: TestApp;
  let drain: ((payerKey: Hex) => Promise<void>) | undefined;
  /** Handler invocations per tag, counted outside any transaction. */
  const runs = new Map<string, number>();

  // A paid route whose work is a row in a table: it must exist exactly when the payment settled.
  const work = defineRoute({
    method: "POST",
    path: "/v1/test/work",
    operationId: "testWork",
    summary: "paid test work",
    input: z.object({ tag: z.string(), delayMs: z.number().int().max(2000).optional(), drainWith: z.string().optional() }),
    output: z.object({ tag: z.string() }),
    price: PRICE,
    handler: async (input, ctx) => {
      runs.set(input.tag, (runs.get(input.tag) ?? 0) + 1);
      await sql`INSERT INTO test_paid_work (tag, payer) VALUES (${input.tag}, ${ctx.payment!.payer})`.execute(ctx.db);
      if (input.delayMs) await new Promise((r) => setTimeout(r, input.delayMs));
      // The payer empties its balance while the work runs: settlement must then fail.
      if (input.drainWith && drain) await drain(input.drainWith as Hex);
      return { tag: input.tag };
    },
  });

  // A read-only paid route: its work runs outside a transaction, and a failed settlement withholds the answer.
  const readOnlyWork = defineRoute({
    method: "POST",
    path: "/v1/test/read",
    operationId: "testRead",
    summary: "paid read-only work",
    input: z.object({ drainWith: z.string().optional() }),
    output: z.object({ secret: z.string() }),
    price: PRICE,
    readOnly: true,
    minValiditySeconds: 60,
    handler: async (input) => {
      runs.set("read", (runs.get("read") ?? 0) + 1);
      if (input.drainWith && drain) await drain(input.drainWith as Hex);
      return { secret: "the paid answer" };
    },
  });

  // A read-only paid route that streams: the stream is opened only after settlement.
  let streamOpens = 0;
  const streamWork = defineRoute({
    method: "POST",
    path: "/v1/test/stream",
    operationId: "testStream",
    summary: "paid streamed work",
    input: z.object({ drainWith: z.string().optional() }),
    output: z.string(),
    price: PRICE,
    readOnly: true,
    minValiditySeconds: 60,
    handler: async (input) => {
      if (input.drainWith && drain) await drain(input.drainWith as Hex);
      return new StreamBody(async function* () {
        streamOpens++;
        for (let i = 0; i < 3; i++) yield `line ${i}\n`;
      }, "text/plain; charset=utf-8");
    },
  });

  async function rows(): Promise<{ work: number; payments: number; settled: number }> {
    const w = await sql<{ n: string }>`SELECT count(*)::text AS n FROM test_paid_work`.execute(t.db.db);
    const p = await sql<{ n: string; s: string }>`
      SELECT count(*)::text AS n, count(*) FILTER (WHERE status = 'settled')::text AS s FROM payments`.execute(t.db.db);
    return { work: Number(w.rows[0].n), payments: Number(p.rows[0].n), settled: Number(p.rows[0].s) };
  }

  async function challenge(): Promise<PaymentRequired> {
    const r = await fetch(`${t.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag: "probe" }) });
    expect(r.status).toBe(402);
    return decodePaymentRequiredHeader(r.headers.get("payment-required")!);
  }

  const call = (tag: string, header: string, extra: Record<string, unknown> = {}, name = "PAYMENT-SIGNATURE") =>
    fetch(`${t.url}/v1/test/work`, { method: "POST", headers: { [name]: header }, body: JSON.stringify({ tag, ...extra }) });

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    t = await startTestApp({}, { devnet, extraRoutes: [work, readOnlyWork, streamWork] });
    await sql`CREATE TABLE test_paid_work (tag text NOT NULL, payer text NOT NULL)`.execute(t.db.db);
    const sideFacilitator = createLocalFacilitator({ rpcUrl: devnet.evmUrl, privateKey: keyAt(17), network: "eip155:84532" });
    drain = async (payerKey) => {
      const balance = devnet.evm.usdcBalanceOf(privateKeyToAccount(payerKey).address);
      const req: PaymentRequirements = { ...(await challenge()).accepts[0], amount: balance.toString(), payTo: mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 16 }).address };
      const p = await signPayment(payerKey, req);
      const s = await sideFacilitator.settle(p, req);
      if (!s.success) throw new Error(`drain failed: ${s.errorReason}`);
    };
  });
  afterAll(async () => {
    await t?.close();
    await devnet?.close();
  });

  it("answers 402 with a base64 PAYMENT-REQUIRED header, the same object as body, and no-store", async () => {
    const r = await fetch(`${t.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag: "x" }) });
    expect(r.status).toBe(402);
    expect(r.headers.get("cache-control")).toBe("no-store");
    const header = r.headers.get("payment-required")!;
    expect(header).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const pr = decodePaymentRequiredHeader(header);
    expect(await r.json()).toEqual(pr);
    expect(pr).toMatchObject({
      x402Version: 2,
      error: "payment_required",
      resource: { url: `${t.url}/v1/test/work`, mimeType: "application/json" },
      accepts: [
        {
          scheme: "exact",
          network: "eip155:84532",
          amount: "10000",
          asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
          payTo: devnet.payTo,
          maxTimeoutSeconds: 300,
          extra: { name: "USDC", version: "2" },
        },
        // The devnet offers payment channels too (docs/batch-settlement.md): the same price, after exact.
        { scheme: "batch-settlement", network: "eip155:84532", amount: "10000", payTo: devnet.payTo, extra: { receiverAuthorizer: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) } },
      ],
    });
    expect(pr.accepts).toHaveLength(2);
  });

  it("a paid call succeeds once, settles on chain, records the payment, and replay is refused", async () => {
    const before = await rows();
    const payer = privateKeyToAccount(keyAt(1));
    const balance0 = devnet.evm.usdcBalanceOf(payer.address);
    const payee0 = devnet.evm.usdcBalanceOf(devnet.payTo);
    const req = (await challenge()).accepts[0];
    const header = encodePaymentSignatureHeader(await signPayment(keyAt(1), req));

    const r = await call("paid-once", header);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ tag: "paid-once" });
    expect(r.headers.get("cache-control")).toBe("no-store");
    const settle = decodePaymentResponseHeader(r.headers.get("payment-response")!);
    expect(settle).toMatchObject({ success: true, network: "eip155:84532" });
    expect(settle.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.headers.get("x-payment-response")).toBe(r.headers.get("payment-response"));
    expect(devnet.evm.usdcBalanceOf(payer.address)).toBe(balance0 - PRICE);
    expect(devnet.evm.usdcBalanceOf(devnet.payTo)).toBe(payee0 + PRICE);
    const row = await t.db.db.selectFrom("payments").selectAll().where("tx_hash", "=", settle.transaction).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "settled", payer: payer.address.toLowerCase(), route: "POST /v1/test/work", network: "eip155:84532" });
    expect(BigInt(row.amount_atomic)).toBe(PRICE);
    expect(await rows()).toEqual({ work: before.work + 1, payments: before.payments + 1, settled: before.settled + 1 });

    // The same authorisation again: refused, nothing runs, nothing moves.
    const again = await call("paid-twice", header);
    expect(again.status).toBe(402);
    expect(decodePaymentRequiredHeader(again.headers.get("payment-required")!).error).toBe("authorization_already_used");
    expect(await rows()).toEqual({ work: before.work + 1, payments: before.payments + 1, settled: before.settled + 1 });
    expect(devnet.evm.usdcBalanceOf(payer.address)).toBe(balance0 - PRICE);
  });

  it("a settled payment presented again after its authorisation's window gives the same request its answer, and no other request anything", async () => {
    const before = await rows();
    const payer = privateKeyToAccount(keyAt(9));
    const req = (await challenge()).accepts[0];
    // Valid for MIN_VALIDITY_SECONDS + 3 from now: accepted now, too late for a fresh payment 4 s later.
    const validBefore = Math.floor(Date.now() / 1000) + MIN_VALIDITY_SECONDS + 3;
    const header = encodePaymentSignatureHeader(await signPayment(keyAt(9), req, { validBefore: String(validBefore) }));
    const first = await call("late-retry", header);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ tag: "late-retry" });
    const balance = devnet.evm.usdcBalanceOf(payer.address);

    await new Promise((r) => setTimeout(r, 4_500));
    const again = await call("late-retry", header);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ tag: "late-retry" });
    const other = await call("late-other", header);
    expect(other.status).toBe(402);
    expect(decodePaymentRequiredHeader(other.headers.get("payment-required")!).error).toBe("authorization_already_used");
    expect(runs.get("late-retry")).toBe(1);
    expect(runs.get("late-other")).toBeUndefined();
    expect(devnet.evm.usdcBalanceOf(payer.address)).toBe(balance);
    expect(await rows()).toEqual({ work: before.work + 1, payments: before.payments + 1, settled: before.settled + 1 });
  });

  it("accepts the payment under X-PAYMENT too (the header the spec names)", async () => {
    const req = (await challenge()).accepts[0];
    const r = await call("x-payment", encodePaymentSignatureHeader(await signPayment(keyAt(2), req)), {}, "X-PAYMENT");
    expect(r.status).toBe(200);
  });

  it("the official x402 client pays the route", async () => {
    const payer = createPayer(keyAt(3), { networks: ["eip155:84532"] });
    const r = await payer.payFetch(`${t.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag: "official" }) });
    expect(r.status).toBe(200);
    expect(decodePaymentResponseHeader(r.headers.get("payment-response")!).success).toBe(true);
  });

  it("refuses each bad payment with a clear reason and writes nothing", async () => {
    const req = (await challenge()).accepts[0];
    const now = Math.floor(Date.now() / 1000);
    const other = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 15 }).address;
    const valid = await signPayment(keyAt(4), req);
    const badSig = structuredClone(valid);
    const sig = (badSig.payload as { signature: string }).signature;
    (badSig.payload as { signature: string }).signature = sig.slice(0, 10) + (sig[10] === "a" ? "b" : "a") + sig.slice(11);
    const mainnetReq: PaymentRequirements = {
      ...req,
      network: "eip155:8453",
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      extra: { name: "USD Coin", version: "2" },
    };
    const cases: [string, string, RegExp][] = [
      ["wrong amount", encodePaymentSignatureHeader(await signPayment(keyAt(4), { ...req, amount: "9999" })), /^amount_mismatch$/],
      ["wrong recipient", encodePaymentSignatureHeader(await signPayment(keyAt(4), { ...req, payTo: other })), /^recipient_mismatch$/],
      ["wrong network", encodePaymentSignatureHeader(await signPayment(keyAt(4), mainnetReq)), /^network_mismatch$/],
      ["expired", encodePaymentSignatureHeader(await signPayment(keyAt(4), req, { validBefore: String(now - 5) })), /^authorization_expired$/],
      ["not yet valid", encodePaymentSignatureHeader(await signPayment(keyAt(4), req, { validAfter: String(now + 600) })), /^authorization_not_yet_valid$/],
      ["bad signature", encodePaymentSignatureHeader(badSig), /signature/],
      ["mainnet domain on the devnet", encodePaymentSignatureHeader(await signPayment(keyAt(4), req, { name: "USD Coin", chainId: 8453 })), /signature/],
      ["not base64", "%%%not-base64%%%", /^invalid_payment_header$/],
      ["base64 of non-JSON", Buffer.from("hello").toString("base64"), /^invalid_payment_header$/],
      ["JSON of the wrong shape", Buffer.from(JSON.stringify({ x402Version: 2, hello: 1 })).toString("base64"), /^invalid_payment_payload$/],
    ];
    const payer = privateKeyToAccount(keyAt(4)).address;
    const balance0 = devnet.evm.usdcBalanceOf(payer);
    const before = await rows();
    for (const [name, header, reason] of cases) {
      const r = await call(`bad-${name}`, header);
      expect(r.status, name).toBe(402);
      const pr = decodePaymentRequiredHeader(r.headers.get("payment-required")!);
      expect(pr.error, name).toMatch(reason);
      expect(await rows(), name).toEqual(before);
    }
    // A header over the documented size is refused before decoding, with the one error shape.
    const big = await call("bad-oversized", "A".repeat(9000));
    expect(big.status).toBe(431);
    expect(await big.json()).toMatchObject({ error: { code: "payment_header_too_large", details: { max_bytes: 8192 } } });
    expect(await rows()).toEqual(before);
    expect(devnet.evm.usdcBalanceOf(payer)).toBe(balance0);
    // The untouched valid authorisation still works afterwards.
    expect((await call("valid-after-bad", encodePaymentSignatureHeader(valid))).status).toBe(200);
  });

  it("two concurrent requests with one authorisation never both run the work", async () => {
    const req = (await challenge()).accepts[0];
    const header = encodePaymentSignatureHeader(await signPayment(keyAt(5), req));
    const before = await rows();
    const [a, b] = await Promise.all([call("race", header, { delayMs: 300 }), call("race", header, { delayMs: 300 })]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    // The second is refused while the first is in flight, or, once it committed, gets its stored answer.
    expect([200, 402, 409]).toContain(statuses[1]);
    if (statuses[1] === 200) {
      expect(await a.json()).toEqual(await b.json());
    } else {
      const loser = a.status === 200 ? b : a;
      const body = (await loser.json()) as { error: unknown };
      expect(JSON.stringify(body)).toMatch(/payment_in_progress|authorization_already_used/);
    }
    expect(await rows()).toEqual({ work: before.work + 1, payments: before.payments + 1, settled: before.settled + 1 });
    expect(runs.get("race")).toBe(1);
  });

  it("a settlement failure rolls the work back and charges nothing", async () => {
    const key = keyAt(6);
    const req = (await challenge()).accepts[0];
    const header = encodePaymentSignatureHeader(await signPayment(key, req));
    const before = await rows();
    const payee0 = devnet.evm.usdcBalanceOf(devnet.payTo);
    const r = await call("drained", header, { drainWith: key });
    expect(r.status).toBe(402);
    const pr = decodePaymentRequiredHeader(r.headers.get("payment-required")!);
    expect(pr.error).toMatch(/^settlement_failed/);
    const settle = decodePaymentResponseHeader(r.headers.get("payment-response")!);
    expect(settle.success).toBe(false);
    const after = await rows();
    expect(after.work).toBe(before.work); // the INSERT of the work was rolled back
    expect(after.settled).toBe(before.settled);
    expect(devnet.evm.usdcBalanceOf(devnet.payTo)).toBe(payee0);
    // The failed authorisation is burnt: never accepted again.
    const failed = await t.db.db.selectFrom("payments").select("status").where("status", "=", "failed").execute();
    expect(failed.length).toBe(1);
  });

  it("a read-only paid route withholds its answer when settlement fails, and serves it when it settles", async () => {
    const req = { ...(await challenge()).accepts[0] };
    const ok = await fetch(`${t.url}/v1/test/read`, {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await signPayment(keyAt(8), req)) },
      body: "{}",
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ secret: "the paid answer" });
    const failed = await fetch(`${t.url}/v1/test/read`, {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await signPayment(keyAt(9), req)) },
      body: JSON.stringify({ drainWith: keyAt(9) }),
    });
    expect(failed.status).toBe(402);
    expect(await failed.text()).not.toContain("the paid answer");
  });

  it("a streamed answer is opened only after settlement: a failed settlement streams nothing", async () => {
    const req = { ...(await challenge()).accepts[0] };
    const failed = await fetch(`${t.url}/v1/test/stream`, {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await signPayment(keyAt(7), req)) },
      body: JSON.stringify({ drainWith: keyAt(7) }),
    });
    expect(failed.status).toBe(402);
    expect(await failed.text()).not.toContain("line");
    expect(streamOpens).toBe(0);
    const ok = await fetch(`${t.url}/v1/test/stream`, {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await signPayment(keyAt(8), req)) },
      body: "{}",
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(ok.headers.get("payment-response")).toBeTruthy();
    expect(await ok.text()).toBe("line 0\nline 1\nline 2\n");
    expect(streamOpens).toBe(1);
  });

  it("refuses an authorisation that would expire before slow work could settle", async () => {
    const req = { ...(await challenge()).accepts[0] };
    const before = runs.get("read") ?? 0;
    const soon = String(Math.floor(Date.now() / 1000) + 30);
    const r = await fetch(`${t.url}/v1/test/read`, {
      method: "POST",
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(await signPayment(keyAt(7), req, { validBefore: soon })) },
      body: "{}",
    });
    expect(r.status).toBe(402);
    expect(decodePaymentRequiredHeader(r.headers.get("payment-required")!).error).toBe("authorization_expires_too_soon");
    expect(runs.get("read") ?? 0).toBe(before);
  });
});
