/**
 * Payment channels across real processes on one PostgreSQL (the production
 * shape), against the devnet's chain and monerod in this process:
 *
 * - Two `vigil api` processes charging one channel at once: the same
 *   voucher sent to both is charged once; vouchers sent together serialize
 *   (one reservation at a time: the rest are refused `channel_busy` or
 *   corrected, and charged nothing); calls alternating between the processes
 *   (each holding a stale copy of what the other wrote) all succeed.
 * - `kill -9` of the API in the middle of a voucher call (its upstream hangs):
 *   nothing is charged, and the same voucher is then served and charged once
 *   — the crash errs toward the payer and never charges twice. (Work that
 *   writes reserves its channel first; a reservation a dead process leaves
 *   holds the channel until it expires: test/e2e/batch-settlement.test.ts.)
 * - `kill -9` of the API while its deposit transaction is on its way: the
 *   deposit lands; a worker's keeper finds its ledger row (left without a
 *   transaction hash) through the escrow's event, confirms it and syncs the
 *   channel's balance.
 * - `kill -9` of a worker while its claim transaction is on its way: the claim
 *   lands once; the next worker records it with its hash and sends no second
 *   claim.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { createPublicClient, http as viemHttp, bytesToHex, keccak256, toHex, type Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { toClientEvmSigner } from "@x402/evm";
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from "@x402/evm/batch-settlement/client";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { DEVNET_MNEMONIC } from "../../devnet/evm.js";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db.js";
import { startCli, type ChildService } from "../helpers/process.js";
import { tempDir } from "../helpers/app.js";
import { signVoucher } from "../helpers/batch-settlement-sign.js";

if (!usingPostgres) console.warn("channel-processes: skipped, it needs DATABASE_URL (PGlite is one process)");

const PRICE = 1_000n;
const ROUTE = "/v1/q/xmr/height";
/** The escrow's Claimed event. */
const CLAIMED_TOPIC = keccak256(toHex("Claimed(bytes32,address,uint128,uint128)"));
const keyAt = (i: number): Hex => bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!);

/** A monerod that accepts requests and never answers: the paid work hangs on it. */
async function hangingMonerod(): Promise<{ url: string; seen: () => number; close: () => Promise<void> }> {
  let seen = 0;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((_req, res) => {
    seen++;
    held.push(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => seen,
    close: () => new Promise((r) => (held.forEach((h) => h.destroy()), server.close(() => r()))),
  };
}

const gone = (c: ChildService) => c.proc.exitCode !== null || c.proc.signalCode !== null;
const killed = (c: ChildService) => new Promise<void>((resolve) => (gone(c) ? resolve() : (c.proc.once("exit", () => resolve()), c.proc.kill("SIGKILL"))));
const until = async (what: string, test: () => Promise<boolean> | boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe.skipIf(!usingPostgres)("payment channels across processes on PostgreSQL", () => {
  let devnet: SimulatedDevnet;
  let db: TestDatabase;
  let base: Record<string, string>;
  const children: ChildService[] = [];

  beforeAll(async () => {
    devnet = await startDevnet({ dataDir: tempDir(), blockSeconds: 0 });
    db = await openTestDatabase();
    const o = devnet.configOverlay;
    base = {
      ...db.env,
      DEVNET: "off",
      PORT: "0",
      MONERO_DAEMON_URL: o.MONERO_DAEMON_URL,
      MONERO_NETWORK: o.MONERO_NETWORK,
      EVM_RPC_URL: o.EVM_RPC_URL,
      X402_NETWORK: "eip155:84532",
      FACILITATOR_MODE: "local",
      PAY_TO: devnet.payTo,
      BATCH_RECEIVER_AUTHORIZER_KEY: keyAt(17),
      BATCH_RESERVATION_SECONDS: "5",
      BATCH_CLAIM_SECONDS: "5",
      BATCH_CLAIM_MIN_ATOMIC: "1",
      MASTER_KEY: randomBytes(32).toString("hex"),
      RATE_LIMIT_PER_MINUTE: "1000000",
    };
  }, 120_000);
  afterAll(async () => {
    await Promise.all(children.filter((c) => !gone(c)).map((c) => c.stop()));
    await db?.close();
    await devnet?.close();
  });

  /** An API process with a gas key of its own (two processes never share one: nonces). */
  async function api(gasKey: number, extra: Record<string, string> = {}): Promise<ChildService> {
    const c = await startCli(["api"], { ...base, DATA_DIR: tempDir(), FACILITATOR_PRIVATE_KEY: keyAt(gasKey), ...extra });
    children.push(c);
    return c;
  }

  function officialClient(index: number) {
    const account = privateKeyToAccount(keyAt(index));
    const publicClient = createPublicClient({ chain: baseSepolia, transport: viemHttp(base.EVM_RPC_URL) });
    const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(account, publicClient), { storage: new InMemoryClientChannelStorage() });
    return { account, scheme, pay: wrapFetchWithPayment(fetch, new x402Client().register("eip155:84532", scheme)) };
  }

  async function batchReq(url: string): Promise<PaymentRequirements> {
    const r = await fetch(`${url}${ROUTE}`);
    return (decodePaymentRequiredHeader(r.headers.get("payment-required")!) as PaymentRequired).accepts.find((a) => a.scheme === "batch-settlement")!;
  }
  async function voucherFor(index: number, req: PaymentRequirements, max: bigint): Promise<string> {
    const { scheme } = officialClient(index);
    const config = scheme.buildChannelConfig(req);
    const id = devnet.evm.escrow.channelId(config);
    const signature = await signVoucher(privateKeyToAccount(keyAt(index)), config, max);
    return encodePaymentSignatureHeader({ x402Version: 2, accepted: req, payload: { type: "voucher", channelConfig: config, voucher: { channelId: id, maxClaimableAmount: max.toString(), signature } } } as unknown as PaymentPayload);
  }
  const channel = async (index: number, req: PaymentRequirements) => {
    const id = devnet.evm.escrow.channelId(officialClient(index).scheme.buildChannelConfig(req)).toLowerCase();
    return db.db.selectFrom("x402_channels").selectAll().where("channel_id", "=", id).executeTakeFirstOrThrow();
  };
  /** A killed worker's keeper lease (two minutes) ends now, as the clock would end it. */
  const expireKeeperLease = () => db.db.updateTable("job_leases").set({ until: new Date(0) }).where("name", "=", "x402-channel-keeper").execute();
  const charged = async (index: number, req: PaymentRequirements) => BigInt((await channel(index, req)).charged_atomic);

  it("two API processes charging one channel at once: each voucher is charged once, requests serialize", async () => {
    const [a, b] = [await api(18), await api(16)];
    const { pay } = officialClient(1);
    expect((await pay(`${a.url}${ROUTE}`)).status).toBe(200); // the deposit
    const req = await batchReq(a.url!);
    // The same voucher to both processes at once, ten times over.
    for (let i = 0; i < 10; i++) {
      const before = await charged(1, req);
      const h = await voucherFor(1, req, before + PRICE);
      const statuses = await Promise.all([a, b].map((c) => fetch(`${c.url}${ROUTE}`, { headers: { "PAYMENT-SIGNATURE": h } }).then((r) => r.status)));
      expect(statuses).toContain(200);
      for (const s of statuses) expect([200, 402]).toContain(s);
      expect(await charged(1, req)).toBe(before + PRICE);
    }
    // Ten consecutive vouchers sent together, spread over both: charged exactly for the ones that were answered 200.
    const start = await charged(1, req);
    const headers = await Promise.all(Array.from({ length: 10 }, (_, k) => voucherFor(1, req, start + BigInt(k + 1) * PRICE)));
    const answers = await Promise.all(headers.map((h, k) => fetch(`${[a, b][k % 2]!.url}${ROUTE}`, { headers: { "PAYMENT-SIGNATURE": h } })));
    const ok = answers.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(402);
      expect(["invalid_batch_settlement_evm_channel_busy", "invalid_batch_settlement_evm_cumulative_amount_mismatch"]).toContain(decodePaymentRequiredHeader(r.headers.get("payment-required")!).error);
    }
    const after = await charged(1, req);
    expect(after - start).toBeLessThanOrEqual(BigInt(ok) * PRICE);
    expect((after - start) % PRICE).toBe(0n);
    // Alternating processes, each with a stale copy of the other's writes: every call goes through.
    const { pay: pay2 } = officialClient(1);
    const before = await charged(1, req);
    for (let i = 0; i < 12; i++) expect((await pay2(`${[a, b][i % 2]!.url}${ROUTE}`)).status).toBe(200);
    expect(await charged(1, req)).toBe(before + 12n * PRICE);
    expect((await channel(1, req)).pending_id).toBeNull();
    await Promise.all([a, b].map(killed));
  }, 120_000);

  it("kill -9 of the API in the middle of a voucher call: nothing charged, then the same voucher charged once", async () => {
    const hang = await hangingMonerod();
    try {
      const doomed = await api(18, { MONERO_DAEMON_URL: hang.url });
      const req = await batchReq(doomed.url!);
      const before = await charged(1, req);
      const h = await voucherFor(1, req, before + PRICE);
      const seenBefore = hang.seen();
      const inFlight = fetch(`${doomed.url}${ROUTE}`, { headers: { "PAYMENT-SIGNATURE": h } }).catch(() => null);
      // The call was judged payable and its (read-only) work waits on monerod.
      await until("the paid work to reach the hanging monerod", () => hang.seen() > seenBefore);
      await killed(doomed);
      expect(await inFlight).toBeNull();
      // Read-only work takes no reservation: the dead call left nothing behind and charged nothing.
      const row = await channel(1, req);
      expect(BigInt(row.charged_atomic)).toBe(before);
      expect(row.pending_id).toBeNull();
      const healthy = await api(16);
      const served = await fetch(`${healthy.url}${ROUTE}`, { headers: { "PAYMENT-SIGNATURE": h } });
      expect(served.status).toBe(200);
      expect(await charged(1, req)).toBe(before + PRICE);
      // And again: the stored answer, not a second charge.
      const again = await fetch(`${healthy.url}${ROUTE}`, { headers: { "PAYMENT-SIGNATURE": h } });
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(await served.text());
      expect(await charged(1, req)).toBe(before + PRICE);
      await killed(healthy);
    } finally {
      await hang.close();
    }
  }, 120_000);

  it("kill -9 of the API while its deposit transaction is on its way: the keeper records the deposit from the chain", async () => {
    const doomed = await api(18);
    const { pay } = officialClient(2);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reached = false;
    devnet.evm.beforeNextTransaction(async () => {
      reached = true;
      await held;
    });
    const inFlight = pay(`${doomed.url}${ROUTE}`).catch(() => null);
    await until("the deposit transaction to reach the chain", () => reached);
    await killed(doomed);
    release();
    expect(await inFlight).toBeNull();
    const other = await api(16);
    const req = await batchReq(other.url!);
    const id = devnet.evm.escrow.channelId(officialClient(2).scheme.buildChannelConfig(req));
    await until("the deposit to land", () => devnet.evm.escrow.channel(id).balance > 0n);
    const op = () => db.db.selectFrom("x402_channel_ops").selectAll().where("channel_id", "=", id.toLowerCase()).where("kind", "=", "deposit").executeTakeFirstOrThrow();
    expect((await op()).status).toBe("sending");
    expect(BigInt((await channel(2, req)).charged_atomic)).toBe(0n);
    const worker = await startCli(["worker"], { ...base, DATA_DIR: tempDir(), FACILITATOR_PRIVATE_KEY: keyAt(15), LOG_LEVEL: "info" }, { waitFor: /(first watch tick done)/ });
    children.push(worker);
    // The keeper reconciles rows older than two minutes; the event gives the row its hash at once.
    await until("the deposit row to get its transaction", async () => (await op()).tx_hash !== null, 30_000);
    expect((await channel(2, req)).balance_atomic.toString()).toBe(devnet.evm.escrow.channel(id).balance.toString());
    await killed(worker);
    await killed(other);
  }, 120_000);

  it("kill -9 of a worker while its claim transaction is on its way: the claim lands once and is recorded", async () => {
    const a = await api(16);
    const { pay } = officialClient(3);
    for (let i = 0; i < 5; i++) expect((await pay(`${a.url}${ROUTE}`)).status).toBe(200);
    const req = await batchReq(a.url!);
    const id = devnet.evm.escrow.channelId(officialClient(3).scheme.buildChannelConfig(req));
    const chargedNow = await charged(3, req);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reached = false;
    devnet.evm.beforeNextTransaction(async () => {
      reached = true;
      await held;
    });
    // The keeper lease of the worker killed above would last two minutes more: it is expired here, as the clock would.
    await expireKeeperLease();
    const worker = await startCli(["worker"], { ...base, DATA_DIR: tempDir(), FACILITATOR_PRIVATE_KEY: keyAt(15), LOG_LEVEL: "info" }, { waitFor: /(first watch tick done)/ });
    children.push(worker);
    await until("the worker's claim transaction to reach the chain", () => reached, 30_000);
    await killed(worker);
    release();
    await until("the claim to land", () => devnet.evm.escrow.channel(id).totalClaimed === chargedNow);
    const claims = () => db.db.selectFrom("x402_channel_ops").selectAll().where("kind", "=", "claim").orderBy("created_at").execute();
    expect((await claims()).at(-1)!.status).toBe("sending");
    const claimTxs = () => devnet.evm.chain.blocks.flatMap((b) => b.transactions).filter((h) => devnet.evm.chain.getTransaction(h)?.logs.some((l) => l.topics[0] === CLAIMED_TOPIC)).length;
    const txsBefore = claimTxs();
    // The lease of the dead worker lasts two minutes: the next worker takes over after it.
    await expireKeeperLease();
    const next = await startCli(["worker"], { ...base, DATA_DIR: tempDir(), FACILITATOR_PRIVATE_KEY: keyAt(14), LOG_LEVEL: "info" }, { waitFor: /(first watch tick done)/ });
    children.push(next);
    await until("the claim's row to get its transaction", async () => (await claims()).at(-1)!.tx_hash !== null, 30_000).catch(async (e: Error) => {
      const ops = await db.db.selectFrom("x402_channel_ops").select(["kind", "status", "tx_hash", "entries", "channel_id", "amount_atomic", "created_at"]).orderBy("created_at").execute();
      const leases = await db.db.selectFrom("job_leases").selectAll().execute();
      throw new Error(`${e.message}\n${next.output().slice(-3000)}\n${JSON.stringify({ ops, leases }, (_, v) => (typeof v === "bigint" ? v.toString() : v), 1)}`);
    });
    expect(claimTxs()).toBe(txsBefore);
    expect(devnet.evm.escrow.channel(id).totalClaimed).toBe(chargedNow);
    await killed(next);
    await killed(a);
  }, 180_000);
});
