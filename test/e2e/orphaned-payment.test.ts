/**
 * A settled payment is never orphaned. The API runs as a child process on
 * PostgreSQL with the local facilitator, whose RPC goes through a proxy that
 * passes the settlement transaction to the devnet chain and then holds the
 * answer; the API is killed with SIGKILL while it waits, between settlement
 * and commit. The USDC has moved and no work exists. The reconciler finds
 * the payment on chain and lists it for the operator; the client's retry with
 * the same authorisation, to a new API process, gets the work done once.
 */
import http from "node:http";
import fs from "node:fs";
import { randomBytes, randomUUID } from "node:crypto";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import pino from "pino";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../helpers/db.js";
import { startCli, type ChildService } from "../helpers/process.js";
import { tempDir } from "../helpers/app.js";
import { startDevnet, type SimulatedDevnet } from "../../devnet/index.js";
import { createPayer } from "../../src/x402/payer.js";
import { createAuthorizationReader } from "../../src/x402/authorization-state.js";
import { USDC } from "../../src/x402/networks.js";
import { openPayments, reconcilePayments } from "../../src/x402/reconcile.js";
import { systemClock } from "../../src/core/clock.js";
import { VIGIL_CLI } from "../helpers/process.js";

if (!usingPostgres) console.warn("orphaned-payment: skipped, it needs DATABASE_URL (a killed process must leave its transaction to PostgreSQL)");

const root = path.resolve(import.meta.dirname, "..", "..");
const BOOST = 150_000n;

/** Forwards JSON-RPC to the chain; after forwarding an eth_sendRawTransaction it never answers it. */
async function startHoldingProxy(target: string): Promise<{ url: string; broadcast: Promise<void>; close(): Promise<void> }> {
  let seen!: () => void;
  const broadcast = new Promise<void>((r) => (seen = r));
  const held: http.ServerResponse[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    const text = await upstream.text();
    if (body.includes("eth_sendRawTransaction")) {
      held.push(res);
      seen();
      return;
    }
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    broadcast,
    close: () =>
      new Promise<void>((r) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe.skipIf(!usingPostgres)("an API killed between settlement and commit leaves no orphaned payment", () => {
  let db: TestDatabase;
  let devnet: SimulatedDevnet;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  const dirs: string[] = [];
  const children: ChildService[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await openTestDatabase();
    const devnetDir = tempDir("vigil-devnet-");
    dirs.push(devnetDir);
    devnet = await startDevnet({ dataDir: devnetDir, blockSeconds: 0 });
    proxy = await startHoldingProxy(devnet.evm.url);
    const dataDir = tempDir();
    dirs.push(dataDir);
    env = {
      ...db.env,
      DEVNET: "off",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      FACILITATOR_MODE: "local",
      FACILITATOR_PRIVATE_KEY: devnet.facilitatorKey,
      X402_NETWORK: "eip155:84532",
      PAY_TO: devnet.payTo,
      MASTER_KEY: randomBytes(32).toString("hex"),
    };
  }, 120_000);
  afterAll(async () => {
    for (const c of children) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) await c.stop();
    }
    await proxy?.close();
    await devnet?.close();
    await db?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("the work is done once on the client's retry, after the reconciler found the payment on chain", async () => {
    // The first API settles through the holding proxy.
    const first = await startCli(["api"], { ...env, EVM_RPC_URL: proxy.url });
    children.push(first);
    const posted = await fetch(`${first.url}/v1/board/bounties`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Orphan test", body: "A notice to boost." }),
    });
    expect(posted.status).toBe(201);
    const notice = (await posted.json()) as { id: string };

    const payerKey = devnet.payers[1]!;
    const payer = createPayer(payerKey.privateKey, { networks: ["eip155:84532"] });
    const url = `/v1/board/bounties/${notice.id}/boost`;
    const body = JSON.stringify({ amountAtomic: BOOST.toString() });
    const unpaid = await fetch(`${first.url}${url}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(unpaid.status).toBe(402);
    const signed = await payer.signFor(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!));
    const usdc0 = devnet.evm.usdcBalanceOf(payerKey.address);
    const payee0 = devnet.evm.usdcBalanceOf(devnet.payTo);

    const lost = fetch(`${first.url}${url}`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed.header },
      body,
    }).then(
      (r) => r.status,
      () => "dropped" as const,
    );
    await proxy.broadcast;
    // The settlement transaction has reached the chain; its answer is held. Kill the API now.
    first.proc.kill("SIGKILL");
    expect(await lost).toBe("dropped");

    // The USDC moved, the boost does not exist, the payment row is pending.
    expect(devnet.evm.usdcBalanceOf(payerKey.address)).toBe(usdc0 - BOOST);
    expect(devnet.evm.usdcBalanceOf(devnet.payTo)).toBe(payee0 + BOOST);
    expect(await db.db.selectFrom("notice_boosts").selectAll().execute()).toEqual([]);
    const row = await db.db.selectFrom("payments").selectAll().where("payer", "=", payerKey.address.toLowerCase()).executeTakeFirstOrThrow();
    expect(row.status).toBe("pending");

    // The reconciler (here with no grace period) reads the chain: paid to us, no work. It lists it.
    const chain = createAuthorizationReader({ rpcUrl: devnet.evm.url, usdc: USDC["eip155:84532"], payTo: devnet.payTo });
    const log = pino({ level: "silent" });
    const r1 = await reconcilePayments({ db: db.db, chain, clock: systemClock, log, graceSeconds: 0 });
    expect(r1).toMatchObject({ orphaned: 1, failed: 0 });
    expect(r1.open.map((o) => [o.id, o.state])).toEqual([[row.id, "settled_without_work"]]);
    expect(r1.open[0]!.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The operator sees it too.
    const listed = await promisify(execFile)(process.execPath, [...VIGIL_CLI, "payments", "pending", "--json"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env, EVM_RPC_URL: devnet.evm.url },
    });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: row.id, state: "settled_without_work", route: "POST /v1/board/:board/:id/boost" })]);

    // The client retries the same signed authorisation with a new API process: the work is done now, once.
    const second = await startCli(["api"], { ...env, EVM_RPC_URL: devnet.evm.url });
    children.push(second);
    const retry = await fetch(`${second.url}${url}`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed.header },
      body,
    });
    const text = await retry.text();
    expect(retry.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ boosted_atomic: BOOST.toString(), notice: { id: notice.id } });
    expect(decodePaymentResponseHeader(retry.headers.get("payment-response")!)).toMatchObject({ success: true, transaction: r1.open[0]!.tx_hash });
    // Again: the stored answer; the boost exists once and USDC moved once.
    const again = await fetch(`${second.url}${url}`, {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signed.header },
      body,
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(JSON.parse(text));
    expect((await db.db.selectFrom("notice_boosts").selectAll().execute()).length).toBe(1);
    expect(devnet.evm.usdcBalanceOf(payerKey.address)).toBe(usdc0 - BOOST);
    expect(devnet.evm.usdcBalanceOf(devnet.payTo)).toBe(payee0 + BOOST);
    expect(await openPayments(db.db)).toEqual([]);
  }, 180_000);

  it("a pending authorisation that never reached the chain and has expired becomes failed; nothing is charged", async () => {
    const id = randomUUID();
    const nonce = `0x${randomBytes(32).toString("hex")}`;
    const from = devnet.payers[2]!.address.toLowerCase();
    await db.db
      .insertInto("payments")
      .values({
        id,
        nonce_key: `eip155:84532:${USDC["eip155:84532"].asset}:${from}:${nonce}`.toLowerCase(),
        status: "pending",
        payer: from,
        route: "POST /v1/board/:board/:id/boost",
        amount_atomic: BOOST.toString(),
        network: "eip155:84532",
        nonce,
        valid_before: String(Math.floor(Date.now() / 1000) - 60),
        work_done: false,
        created_at: new Date(Date.now() - 3_600_000),
      } as never)
      .execute();
    const chain = createAuthorizationReader({ rpcUrl: devnet.evm.url, usdc: USDC["eip155:84532"], payTo: devnet.payTo });
    const r = await reconcilePayments({ db: db.db, chain, clock: systemClock, log: pino({ level: "silent" }) });
    expect(r.failed).toBe(1);
    expect(await db.db.selectFrom("payments").select(["status", "error"]).where("id", "=", id).executeTakeFirstOrThrow()).toEqual({ status: "failed", error: "expired_unsettled" });
  });
});
