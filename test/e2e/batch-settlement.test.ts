/**
 * x402 batch-settlement end to end, over real HTTP: the service's paywall
 * and its local facilitator against the devnet's payment chain (USDC and
 * the simulated escrow at its canonical address), paid by the official
 * client (@x402/fetch with @x402/evm's batch-settlement client scheme).
 *
 * The official client opens a channel with one deposit and pays every later
 * call with a voucher: nothing reaches the chain per call. The keeper (the
 * app's own job, run here by hand) claims what was charged in one batch,
 * settles it to PAY_TO and refunds idle channels; when a payer starts a
 * withdrawal on chain, everything charged is claimed before the delay ends.
 * Every figure is checked on the chain, to the atomic unit, against the
 * service's own ledger.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { sql } from "kysely";
import { bytesToHex, createPublicClient, createWalletClient, http, type Address, type Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { toClientEvmSigner, voucherTypes, BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from "@x402/evm/batch-settlement/client";
import { startDevnetEvm, DEVNET_MNEMONIC, batchSettlementAbi, type DevnetEvm } from "../../devnet/evm.js";
import { defineRoute } from "../../src/http/route-table.js";
import { createPayer } from "../../src/x402/payer.js";
import { keepChannelsOnce, type KeeperClock } from "../../src/x402/channel-keeper.js";
import { minDepositFor } from "../../src/x402/channel-terms.js";
import { channelStorage } from "../../src/x402/channel-store.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const NETWORK = "eip155:84532";
const PRICE = 1_000n; // $0.001, the Penny Oracle's
const keyAt = (i: number): Hex => bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!);

/** A clock the test moves forward (the app's; the chain's has its own). */
function shiftedClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms: number) => void (offset += ms) };
}

let reads = 0;
const factRoute = defineRoute({
  method: "GET",
  path: "/v1/test/fact",
  operationId: "testFact",
  summary: "paid read-only test fact",
  input: z.object({ q: z.string().optional() }),
  output: z.object({ n: z.number(), q: z.string().nullable() }),
  price: PRICE,
  readOnly: true,
  mcpTool: "test_fact",
  handler: async (input) => ({ n: ++reads, q: input.q ?? null }),
});
const workRoute = defineRoute({
  method: "POST",
  path: "/v1/test/work",
  operationId: "testChannelWork",
  summary: "paid test work that writes",
  input: z.object({ tag: z.string(), fail: z.boolean().optional() }),
  output: z.object({ tag: z.string() }),
  price: PRICE,
  handler: async (input, ctx) => {
    await sql`INSERT INTO test_paid_work (tag, payer) VALUES (${input.tag}, ${ctx.payment!.payer})`.execute(ctx.db);
    if (input.fail) throw new Error("the work failed after writing");
    return { tag: input.tag };
  },
});

describe("x402 batch-settlement on the devnet chain, official client", () => {
  let evm: DevnetEvm;
  let t: TestApp;
  const appClock = shiftedClock();
  const chainClock = shiftedClock();
  const payTo = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 19 }).address;
  const times: KeeperClock = { lastClaimMs: 0, lastSettleMs: 0 };

  beforeAll(async () => {
    evm = await startDevnetEvm({ clock: chainClock });
    t = await startTestApp(
      {
        FACILITATOR_MODE: "local",
        EVM_RPC_URL: evm.url,
        FACILITATOR_PRIVATE_KEY: keyAt(18),
        BATCH_RECEIVER_AUTHORIZER_KEY: keyAt(17),
        BATCH_WITHDRAW_DELAY_SECONDS: "900",
        BATCH_REFUND_IDLE_SECONDS: "3600",
        // Any unclaimed charge is claimed by a periodic run (the default waits for USD 0.05).
        BATCH_CLAIM_MIN_ATOMIC: "1",
        RATE_LIMIT_PER_MINUTE: "100000",
        X402_NETWORK: NETWORK,
        PAY_TO: payTo,
        MASTER_KEY: randomBytes(32).toString("hex"),
      },
      { clock: appClock, extraRoutes: [factRoute, workRoute] },
    );
    await sql`CREATE TABLE test_paid_work (tag text NOT NULL, payer text NOT NULL)`.execute(t.db.db);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await evm?.close();
  });

  /** The official client paying with batch-settlement only, for one payer. */
  function officialClient(index: number) {
    const account = privateKeyToAccount(keyAt(index));
    const publicClient = createPublicClient({ chain: baseSepolia, transport: http(evm.url) });
    const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(account, publicClient), { storage: new InMemoryClientChannelStorage() });
    const client = new x402Client().register(NETWORK, scheme);
    return { account, scheme, pay: wrapFetchWithPayment(fetch, client) };
  }

  async function challenge(path = "/v1/test/fact"): Promise<PaymentRequired> {
    const r = await fetch(`${t.url}${path}`);
    expect(r.status).toBe(402);
    return decodePaymentRequiredHeader(r.headers.get("payment-required")!);
  }
  const batchReq = async () => (await challenge()).accepts.find((a) => a.scheme === "batch-settlement")!;
  const channelRow = (id: string) => t.db.db.selectFrom("x402_channels").selectAll().where("channel_id", "=", id.toLowerCase()).executeTakeFirstOrThrow();
  const keeper = () => keepChannelsOnce(t.app.payments.keeper!, times);
  const channelIdOf = (scheme: BatchSettlementEvmScheme, req: PaymentRequirements) => evm.escrow.channelId(scheme.buildChannelConfig(req));

  /** A voucher signed by hand, so a test can choose every field. */
  async function voucher(index: number, req: PaymentRequirements, max: bigint, over: { config?: Record<string, unknown>; channelId?: Hex } = {}): Promise<string> {
    const account = privateKeyToAccount(keyAt(index));
    const { scheme } = officialClient(index);
    const channelConfig = { ...scheme.buildChannelConfig(req), ...over.config };
    const channelId = over.channelId ?? channelIdOf(scheme, req);
    const signature = await account.signTypedData({
      domain: { name: "x402 Batch Settlement", version: "1", chainId: 84532, verifyingContract: BATCH_SETTLEMENT_ADDRESS },
      types: voucherTypes,
      primaryType: "Voucher",
      message: { channelId, maxClaimableAmount: max },
    });
    const payload = { x402Version: 2, accepted: req, payload: { type: "voucher", channelConfig, voucher: { channelId, maxClaimableAmount: max.toString(), signature } } };
    return encodePaymentSignatureHeader(payload as unknown as PaymentPayload);
  }

  it("every paid route's 402 offers exact first, then batch-settlement with the channel's terms", async () => {
    const pr = await challenge();
    expect(pr.accepts.map((a) => a.scheme)).toEqual(["exact", "batch-settlement"]);
    const batch = pr.accepts[1]!;
    expect(batch).toMatchObject({ network: NETWORK, amount: "1000", payTo, asset: evm.usdcAddress });
    expect(batch.extra).toMatchObject({
      name: "USDC",
      version: "2",
      assetTransferMethod: "eip3009",
      receiverAuthorizer: privateKeyToAccount(keyAt(17)).address,
      withdrawDelay: 900,
      minDeposit: minDepositFor(PRICE).toString(),
    });
  });

  it("the official client deposits once, then pays every call with a voucher that touches no chain", async () => {
    const { account, scheme, pay } = officialClient(1);
    const before = evm.usdcBalanceOf(account.address);
    const first = await pay(`${t.url}/v1/test/fact?q=first`);
    expect(first.status).toBe(200);
    const settled = decodePaymentResponseHeader(first.headers.get("payment-response")!);
    expect(settled.success).toBe(true);
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const id = channelIdOf(scheme, await batchReq());
    expect(evm.escrow.channel(id).balance).toBe(minDepositFor(PRICE));
    expect(evm.usdcBalanceOf(account.address)).toBe(before - minDepositFor(PRICE));
    const block = evm.chain.latest.number;
    for (let i = 0; i < 29; i++) {
      const r = await pay(`${t.url}/v1/test/fact?q=v${i}`);
      expect(r.status).toBe(200);
      expect(((await r.json()) as { q: string }).q).toBe(`v${i}`);
      const resp = decodePaymentResponseHeader(r.headers.get("payment-response")!);
      expect(resp).toMatchObject({ success: true, transaction: "", extra: { chargedAmount: "1000", channelState: { chargedCumulativeAmount: String(1000 * (i + 2)) } } });
    }
    // Vouchers: no transaction, no block.
    expect(evm.chain.latest.number).toBe(block);
    const row = await channelRow(id);
    expect(String(row.charged_atomic)).toBe("30000");
    expect(Number(row.calls)).toBe(30);
    expect(String(row.deposited_atomic)).toBe(minDepositFor(PRICE).toString());
    const ops = await t.db.db.selectFrom("x402_channel_ops").selectAll().where("channel_id", "=", id.toLowerCase()).execute();
    expect(ops.map((o) => [o.kind, o.status, o.tx_hash])).toEqual([["deposit", "confirmed", settled.transaction]]);
  });

  it("work that writes commits with its charge, and a failing one charges nothing", async () => {
    const { scheme, pay } = officialClient(1);
    const id = channelIdOf(scheme, await batchReq());
    const charged = BigInt((await channelRow(id)).charged_atomic);
    for (let i = 0; i < 3; i++) {
      const r = await pay(`${t.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag: `w${i}` }), headers: { "content-type": "application/json" } });
      expect(r.status).toBe(200);
    }
    const failed = await pay(`${t.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag: "boom", fail: true }), headers: { "content-type": "application/json" } });
    expect(failed.status).toBe(500);
    const rows = await sql<{ tag: string }>`SELECT tag FROM test_paid_work ORDER BY tag`.execute(t.db.db);
    expect(rows.rows.map((r) => r.tag)).toEqual(["w0", "w1", "w2"]);
    const row = await channelRow(id);
    expect(BigInt(row.charged_atomic)).toBe(charged + 3n * PRICE);
    expect(row.pending_id).toBeNull();
  });

  it("a reservation a dead process left holds its channel until it expires; then the voucher is charged once", async () => {
    const req = await batchReq();
    const { scheme } = officialClient(1);
    const id = channelIdOf(scheme, req);
    const charged = BigInt((await channelRow(id)).charged_atomic);
    // A process reserved the channel for a call that writes, and died (BATCH_RESERVATION_SECONDS: 60 by default).
    await channelStorage(t.db.db, { network: NETWORK }).updateChannel(id, (c) => c && { ...c, pendingRequest: { pendingId: "a-dead-process", signedMaxClaimable: (charged + PRICE).toString(), expiresAt: appClock.now() + 60_000 } });
    const header = await voucher(1, req, charged + PRICE);
    const write = () => fetch(`${t.url}/v1/test/work`, { method: "POST", headers: { "PAYMENT-SIGNATURE": header, "content-type": "application/json" }, body: JSON.stringify({ tag: "after-crash" }) });
    for (const r of [await write(), await fetch(`${t.url}/v1/test/fact?q=busy`, { headers: { "PAYMENT-SIGNATURE": header } })]) {
      expect(r.status).toBe(402);
      expect(decodePaymentRequiredHeader(r.headers.get("payment-required")!).error).toBe("invalid_batch_settlement_evm_channel_busy");
    }
    appClock.advance(61_000);
    expect((await write()).status).toBe(200);
    expect((await write()).status).toBe(200); // the stored answer
    expect(BigInt((await channelRow(id)).charged_atomic)).toBe(charged + PRICE);
    expect((await sql<{ n: string }>`SELECT count(*)::text AS n FROM test_paid_work WHERE tag = 'after-crash'`.execute(t.db.db)).rows[0]!.n).toBe("1");
  });

  it("an exact-only client pays exactly as before", async () => {
    const payer = createPayer(keyAt(3), { networks: [NETWORK] });
    const before = evm.usdcBalanceOf(payTo);
    const r = await payer.payFetch(`${t.url}/v1/test/fact?q=exact`);
    expect(r.status).toBe(200);
    const settled = decodePaymentResponseHeader(r.headers.get("payment-response")!);
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(evm.usdcBalanceOf(payTo)).toBe(before + PRICE);
  });

  it("refuses what a voucher cannot pay, and charges nothing for it", async () => {
    const { scheme } = officialClient(1);
    const req = await batchReq();
    const id = channelIdOf(scheme, req);
    const charged = BigInt((await channelRow(id)).charged_atomic);
    const get = (header: string, q = "x") => fetch(`${t.url}/v1/test/fact?q=${q}`, { headers: { "PAYMENT-SIGNATURE": header } });
    const errorOf = async (r: Response) => (expect(r.status).toBe(402), decodePaymentRequiredHeader(r.headers.get("payment-required")!));

    // Under-priced: one atomic unit short of this call's price; and a voucher ahead of what was charged.
    for (const max of [charged + PRICE - 1n, charged + 2n * PRICE]) {
      const pr = await errorOf(await get(await voucher(1, req, max)));
      expect(pr.error).toBe("invalid_batch_settlement_evm_cumulative_amount_mismatch");
      // The corrective 402 carries the channel's state and its latest voucher.
      const corrected = pr.accepts.find((a) => a.scheme === "batch-settlement")!;
      expect(corrected.extra).toMatchObject({ channelState: { channelId: id.toLowerCase(), chargedCumulativeAmount: charged.toString() }, voucherState: { signedMaxClaimable: charged.toString() } });
    }
    // Another receiver, another token, another receiver-authorizer, an id that is not the config's.
    const other = privateKeyToAccount(keyAt(5)).address;
    expect((await errorOf(await get(await voucher(1, req, charged + PRICE, { config: { receiver: other } })))).error).toBe("invalid_batch_settlement_evm_receiver_mismatch");
    expect((await errorOf(await get(await voucher(1, req, charged + PRICE, { config: { token: other } })))).error).toBe("invalid_batch_settlement_evm_token_mismatch");
    expect((await errorOf(await get(await voucher(1, req, charged + PRICE, { config: { receiverAuthorizer: other } })))).error).toBe("invalid_batch_settlement_evm_receiver_authorizer_mismatch");
    expect((await errorOf(await get(await voucher(1, req, charged + PRICE, { channelId: `0x${"42".repeat(32)}` })))).error).toBe("invalid_batch_settlement_evm_channel_id_mismatch");
    // Signed by someone else for this payer's channel.
    const stolen = JSON.parse(Buffer.from(await voucher(2, req, charged + PRICE, { config: { payer: privateKeyToAccount(keyAt(1)).address, payerAuthorizer: privateKeyToAccount(keyAt(1)).address }, channelId: id }), "base64").toString());
    expect((await errorOf(await get(Buffer.from(JSON.stringify(stolen)).toString("base64")))).error).toBe("invalid_batch_settlement_evm_voucher_signature");
    expect(BigInt((await channelRow(id)).charged_atomic)).toBe(charged);
  });

  it("a voucher presented again gets its stored answer for the same request, and is not charged twice", async () => {
    const req = await batchReq();
    const { scheme } = officialClient(1);
    const id = channelIdOf(scheme, req);
    const charged = BigInt((await channelRow(id)).charged_atomic);
    const header = await voucher(1, req, charged + PRICE);
    const first = await fetch(`${t.url}/v1/test/fact?q=again`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(first.status).toBe(200);
    const body = await first.text();
    const again = await fetch(`${t.url}/v1/test/fact?q=again`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(body);
    // The same voucher for another request: refused, with the correction.
    const other = await fetch(`${t.url}/v1/test/fact?q=other`, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(other.status).toBe(402);
    expect(decodePaymentRequiredHeader(other.headers.get("payment-required")!).error).toBe("invalid_batch_settlement_evm_cumulative_amount_mismatch");
    expect(BigInt((await channelRow(id)).charged_atomic)).toBe(charged + PRICE);
  });

  it("over MCP a paid tool takes a voucher in _meta[\"x402/payment\"] as it takes an exact payment", async () => {
    const client = new Client({ name: "vigil-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      const call = (args: Record<string, unknown>, payment?: unknown) =>
        client.callTool({ name: "test_fact", arguments: args, ...(payment ? { _meta: { "x402/payment": payment } } : {}) }) as Promise<CallToolResult>;
      const unpaid = await call({ q: "mcp" });
      expect((unpaid.structuredContent as unknown as PaymentRequired).accepts.map((a) => a.scheme)).toEqual(["exact", "batch-settlement"]);
      const req = (unpaid.structuredContent as unknown as PaymentRequired).accepts[1]!;
      const { scheme } = officialClient(1);
      const id = channelIdOf(scheme, req);
      const charged = BigInt((await channelRow(id)).charged_atomic);
      const payment = JSON.parse(Buffer.from(await voucher(1, req, charged + PRICE), "base64").toString()) as unknown;
      const paid = await call({ q: "mcp" }, payment);
      expect(paid.isError).toBeFalsy();
      expect(paid.structuredContent).toMatchObject({ q: "mcp" });
      expect(paid._meta?.["x402/payment-response"]).toMatchObject({ success: true, transaction: "", extra: { chargedAmount: "1000", channelState: { chargedCumulativeAmount: (charged + PRICE).toString() } } });
      expect(BigInt((await channelRow(id)).charged_atomic)).toBe(charged + PRICE);
      // The same voucher again for the same call: the stored answer, nothing charged; for another call: the correction.
      expect((await call({ q: "mcp" }, payment)).structuredContent).toEqual(paid.structuredContent);
      const other = await call({ q: "other" }, payment);
      expect((other.structuredContent as unknown as PaymentRequired).error).toBe("invalid_batch_settlement_evm_cumulative_amount_mismatch");
      expect(BigInt((await channelRow(id)).charged_atomic)).toBe(charged + PRICE);
    } finally {
      await client.close();
    }
  });

  it("the keeper claims every charge in one batch and settles it to PAY_TO; a batch that would change nothing is never sent", async () => {
    const { scheme } = officialClient(1);
    const id = channelIdOf(scheme, await batchReq());
    const charged = BigInt((await channelRow(id)).charged_atomic);
    const receiverBefore = evm.usdcBalanceOf(payTo);
    const report = await keeper();
    expect(report).toMatchObject({ leased: true, claimed: 1 });
    expect(evm.escrow.channel(id).totalClaimed).toBe(charged);
    expect(report.settled).toBe(charged);
    expect(evm.usdcBalanceOf(payTo)).toBe(receiverBefore + charged);
    const row = await channelRow(id);
    expect([String(row.claimed_atomic), String(row.settled_atomic)]).toEqual([charged.toString(), charged.toString()]);
    const ops = await t.db.db.selectFrom("x402_channel_ops").select(["kind", "status", "tx_hash", "amount_atomic"]).where("kind", "in", ["claim", "settle"]).execute();
    expect(ops.map((o) => [o.kind, o.status, String(o.amount_atomic)])).toEqual([
      ["claim", "confirmed", charged.toString()],
      ["settle", "confirmed", charged.toString()],
    ]);
    for (const o of ops) expect(o.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // Nothing new charged: another periodic run sends nothing.
    times.lastClaimMs = 0;
    times.lastSettleMs = 0;
    const block = evm.chain.latest.number;
    expect(await keeper()).toMatchObject({ claimed: 0, settled: 0n });
    expect(evm.chain.latest.number).toBe(block);
  });

  it("refunds an idle channel's unspent deposit; money is conserved", async () => {
    const { account, scheme, pay } = officialClient(1);
    const id = channelIdOf(scheme, await batchReq());
    const last = await pay(`${t.url}/v1/test/fact?q=last`);
    expect(last.status, last.headers.get("payment-required") ? JSON.stringify(decodePaymentRequiredHeader(last.headers.get("payment-required")!)) : "").toBe(200);
    const row = await channelRow(id);
    const payerBefore = evm.usdcBalanceOf(account.address);
    const balance = evm.escrow.channel(id).balance;
    appClock.advance(3_601_000);
    const report = await keeper();
    expect(report.refunded).toBeGreaterThanOrEqual(1);
    const charged = BigInt(row.charged_atomic);
    expect(evm.usdcBalanceOf(account.address)).toBe(payerBefore + balance - charged);
    expect(evm.escrow.channel(id)).toMatchObject({ balance: charged, totalClaimed: charged });
    // Deposits = received by PAY_TO (settled and to settle) + refunds + withdrawals + still escrowed.
    const sums = await sql<Record<string, string>>`SELECT sum(deposited_atomic)::text AS d, sum(refunded_atomic)::text AS r, sum(withdrawn_atomic)::text AS w, sum(claimed_atomic)::text AS c, sum(balance_atomic - claimed_atomic)::text AS open FROM x402_channels`.execute(t.db.db);
    const s = sums.rows[0]!;
    expect(BigInt(s.d!)).toBe(BigInt(s.c!) + BigInt(s.r!) + BigInt(s.w!) + BigInt(s.open!));
    // The official client finds out on its next call (a corrective 402), reads the chain and deposits again.
    const next = await pay(`${t.url}/v1/test/fact?q=back`);
    expect(next.status, next.headers.get("payment-required") ? JSON.stringify(decodePaymentRequiredHeader(next.headers.get("payment-required")!)) : "").toBe(200);
    expect(evm.escrow.channel(id).balance).toBe(charged + minDepositFor(PRICE));
  });
  it("a payer's withdrawal: everything charged is claimed before the delay ends, and nothing charged is lost", async () => {
    const { account, scheme, pay } = officialClient(4);
    for (let i = 0; i < 12; i++) expect((await pay(`${t.url}/v1/test/fact?q=w${i}`)).status).toBe(200);
    const req = await batchReq();
    const id = channelIdOf(scheme, req);
    const config = scheme.buildChannelConfig(req);
    const charged = 12n * PRICE;
    expect(BigInt((await channelRow(id)).charged_atomic)).toBe(charged);
    const deposit = evm.escrow.channel(id).balance;
    const wallet = createWalletClient({ account, chain: baseSepolia, transport: http(evm.url) });
    // The payer asks for everything the chain shows unclaimed (all of it: nothing is claimed yet).
    await wallet.writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "initiateWithdraw", args: [config, deposit] });
    expect(evm.escrow.pendingWithdrawal(id).initiatedAt).toBeGreaterThan(0);
    const report = await keeper();
    expect(report.withdrawals).toBe(1);
    expect(evm.escrow.channel(id).totalClaimed).toBe(charged);
    // The channel takes no more vouchers while the withdrawal is pending.
    const refused = await pay(`${t.url}/v1/test/fact?q=late`);
    expect(refused.status).toBe(402);
    expect(decodePaymentRequiredHeader(refused.headers.get("payment-required")!).error).toBe("invalid_batch_settlement_evm_channel_withdrawing");
    // The delay passes on chain (the last test: an ERC-3009 deposit signed by the real clock would now be expired there);
    // the payer finalizes and gets what was not charged.
    chainClock.advance(901_000);
    const payerBefore = evm.usdcBalanceOf(account.address);
    await wallet.writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "finalizeWithdraw", args: [config] });
    expect(evm.usdcBalanceOf(account.address)).toBe(payerBefore + deposit - charged);
    times.lastSettleMs = 0;
    const receiverBefore = evm.usdcBalanceOf(payTo);
    const owed = evm.escrow.receiver(payTo, evm.usdcAddress);
    expect(owed.totalClaimed - owed.totalSettled).toBeGreaterThanOrEqual(charged);
    await keeper();
    // Everything claimed (this channel's charges among it) reaches PAY_TO.
    expect(evm.usdcBalanceOf(payTo)).toBe(receiverBefore + owed.totalClaimed - owed.totalSettled);
    expect(evm.escrow.receiver(payTo, evm.usdcAddress).totalSettled).toBe(owed.totalClaimed);
    const row = await channelRow(id);
    expect([String(row.withdrawn_atomic), String(row.forfeited_atomic), String(row.balance_atomic)]).toEqual([(deposit - charged).toString(), "0", charged.toString()]);
  });

});
