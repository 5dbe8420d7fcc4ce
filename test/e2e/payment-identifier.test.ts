/**
 * Idempotent retries with the payment-identifier extension, on the real app
 * over the devnet (EVM + USDC + local facilitator): a watch create whose
 * connection dropped is retried with the same identifier and a fresh
 * authorisation, and gets the same watch; USDC moves once. The same
 * identifier for another request is a 409 and charges nothing.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { PAYMENT_IDENTIFIER, appendPaymentIdentifierToExtensions, generatePaymentId } from "@x402/extensions/payment-identifier";
import { startWatchStack, type WatchStack } from "../helpers/stack.js";

describe("payment-identifier: idempotent paid retries", () => {
  let s: WatchStack;
  let args: Record<string, string>;
  let payerAddress: string;

  beforeAll(async () => {
    s = await startWatchStack({ https: false });
    const alice = s.wallets.find((w) => w.label === "alice")!;
    args = { chain: "monero", address: alice.address, viewKey: alice.viewKey!, webhookUrl: s.receiver.hookUrl("/pid") };
    payerAddress = s.devnet.payers[0]!.address;
  });
  afterAll(async () => s?.close());

  async function terms(body: unknown): Promise<PaymentRequired> {
    const r = await fetch(`${s.url}/v1/private/watch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect(r.status).toBe(402);
    return decodePaymentRequiredHeader(r.headers.get("payment-required")!);
  }

  /** A fresh authorisation signed by the official client, carrying the payment identifier `id`. */
  async function signedWith(body: unknown, id: string): Promise<string> {
    const { payload } = await s.payer.signFor(await terms(body));
    const withId: PaymentPayload = { ...payload, extensions: appendPaymentIdentifierToExtensions(structuredClone(payload.extensions ?? {}), id) };
    return encodePaymentSignatureHeader(withId);
  }

  const post = (body: unknown, header: string) =>
    fetch(`${s.url}/v1/private/watch`, { method: "POST", headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header }, body: JSON.stringify(body) });

  /** Sends the request and drops the connection without reading any answer. */
  function sendAndDrop(body: unknown, header: string): Promise<void> {
    return new Promise((resolve) => {
      const u = new URL(`${s.url}/v1/private/watch`);
      const text = JSON.stringify(body);
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text), "PAYMENT-SIGNATURE": header } });
      req.on("error", () => resolve());
      req.end(text, () => setTimeout(() => {
        req.destroy();
        resolve();
      }, 5));
    });
  }

  const watchCount = async () => (await s.t.db.db.selectFrom("watches").select("id").execute()).length;

  it("the 402 declares the payment-identifier extension", async () => {
    const pr = await terms(args);
    expect(pr.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } });
  });

  it("a create retried with the same identifier after a dropped connection returns the same watch and moves money once", async () => {
    const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress);
    const payee0 = s.devnet.evm.usdcBalanceOf(s.devnet.payTo);
    const watches0 = await watchCount();
    const id = generatePaymentId("watch_");

    await sendAndDrop(args, await signedWith(args, id));
    // The server finished the work although nobody read the answer.
    let row;
    for (let i = 0; i < 100; i++) {
      row = await s.t.db.db.selectFrom("payments").selectAll().where("payment_identifier", "=", id).executeTakeFirst();
      if (row?.status === "settled") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(row?.status).toBe("settled");
    expect(row?.response_sealed).not.toBeNull();
    // Sealed, never in clear: the stored answer holds the watch token and webhook secret.
    expect(Buffer.from(row!.response_sealed!).toString("utf8")).not.toContain("watchToken");
    expect(s.devnet.evm.usdcBalanceOf(payerAddress)).toBe(usdc0 - 100_000n);

    // The retry signs a new authorisation (as the official client does after a 402) with the same identifier.
    const retry = await post(args, await signedWith(args, id));
    expect(retry.status).toBe(200);
    const created = (await retry.json()) as { watchId: string; watchToken: string; webhookSecret: string };
    expect(created).toMatchObject({ watchId: expect.any(String), watchToken: expect.any(String), webhookSecret: expect.any(String) });
    expect(created.watchId).toBe((await s.t.db.db.selectFrom("watches").select("id").orderBy("created_at", "desc").executeTakeFirstOrThrow()).id);
    // The token works: it is the watch's own.
    const status = await s.call("GET", `/v1/private/watch/${created.watchId}`, { token: created.watchToken });
    expect(status.status).toBe(200);

    // And again: the same answer.
    const again = await post(args, await signedWith(args, id));
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(created);

    expect(await watchCount()).toBe(watches0 + 1);
    expect(s.devnet.evm.usdcBalanceOf(payerAddress)).toBe(usdc0 - 100_000n);
    expect(s.devnet.evm.usdcBalanceOf(s.devnet.payTo)).toBe(payee0 + 100_000n);
  });

  it("the same identifier for a different request is a 409 and charges nothing", async () => {
    const id = generatePaymentId("watch_");
    const first = await post(args, await signedWith(args, id));
    expect(first.status).toBe(200);
    const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress);
    const watches0 = await watchCount();
    const other = { ...args, webhookUrl: s.receiver.hookUrl("/pid-other") };
    const r = await post(other, await signedWith(other, id));
    expect(r.status).toBe(409);
    expect(await r.json()).toMatchObject({ error: { code: "payment_identifier_conflict" } });
    expect(await watchCount()).toBe(watches0);
    expect(s.devnet.evm.usdcBalanceOf(payerAddress)).toBe(usdc0);
  });

  it("an identifier that breaks the extension's rules is refused before anything runs", async () => {
    const usdc0 = s.devnet.evm.usdcBalanceOf(payerAddress);
    const { payload } = await s.payer.signFor(await terms(args));
    const bad: PaymentPayload = { ...payload, extensions: { ...(payload.extensions ?? {}), [PAYMENT_IDENTIFIER]: { info: { required: false, id: "short" } } } };
    const r = await post(args, encodePaymentSignatureHeader(bad));
    expect(r.status).toBe(402);
    expect(decodePaymentRequiredHeader(r.headers.get("payment-required")!).error).toBe("invalid_payment_identifier");
    expect(s.devnet.evm.usdcBalanceOf(payerAddress)).toBe(usdc0);
  });

  it("the reconciler purges stored answers whose time is up", async () => {
    const { reconcilePayments } = await import("../../src/x402/reconcile.js");
    const stored = await s.t.db.db.selectFrom("payments").select("id").where("response_sealed", "is not", null).execute();
    expect(stored.length).toBeGreaterThan(0);
    s.advance((s.t.app.paywall.responseTtlSeconds + 1) * 1000);
    const r = await reconcilePayments({ db: s.t.db.db, chain: s.t.app.payments.chain, clock: s.clock, log: s.t.app.log });
    expect(r.purged).toBe(stored.length);
    const left = await s.t.db.db.selectFrom("payments").select("id").where("response_sealed", "is not", null).execute();
    expect(left).toEqual([]);
  });
});
