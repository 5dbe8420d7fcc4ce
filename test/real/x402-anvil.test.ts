/**
 * The x402 money path on a real EVM: Foundry's anvil as Base Sepolia (chain
 * 84532) with Circle's real FiatTokenV2_2 behind its real FiatTokenProxy at
 * Base Sepolia's USDC address, and Multicall3 at its canonical address as
 * Base Sepolia has it (the scheme diagnoses refusals with it). Vigil runs with FACILITATOR_MODE=local,
 * settling through the official @x402/evm scheme on anvil; payers use the
 * project's payer (the official @x402 client) or, for payments that client
 * would never make, authorisations signed by hand.
 *
 * Every figure is the node's: balanceOf and totalSupply on the real contract,
 * the settlement's receipt and its logs, authorizationState, the facilitator's
 * account nonce, and the contract's own verdict on each refused authorisation
 * (an eth_call of transferWithAuthorization). A refusal must leave the chain
 * exactly as it was: no block, no transaction from the facilitator, no log.
 *
 * The last case is a settlement that outlives its receipt wait, on an app
 * configured as an operator would (FACILITATOR_CONFIRMATION_SECONDS=2, its own
 * facilitator key): the node stops mining (evm_setAutomine false), so the
 * transaction waits in anvil's pool while the facilitator gives up and the
 * client gets 402 settlement_pending. The payment stays pending, the work is
 * rolled back; once the block is mined the app's own reconciler job finds the
 * payment on chain, and the client's retry gets the work done once, with no
 * second transfer.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sql } from "kysely";
import { BaseError, ContractFunctionRevertedError, hashDomain, parseEventLogs, type Address, type Hex } from "viem";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { realNodesRun, anvilNeeds } from "../helpers/real-nodes.js";
import { startAnvil, type AnvilNode } from "../helpers/anvil.js";
import { installCircleUsdc, installMulticall3, type CircleUsdc } from "../helpers/anvil-usdc.js";
import { signAuthorization } from "../helpers/x402-sign.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { defineRoute } from "../../src/http/route-table.js";
import { USDC } from "../../src/x402/networks.js";
import { createPayer } from "../../src/x402/payer.js";
import { createLocalFacilitator } from "../../src/x402/local-facilitator.js";
import { RECONCILE_GRACE_SECONDS } from "../../src/x402/reconcile.js";
import type { Database } from "../../src/db/types.js";
import { ORACLE_PRICE_ATOMIC } from "../../src/oracle/registry.js";

const runs = realNodesRun("x402 money path against anvil with Circle's USDC", anvilNeeds);

const NETWORK = "eip155:84532";
const SEPOLIA_USDC = USDC[NETWORK];
const ROUTE = "POST /v1/test/work";
/** The receipt wait of the last case's app (FACILITATOR_CONFIRMATION_SECONDS). */
const WAIT_SECONDS = 2;

/** The paid work: one row per run, so "exactly once" is a count. */
async function doWork(db: Database, tag: string, payer: string): Promise<{ tag: string }> {
  await sql`INSERT INTO test_paid_work (tag, payer) VALUES (${tag}, ${payer})`.execute(db);
  return { tag };
}

const workRoute = defineRoute({
  method: "POST",
  path: "/v1/test/work",
  operationId: "testRealWork",
  summary: "paid test work (real EVM)",
  input: z.object({ tag: z.string() }),
  output: z.object({ tag: z.string() }),
  // The oracle's price: small, and any paid route's would do.
  price: ORACLE_PRICE_ATOMIC,
  handler: (input, ctx) => doWork(ctx.db as Database, input.tag, ctx.payment!.payer),
});

describe.skipIf(!runs)("x402 on a real EVM: Circle's FiatTokenV2_2 on anvil, local facilitator", () => {
  let node: AnvilNode;
  let usdc: CircleUsdc;
  let t: TestApp;
  const masterKey = randomBytes(32).toString("hex");
  let payTo: Address;
  let facilitatorAddress: Address;
  let price: bigint;

  beforeAll(async () => {
    node = await startAnvil({ chainId: SEPOLIA_USDC.chainId });
    usdc = await installCircleUsdc(node, { at: SEPOLIA_USDC.asset, name: SEPOLIA_USDC.name, symbol: "USDC", admin: node.accounts[9]!, owner: node.accounts[8]! });
    await installMulticall3(node, node.accounts[8]!);
    payTo = node.accounts[6]!.address;
    facilitatorAddress = node.accounts[7]!.address;
    t = await startTestApp(
      {
        FACILITATOR_MODE: "local",
        EVM_RPC_URL: node.url,
        FACILITATOR_PRIVATE_KEY: node.keys[7]!,
        X402_NETWORK: NETWORK,
        PAY_TO: payTo,
        MASTER_KEY: masterKey,
      },
      { extraRoutes: [workRoute] },
    );
    await sql`CREATE TABLE test_paid_work (tag text NOT NULL, payer text NOT NULL)`.execute(t.db.db);
    price = BigInt((await challenge()).accepts[0]!.amount);
    // Payers 1 and 2 hold a hundred payments' worth; payer 3 one unit less than one payment.
    await usdc.mint(node.accounts[1]!.address, price * 100n);
    await usdc.mint(node.accounts[2]!.address, price * 100n);
    await usdc.mint(node.accounts[3]!.address, price - 1n);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await node?.close();
  });

  async function challenge(tag = "probe"): Promise<PaymentRequired> {
    const r = await fetch(`${t.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag }) });
    expect(r.status).toBe(402);
    return decodePaymentRequiredHeader(r.headers.get("payment-required")!);
  }
  const requirements = async (): Promise<PaymentRequirements> => (await challenge()).accepts[0]!;
  const post = (tag: string, header: string, name = "PAYMENT-SIGNATURE") =>
    fetch(`${t.url}/v1/test/work`, { method: "POST", headers: { [name]: header }, body: JSON.stringify({ tag }) });

  const read = <T>(functionName: string, args: readonly unknown[] = []) => node.client.readContract({ address: usdc.address, abi: usdc.abi, functionName, args }) as Promise<T>;
  const authOf = (p: PaymentPayload) => (p.payload as { authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex }; signature: Hex });

  /** What the chain and the database hold that a refused payment must leave alone. */
  async function snapshot(holders: Address[]) {
    const work = await sql<{ n: string }>`SELECT count(*)::text AS n FROM test_paid_work`.execute(t.db.db);
    const payments = await sql<{ n: string }>`SELECT count(*)::text AS n FROM payments WHERE status <> 'failed'`.execute(t.db.db);
    return {
      block: await node.client.getBlockNumber(),
      facilitatorNonce: await node.client.getTransactionCount({ address: facilitatorAddress }),
      balances: await Promise.all(holders.map((h) => usdc.balanceOf(h))),
      totalSupply: await read<bigint>("totalSupply"),
      work: Number(work.rows[0]!.n),
      payments: Number(payments.rows[0]!.n),
    };
  }

  /** The token contract's own verdict on an authorisation: an eth_call of transferWithAuthorization from the facilitator. */
  async function contractVerdict(p: PaymentPayload): Promise<string> {
    const { authorization: a, signature } = authOf(p);
    try {
      await node.client.simulateContract({
        account: facilitatorAddress,
        address: usdc.address,
        abi: usdc.abi,
        functionName: "transferWithAuthorization",
        args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, signature],
      });
      return "ok";
    } catch (e) {
      const reverted = e instanceof BaseError ? e.walk((x) => x instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? "reverted";
      throw e;
    }
  }

  /** The USDC logs of a settlement transaction, decoded with the real contract's ABI. */
  async function settlementLogs(hash: Hex) {
    const receipt = await node.client.getTransactionReceipt({ hash });
    const events = parseEventLogs({ abi: usdc.abi, logs: receipt.logs.filter((l) => l.address.toLowerCase() === usdc.address.toLowerCase()) });
    return {
      receipt,
      events: events.map((e) => ({ eventName: e.eventName, args: e.args as Record<string, unknown> })),
    };
  }

  it("the token at Base Sepolia's USDC address is Circle's, and its EIP-712 domain is the one Vigil's 402 names", async () => {
    const req = await requirements();
    expect(req).toMatchObject({ scheme: "exact", network: NETWORK, asset: SEPOLIA_USDC.asset, payTo });
    expect(await node.client.getChainId()).toBe(Number(req.network.split(":")[1]));
    expect(await read<string>("name")).toBe(req.extra?.name);
    expect(await read<string>("version")).toBe(req.extra?.version);
    const domain = { name: String(req.extra?.name), version: String(req.extra?.version), chainId: BigInt(req.network.split(":")[1]!), verifyingContract: req.asset as Address };
    expect(await read<Hex>("DOMAIN_SEPARATOR")).toBe(
      hashDomain({
        domain,
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "version", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
        },
      }),
    );
    expect(await read<number>("decimals")).toBe(SEPOLIA_USDC.decimals);
  });

  it("each paid call moves exactly the price: receipt, AuthorizationUsed and Transfer logs, balanceOf before and after", async () => {
    for (const [i, who] of [1, 2, 1].entries()) {
      const payer = createPayer(node.keys[who]!, { networks: [NETWORK] });
      const tag = `paid-${i}`;
      const signed = await payer.signFor(await challenge(tag));
      const auth = authOf(signed.payload).authorization;
      expect(await contractVerdict(signed.payload)).toBe("ok");
      const before = await snapshot([payer.address, payTo, facilitatorAddress]);

      const r = await post(tag, signed.header);
      expect(r.status, await r.clone().text()).toBe(200);
      expect(await r.json()).toEqual({ tag });
      const settled = decodePaymentResponseHeader(r.headers.get("payment-response")!);
      expect(settled).toMatchObject({ success: true, network: NETWORK });

      const { receipt, events } = await settlementLogs(settled.transaction as Hex);
      expect(receipt.status).toBe("success");
      expect(receipt.from.toLowerCase()).toBe(facilitatorAddress.toLowerCase());
      expect(receipt.to?.toLowerCase()).toBe(usdc.address.toLowerCase());
      expect(events).toEqual([
        { eventName: "AuthorizationUsed", args: { authorizer: payer.address, nonce: auth.nonce } },
        { eventName: "Transfer", args: { from: payer.address, to: payTo, value: price } },
      ]);
      const after = await snapshot([payer.address, payTo, facilitatorAddress]);
      expect(after.balances).toEqual([before.balances[0]! - price, before.balances[1]! + price, before.balances[2]]);
      expect(after.totalSupply).toBe(before.totalSupply);
      expect(after.facilitatorNonce).toBe(before.facilitatorNonce + 1);
      expect(after.work).toBe(before.work + 1);
      expect(await read<boolean>("authorizationState", [payer.address, auth.nonce])).toBe(true);
      const row = await t.db.db.selectFrom("payments").selectAll().where("tx_hash", "=", settled.transaction).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "settled", work_done: true, payer: payer.address.toLowerCase(), route: ROUTE });
      expect(BigInt(row.amount_atomic)).toBe(price);
    }
  });

  it("a replayed X-PAYMENT moves nothing: the same request gets its stored answer, another request a 402, a memoryless facilitator a refusal", async () => {
    const payer = createPayer(node.keys[2]!, { networks: [NETWORK] });
    const signed = await payer.signFor(await challenge("replayed"));
    const first = await post("replayed", signed.header, "X-PAYMENT");
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    const firstTx = decodePaymentResponseHeader(first.headers.get("x-payment-response")!).transaction;
    const before = await snapshot([payer.address, payTo]);

    // The same request with the same X-PAYMENT: the stored answer of the one settlement.
    const again = await post("replayed", signed.header, "X-PAYMENT");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(firstBody);
    expect(decodePaymentResponseHeader(again.headers.get("x-payment-response")!).transaction).toBe(firstTx);
    // Another request with it: refused.
    const other = await post("replayed-elsewhere", signed.header, "X-PAYMENT");
    expect(other.status).toBe(402);
    expect(decodePaymentRequiredHeader(other.headers.get("payment-required")!).error).toBe("authorization_already_used");
    // A facilitator with no memory of it (another process, an empty database): the chain says used.
    const memoryless = createLocalFacilitator({ rpcUrl: node.url, privateKey: node.keys[7]!, network: NETWORK });
    const req = await requirements();
    const verified = await memoryless.verify(signed.payload, req);
    expect(verified).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    expect(await memoryless.settle(signed.payload, req)).toMatchObject({ success: false, errorReason: "invalid_exact_evm_nonce_already_used" });
    expect(await contractVerdict(signed.payload)).toMatch(/authorization is used or canceled/);

    expect(await snapshot([payer.address, payTo])).toEqual(before);
  });

  it("an expired authorisation, a payer short of the price and signatures for other EIP-712 domains move nothing and get a 402 with the reason", async () => {
    const req = await requirements();
    const latest = await node.client.getBlock();
    const key = node.keys[1]!;
    const cases: { name: string; payload: PaymentPayload; vigil: RegExp; chain: RegExp }[] = [
      {
        name: "validBefore in the past",
        payload: await signAuthorization(key, req, { validBefore: latest.timestamp - 1n }),
        vigil: /^authorization_expired$/,
        chain: /authorization is expired/,
      },
      {
        name: "balance one unit short",
        payload: (await createPayer(node.keys[3]!, { networks: [NETWORK] }).signFor(await challenge("short"))).payload,
        vigil: /^invalid_exact_evm_insufficient_balance$/,
        chain: /transfer amount exceeds balance/,
      },
      { name: "domain name of mainnet USDC", payload: await signAuthorization(key, req, { name: USDC["eip155:8453"].name }), vigil: /^invalid_exact_evm_signature$/, chain: /invalid signature/ },
      { name: "domain version 1", payload: await signAuthorization(key, req, { version: "1" }), vigil: /^invalid_exact_evm_signature$/, chain: /invalid signature/ },
      { name: "domain chain id 8453", payload: await signAuthorization(key, req, { chainId: USDC["eip155:8453"].chainId }), vigil: /^invalid_exact_evm_signature$/, chain: /invalid signature/ },
      { name: "domain verifyingContract of the implementation", payload: await signAuthorization(key, req, { verifyingContract: usdc.implementation }), vigil: /^invalid_exact_evm_signature$/, chain: /invalid signature/ },
    ];
    const holders = [node.accounts[1]!.address, node.accounts[3]!.address, payTo];
    const before = await snapshot(holders);
    for (const c of cases) {
      // The contract itself refuses it, for the same reason.
      expect(await contractVerdict(c.payload), c.name).toMatch(c.chain);
      const r = await post(`refused ${c.name}`, encodePaymentSignatureHeader(c.payload));
      expect(r.status, c.name).toBe(402);
      expect(decodePaymentRequiredHeader(r.headers.get("payment-required")!).error, c.name).toMatch(c.vigil);
      expect(await snapshot(holders), c.name).toEqual(before);
    }
  });

  it("a settlement that outlives its receipt wait (FACILITATOR_CONFIRMATION_SECONDS) is finished once: the app's reconciler finds it on chain, the retry does the work, one transfer", async () => {
    // The app as an operator configures it: its local facilitator (its own gas key) waits WAIT_SECONDS for a
    // receipt. Its clock can run ahead, so that its own reconciler job sees the payment past the grace period.
    let ahead = 0;
    const impatient = await startTestApp(
      {
        FACILITATOR_MODE: "local",
        EVM_RPC_URL: node.url,
        FACILITATOR_PRIVATE_KEY: node.keys[5]!,
        X402_NETWORK: NETWORK,
        PAY_TO: payTo,
        MASTER_KEY: masterKey,
        FACILITATOR_CONFIRMATION_SECONDS: String(WAIT_SECONDS),
      },
      { extraRoutes: [workRoute], clock: { now: () => Date.now() + ahead } },
    );
    try {
      await outlivedSettlement(impatient, () => (ahead = (RECONCILE_GRACE_SECONDS + 5) * 1000));
    } finally {
      await impatient.close();
    }
  });

  /** The steps of the case above, on the app with the short receipt wait; `pastGrace` moves its clock past the reconciler's grace. */
  async function outlivedSettlement(app: TestApp, pastGrace: () => void) {
    expect(app.app.config.FACILITATOR_CONFIRMATION_SECONDS).toBe(WAIT_SECONDS);
    await sql`CREATE TABLE test_paid_work (tag text NOT NULL, payer text NOT NULL)`.execute(app.db.db);
    const facilitator = node.accounts[5]!.address;
    const payer = createPayer(node.keys[1]!, { networks: [NETWORK] });
    const tag = "outlived";
    const unpaid = await fetch(`${app.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag }) });
    expect(unpaid.status).toBe(402);
    const signed = await payer.signFor(decodePaymentRequiredHeader(unpaid.headers.get("payment-required")!));
    const auth = authOf(signed.payload).authorization;
    const send = () => fetch(`${app.url}/v1/test/work`, { method: "POST", headers: { "PAYMENT-SIGNATURE": signed.header }, body: JSON.stringify({ tag }) });
    const holders = [payer.address, payTo];
    const balances0 = await Promise.all(holders.map((h) => usdc.balanceOf(h)));
    const nonce0 = await node.client.getTransactionCount({ address: facilitator });
    const block0 = await node.client.getBlockNumber();
    const works = async () => Number((await sql<{ n: string }>`SELECT count(*)::text AS n FROM test_paid_work WHERE tag = ${tag}`.execute(app.db.db)).rows[0]!.n);
    const rows = () => app.db.db.selectFrom("payments").selectAll().execute();
    // The app's own reconciler job (the payments module's), and what it counted in the app's metrics.
    const reconciler = app.app.modules.find((m) => m.name === "payments")!.jobs!()[0]!;
    const findings = async () => Object.fromEntries((await app.app.metrics.reconcilerFindings.get()).values.map((v) => [v.labels.finding, v.value]));

    // The node stops mining: the settlement waits in anvil's pool longer than the facilitator waits for it.
    await node.rpc("evm_setAutomine", [false]);
    let pendingHash: Hex;
    try {
      const started = Date.now();
      const first = await send();
      expect(first.status, await first.clone().text()).toBe(402);
      // It waited its configured time, not the 60 s default.
      expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_SECONDS * 1000);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(decodePaymentRequiredHeader(first.headers.get("payment-required")!).error).toBe("settlement_failed: settlement_pending");
      const pending = decodePaymentResponseHeader(first.headers.get("payment-response")!);
      expect(pending).toMatchObject({ success: false, errorReason: "settlement_pending", network: NETWORK });
      pendingHash = pending.transaction as Hex;
      // Broadcast, not mined: in anvil's pool, no receipt, nothing moved; the work was rolled back.
      const tx = await node.client.getTransaction({ hash: pendingHash });
      expect(tx.blockNumber).toBeNull();
      expect(tx.from.toLowerCase()).toBe(facilitator.toLowerCase());
      expect(await Promise.all(holders.map((h) => usdc.balanceOf(h)))).toEqual(balances0);
      expect(await node.client.getBlockNumber()).toBe(block0);
      expect(await works()).toBe(0);
      expect(await rows()).toMatchObject([{ nonce: auth.nonce.toLowerCase(), status: "pending", error: "settlement_pending", work_done: false }]);

      // While it waits: the reconciler (past its grace) leaves it pending (unused, still valid), a retry is told it is in progress.
      pastGrace();
      await reconciler.run(new AbortController().signal);
      expect(await findings()).toEqual({ still_pending: 1 });
      expect(await rows()).toMatchObject([{ status: "pending", work_done: false }]);
      const early = await send();
      expect(early.status).toBe(409);
      expect(((await early.json()) as { error: { code: string } }).error.code).toBe("payment_in_progress");

      // The node mines the block with the one transaction.
      await node.rpc("evm_mine", []);
    } finally {
      await node.rpc("evm_setAutomine", [true]);
    }
    const { receipt, events } = await settlementLogs(pendingHash);
    expect(receipt.status).toBe("success");
    expect(events).toEqual([
      { eventName: "AuthorizationUsed", args: { authorizer: payer.address, nonce: auth.nonce } },
      { eventName: "Transfer", args: { from: payer.address, to: payTo, value: price } },
    ]);

    // The reconciler job finds it paid on chain: settled, the work still owed.
    await reconciler.run(new AbortController().signal);
    expect(await findings()).toEqual({ still_pending: 1, settled_without_work: 1 });
    expect(await rows()).toMatchObject([{ status: "settled", work_done: false, error: "work_not_committed", tx_hash: pendingHash }]);
    expect(await works()).toBe(0);

    // The client's retry: the work is done now, once, on the one settlement; a second retry gets the stored answer.
    const retry = await send();
    expect(retry.status, await retry.clone().text()).toBe(200);
    expect(await retry.json()).toEqual({ tag });
    expect(decodePaymentResponseHeader(retry.headers.get("payment-response")!)).toMatchObject({ success: true, transaction: pendingHash });
    const again = await send();
    expect(again.status).toBe(200);
    expect(decodePaymentResponseHeader(again.headers.get("payment-response")!)).toMatchObject({ success: true, transaction: pendingHash });
    expect(await works()).toBe(1);
    // The store: one payment row for the authorisation, settled with its work, on the one transaction.
    const [row, ...others] = await rows();
    expect(others).toEqual([]);
    expect(row).toMatchObject({ nonce: auth.nonce.toLowerCase(), status: "settled", work_done: true, tx_hash: pendingHash, payer: payer.address.toLowerCase(), route: ROUTE });
    expect(BigInt(row!.amount_atomic)).toBe(price);

    // The chain: the balances moved by the price once, the facilitator sent one transaction, one Transfer from the payer since.
    expect(await Promise.all(holders.map((h) => usdc.balanceOf(h)))).toEqual([balances0[0]! - price, balances0[1]! + price]);
    expect(await node.client.getTransactionCount({ address: facilitator })).toBe(nonce0 + 1);
    const transfers = await node.client.getContractEvents({ address: usdc.address, abi: usdc.abi, eventName: "Transfer", args: { from: payer.address }, fromBlock: block0 + 1n });
    expect(transfers.map((l) => ({ tx: l.transactionHash, args: l.args }))).toEqual([{ tx: pendingHash, args: { from: payer.address, to: payTo, value: price } }]);
    const used = await node.client.getContractEvents({ address: usdc.address, abi: usdc.abi, eventName: "AuthorizationUsed", args: { authorizer: payer.address, nonce: auth.nonce }, fromBlock: 0n });
    expect(used.map((l) => l.transactionHash)).toEqual([pendingHash]);
  }
});
