/**
 * x402 batch-settlement on a real EVM, through the service's own flow: anvil
 * as Base Sepolia with Circle's FiatTokenV2_2, Multicall3, and x402's real
 * escrow and ERC-3009 deposit collector at their canonical addresses
 * (test/helpers/anvil-batch-app.ts). Vigil runs with its local facilitator;
 * payers are the official client (@x402/fetch with @x402/evm's batch
 * scheme), over real HTTP. test/e2e/batch-settlement.test.ts is the same
 * story on the devnet's simulated escrow; this one holds the service to the
 * compiled contracts.
 *
 * Three payers deposit once each and then pay with vouchers (no transaction,
 * no block); the app's keeper claims the three channels in one transaction,
 * sends nothing when nothing is new, settles to PAY_TO and refunds the idle
 * channels (the app's clock moves; the chain's does not need to). A fourth
 * payer starts a withdrawal from its own wallet: the keeper claims every
 * charge at once, and after the delay passes on chain (evm_increaseTime) the
 * payer finalizes and gets exactly its balance less what was claimed. Every
 * figure is the chain's (balanceOf, the escrow's views, receipts and their
 * logs), to the atomic unit, and the service's ledger (x402_channels,
 * x402_channel_ops) must agree with the escrow's events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Address, Hex } from "viem";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import { keepChannelsOnce, type KeeperClock } from "../../src/x402/channel-keeper.js";
import { minDepositFor } from "../../src/x402/channel-terms.js";
import { ORACLE_PRICE_ATOMIC } from "../../src/oracle/registry.js";
import { realNodesRun, anvilNeeds } from "../helpers/real-nodes.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import {
  ESCROW_ABI,
  NETWORK,
  REFUND_IDLE_SECONDS,
  batchAppEnv,
  channelTestRoutes,
  createPaidWorkTable,
  escrowReceipt,
  escrowViews,
  officialBatchPayer,
  startBatchChain,
  type BatchChain,
} from "../helpers/anvil-batch-app.js";

const runs = realNodesRun("x402 batch-settlement against the real escrow on anvil", anvilNeeds);

/** The Penny Oracle's price: what a channel is made for. */
const PRICE = ORACLE_PRICE_ATOMIC;
const DEPOSIT = minDepositFor(PRICE);
/** What each payer holds before its first call. */
const MINTED = 10_000_000n;
/** Payers 1–3 share the claim batch; payer 4 withdraws. */
const BATCH_PAYERS = [1, 2, 3] as const;
const WITHDRAWER = 4;
const FACT_CALLS = 30;
const WORK_CALLS = 3;

/** A clock the test moves forward (the app's; the chain keeps its own). */
function shiftedClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms: number) => void (offset += ms) };
}

const lower = (s: string) => s.toLowerCase();
const big = (v: unknown) => BigInt(String(v));

describe.skipIf(!runs)("x402 batch-settlement on a real EVM: the service's channels against x402's escrow and Circle's USDC", () => {
  let chain: BatchChain;
  let t: TestApp;
  const appClock = shiftedClock();
  const times: KeeperClock = { lastClaimMs: 0, lastSettleMs: 0 };
  const routes = channelTestRoutes(PRICE);
  const payers = new Map<number, ReturnType<typeof officialBatchPayer>>();

  beforeAll(async () => {
    chain = await startBatchChain();
    t = await startTestApp(batchAppEnv(chain), { clock: appClock, extraRoutes: [routes.fact, routes.work] });
    await createPaidWorkTable(t.db.db);
    for (const i of [...BATCH_PAYERS, WITHDRAWER]) {
      await chain.usdc.mint(chain.node.accounts[i]!.address, MINTED);
      payers.set(i, officialBatchPayer(chain.node.client, chain.node.keys[i]!));
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await chain?.close();
  });

  const payer = (i: number) => payers.get(i)!;
  const views = () => escrowViews(chain);
  const usdcOf = (a: Address) => chain.usdc.balanceOf(a);
  const keeper = () => keepChannelsOnce(t.app.payments.keeper!, times);
  const facilitatorNonce = () => chain.node.client.getTransactionCount({ address: chain.facilitator.address });
  const blockNumber = () => chain.node.client.getBlockNumber();
  const channelRow = (id: string) => t.db.db.selectFrom("x402_channels").selectAll().where("channel_id", "=", lower(id)).executeTakeFirstOrThrow();
  const ops = (kind: "deposit" | "claim" | "settle" | "refund" | "withdrawal") => t.db.db.selectFrom("x402_channel_ops").selectAll().where("kind", "=", kind).orderBy("created_at").execute();

  async function batchRequirements(): Promise<PaymentRequirements> {
    const r = await fetch(`${t.url}/v1/test/fact`);
    expect(r.status).toBe(402);
    return decodePaymentRequiredHeader(r.headers.get("payment-required")!).accepts.find((a) => a.scheme === "batch-settlement")!;
  }
  const channelOf = async (i: number) => {
    const config = payer(i).scheme.buildChannelConfig(await batchRequirements());
    return { config, id: lower(computeChannelId(config, NETWORK)) as Hex };
  };

  /** One paid call through the official client; the answer must be 200 (the 402's reason otherwise). */
  async function paidCall(i: number, kind: "fact" | "work", tag: string) {
    const r =
      kind === "fact"
        ? await payer(i).pay(`${t.url}/v1/test/fact?q=${tag}`)
        : await payer(i).pay(`${t.url}/v1/test/work`, { method: "POST", body: JSON.stringify({ tag }), headers: { "content-type": "application/json" } });
    const refusal = r.headers.get("payment-required");
    expect(r.status, refusal ? JSON.stringify(decodePaymentRequiredHeader(refusal)) : await r.clone().text()).toBe(200);
    return decodePaymentResponseHeader(r.headers.get("payment-response")!);
  }

  /** The first call of a payer: a deposit through the collector, checked on its receipt. */
  async function depositCall(i: number) {
    const from = chain.node.accounts[i]!.address;
    const [payerBefore, escrowBefore] = await Promise.all([usdcOf(from), usdcOf(chain.escrow)]);
    const settled = await paidCall(i, "fact", "first");
    expect(settled).toMatchObject({ success: true, network: NETWORK });
    const { receipt, events } = await escrowReceipt(chain, settled.transaction as Hex);
    const { id } = await channelOf(i);
    expect(receipt.status).toBe("success");
    expect(lower(receipt.from)).toBe(lower(chain.facilitator.address));
    expect(lower(receipt.to!)).toBe(lower(chain.escrow));
    expect(events.filter((e) => e.eventName === "Deposited")).toEqual([{ eventName: "Deposited", args: { channelId: id, sender: chain.facilitator.address, amount: DEPOSIT, newBalance: DEPOSIT } }]);
    expect(await Promise.all([usdcOf(from), usdcOf(chain.escrow)])).toEqual([payerBefore - DEPOSIT, escrowBefore + DEPOSIT]);
    expect(await views().channel(id)).toEqual({ balance: DEPOSIT, totalClaimed: 0n });
    return { id, tx: settled.transaction };
  }

  it("each payer deposits once, then pays every call, read-only or writing, with a voucher: no transaction, no block", async () => {
    const deposits = [];
    for (const i of BATCH_PAYERS) deposits.push(await depositCall(i));
    const block = await blockNumber();
    const nonce = await facilitatorNonce();
    const holders = [chain.escrow, chain.payTo, ...BATCH_PAYERS.map((i) => chain.node.accounts[i]!.address)];
    const balances = await Promise.all(holders.map(usdcOf));
    // The payers call at once, each its own calls in turn: the facts, then the writes.
    await Promise.all(
      BATCH_PAYERS.map(async (i) => {
        for (let n = 0; n < FACT_CALLS + WORK_CALLS; n++) {
          const settled = await paidCall(i, n < FACT_CALLS ? "fact" : "work", `p${i}-${n}`);
          expect(settled).toMatchObject({ success: true, transaction: "", extra: { chargedAmount: PRICE.toString(), channelState: { chargedCumulativeAmount: String(PRICE * BigInt(n + 2)) } } });
          expect(await blockNumber()).toBe(block);
        }
      }),
    );
    expect(await facilitatorNonce()).toBe(nonce);
    expect(await Promise.all(holders.map(usdcOf))).toEqual(balances);
    const calls = 1 + FACT_CALLS + WORK_CALLS;
    for (const [k, i] of BATCH_PAYERS.entries()) {
      const row = await channelRow(deposits[k]!.id);
      expect([big(row.charged_atomic), big(row.calls), big(row.deposited_atomic), big(row.balance_atomic)]).toEqual([PRICE * BigInt(calls), BigInt(calls), DEPOSIT, DEPOSIT]);
      const written = await sql<{ n: string }>`SELECT count(*)::text AS n FROM test_paid_work WHERE payer = ${lower(chain.node.accounts[i]!.address)}`.execute(t.db.db);
      expect(Number(written.rows[0]!.n)).toBe(WORK_CALLS);
    }
    expect((await ops("deposit")).map((o) => [o.status, o.channel_id, big(o.amount_atomic), o.tx_hash])).toEqual(deposits.map((d) => ["confirmed", d.id, DEPOSIT, d.tx]));
  });

  it("the keeper claims the three channels in ONE transaction; a second run sends nothing", async () => {
    const ids = await Promise.all(BATCH_PAYERS.map(async (i) => (await channelOf(i)).id));
    const charged = PRICE * BigInt(1 + FACT_CALLS + WORK_CALLS);
    const escrowBefore = await usdcOf(chain.escrow);
    const [nonce, block] = await Promise.all([facilitatorNonce(), blockNumber()]);
    // Settlement is not due in this run (its own test follows).
    times.lastSettleMs = appClock.now();
    expect(await keeper()).toMatchObject({ leased: true, claimed: 3, settled: 0n, refunded: 0 });
    expect([await facilitatorNonce(), await blockNumber()]).toEqual([nonce + 1, block + 1n]);
    const [claim, ...more] = await ops("claim");
    expect(more).toEqual([]);
    expect(claim).toMatchObject({ status: "confirmed", channel_id: null });
    expect(big(claim!.amount_atomic)).toBe(3n * charged);
    // The keeper orders a batch by last call; the payers called at once.
    const byChannel = (a: { channelId: string }, b: { channelId: string }) => a.channelId.localeCompare(b.channelId);
    expect([...(claim!.entries as { channelId: string }[])].sort(byChannel)).toEqual(ids.map((channelId) => ({ channelId, totalClaimed: charged.toString(), claimed: charged.toString() })).sort(byChannel));
    const { receipt, events } = await escrowReceipt(chain, claim!.tx_hash as Hex);
    expect([receipt.status, lower(receipt.from), lower(receipt.to!)]).toEqual(["success", lower(chain.facilitator.address), lower(chain.escrow)]);
    expect(receipt.blockNumber).toBe(block + 1n);
    // The chain's events are the batch's rows, in the batch's order.
    const claimedIds = (claim!.entries as { channelId: string }[]).map((e) => e.channelId);
    expect(events).toEqual(claimedIds.map((channelId) => ({ eventName: "Claimed", args: { channelId, sender: chain.facilitator.address, claimAmount: charged, newTotalClaimed: charged } })));
    for (const id of ids) {
      expect(await views().channel(id)).toEqual({ balance: DEPOSIT, totalClaimed: charged });
      expect(big((await channelRow(id)).claimed_atomic)).toBe(charged);
    }
    expect(await views().receiver()).toEqual({ totalClaimed: 3n * charged, totalSettled: 0n });
    // A claim moves no token: the escrow holds the same USDC.
    expect(await usdcOf(chain.escrow)).toBe(escrowBefore);

    // Nothing new charged: a periodic run sends nothing.
    times.lastClaimMs = 0;
    expect(await keeper()).toMatchObject({ leased: true, claimed: 0, settled: 0n, refunded: 0 });
    expect([await facilitatorNonce(), await blockNumber()]).toEqual([nonce + 1, block + 1n]);
    expect(await ops("claim")).toHaveLength(1);
  });

  it("settles everything claimed to PAY_TO in one transaction", async () => {
    const owed = await views().receiver();
    const due = owed.totalClaimed - owed.totalSettled;
    const [payToBefore, escrowBefore, nonce] = await Promise.all([usdcOf(chain.payTo), usdcOf(chain.escrow), facilitatorNonce()]);
    times.lastSettleMs = 0;
    expect(await keeper()).toMatchObject({ claimed: 0, settled: due, refunded: 0 });
    expect(await facilitatorNonce()).toBe(nonce + 1);
    const [settle] = await ops("settle");
    expect(settle).toMatchObject({ status: "confirmed" });
    expect(big(settle!.amount_atomic)).toBe(due);
    const { receipt, events } = await escrowReceipt(chain, settle!.tx_hash as Hex);
    expect(receipt.status).toBe("success");
    expect(events).toEqual([{ eventName: "Settled", args: { receiver: chain.payTo, token: chain.usdc.address, sender: chain.facilitator.address, amount: due } }]);
    expect(await Promise.all([usdcOf(chain.payTo), usdcOf(chain.escrow)])).toEqual([payToBefore + due, escrowBefore - due]);
    expect(await views().receiver()).toEqual({ totalClaimed: owed.totalClaimed, totalSettled: owed.totalClaimed });
    for (const i of BATCH_PAYERS) expect(big((await channelRow((await channelOf(i)).id)).settled_atomic)).toBe(PRICE * BigInt(1 + FACT_CALLS + WORK_CALLS));
  });

  it("refunds the idle channels' unspent deposits, a channel's last charges claimed in its refund's transaction", async () => {
    // Payer 2 calls again after the claim: those charges ride in its refund.
    const LATE = 5;
    for (let n = 0; n < LATE; n++) await paidCall(2, "fact", `late-${n}`);
    const channels = await Promise.all(BATCH_PAYERS.map((i) => channelOf(i)));
    const before = await Promise.all(BATCH_PAYERS.map((i) => usdcOf(chain.node.accounts[i]!.address)));
    const escrowBefore = await usdcOf(chain.escrow);
    appClock.advance((REFUND_IDLE_SECONDS + 1) * 1000);
    // The periodic claim is not due in this run: the refund carries payer 2's claim.
    times.lastClaimMs = appClock.now();
    expect(await keeper()).toMatchObject({ claimed: 0, refunded: 3 });
    // One refund transaction per channel (in the keeper's order: by last call).
    const refundOps = await ops("refund");
    expect(refundOps.map((o) => o.status)).toEqual(["confirmed", "confirmed", "confirmed"]);
    const refunds = channels.map((c) => refundOps.find((o) => o.channel_id === c.id)!);
    let refunded = 0n;
    for (const [k, i] of BATCH_PAYERS.entries()) {
      const charged = PRICE * BigInt(1 + FACT_CALLS + WORK_CALLS + (i === 2 ? LATE : 0));
      const back = DEPOSIT - charged;
      refunded += back;
      const { receipt, events } = await escrowReceipt(chain, refunds[k]!.tx_hash as Hex);
      expect(receipt.status).toBe("success");
      const lateClaim = i === 2 ? [{ eventName: "Claimed", args: { channelId: channels[k]!.id, sender: chain.facilitator.address, claimAmount: PRICE * BigInt(LATE), newTotalClaimed: charged } }] : [];
      expect(events).toEqual([...lateClaim, { eventName: "Refunded", args: { channelId: channels[k]!.id, sender: chain.facilitator.address, amount: back } }]);
      expect(big(refunds[k]!.amount_atomic)).toBe(back);
      expect(await usdcOf(chain.node.accounts[i]!.address)).toBe(before[k]! + back);
      expect(await views().channel(channels[k]!.id)).toEqual({ balance: charged, totalClaimed: charged });
      const row = await channelRow(channels[k]!.id);
      expect([big(row.refunded_atomic), big(row.balance_atomic), big(row.claimed_atomic)]).toEqual([back, charged, charged]);
    }
    expect(await usdcOf(chain.escrow)).toBe(escrowBefore - refunded);
    // The claim in payer 2's refund is in the ledger, under the refund's transaction.
    const claims = await ops("claim");
    expect(claims.at(-1)).toMatchObject({ status: "confirmed", tx_hash: refunds[1]!.tx_hash, entries: [{ channelId: channels[1]!.id, claimed: String(PRICE * BigInt(LATE)) }] });
  });

  it("a payer's withdrawal: the keeper claims every charge at once, and finalizing after the delay pays the payer its balance less what was claimed", async () => {
    const account = chain.node.accounts[WITHDRAWER]!;
    const { id } = await depositCall(WITHDRAWER);
    const CALLS = 12;
    for (let n = 1; n < CALLS; n++) await paidCall(WITHDRAWER, "fact", `w${n}`);
    const { config } = await channelOf(WITHDRAWER);
    const charged = PRICE * BigInt(CALLS);
    const wallet = chain.node.wallet(account);
    const send = async (functionName: string, args: readonly unknown[]) => {
      const hash = await wallet.writeContract({ address: chain.escrow, abi: ESCROW_ABI, functionName, args, account, chain: chain.node.chain });
      await chain.node.client.waitForTransactionReceipt({ hash });
      const mined = await escrowReceipt(chain, hash);
      expect(mined.receipt.status, functionName).toBe("success");
      return { hash, ...mined };
    };
    // The payer asks for everything it deposited (nothing is claimed yet).
    const initiated = await send("initiateWithdraw", [config, DEPOSIT]);
    expect(initiated.events.map((e) => e.eventName)).toEqual(["WithdrawInitiated"]);
    expect((await views().pendingWithdrawal(id)).amount).toBe(DEPOSIT);

    const nonce = await facilitatorNonce();
    const report = await keeper();
    expect(report).toMatchObject({ withdrawals: 1, claimed: 1 });
    expect(await facilitatorNonce()).toBe(nonce + 1);
    expect(await views().channel(id)).toEqual({ balance: DEPOSIT, totalClaimed: charged });
    const claim = (await ops("claim")).at(-1)!;
    expect((await escrowReceipt(chain, claim.tx_hash as Hex)).events).toEqual([{ eventName: "Claimed", args: { channelId: id, sender: chain.facilitator.address, claimAmount: charged, newTotalClaimed: charged } }]);
    // The channel takes no more vouchers while the withdrawal is pending.
    const refused = await payer(WITHDRAWER).pay(`${t.url}/v1/test/fact?q=late`);
    expect(refused.status).toBe(402);
    expect(decodePaymentRequiredHeader(refused.headers.get("payment-required")!).error).toBe("invalid_batch_settlement_evm_channel_withdrawing");

    // The delay passes on chain; the payer finalizes.
    await chain.node.rpc("evm_increaseTime", [901]);
    await chain.node.rpc("evm_mine", []);
    const payerBefore = await usdcOf(account.address);
    const finalized = await send("finalizeWithdraw", [config]);
    expect(finalized.events.filter((e) => e.eventName === "WithdrawFinalized")).toEqual([{ eventName: "WithdrawFinalized", args: { channelId: id, sender: account.address, amount: DEPOSIT - charged } }]);
    expect(await usdcOf(account.address)).toBe(payerBefore + DEPOSIT - charged);
    expect(await views().channel(id)).toEqual({ balance: charged, totalClaimed: charged });

    // The keeper's next run records the withdrawal and settles the claims left (this channel's, payer 2's late calls).
    times.lastSettleMs = 0;
    const owed = await views().receiver();
    expect(await keeper()).toMatchObject({ settled: owed.totalClaimed - owed.totalSettled });
    expect((await ops("withdrawal")).map((o) => [o.status, o.channel_id, big(o.amount_atomic), o.tx_hash])).toEqual([["confirmed", id, DEPOSIT - charged, finalized.hash]]);
    const row = await channelRow(id);
    expect([big(row.withdrawn_atomic), big(row.forfeited_atomic), big(row.balance_atomic), big(row.claimed_atomic), big(row.settled_atomic)]).toEqual([DEPOSIT - charged, 0n, charged, charged, charged]);
  });

  it("money is conserved on chain, and the service's ledger is the escrow's events, transaction by transaction", async () => {
    const logs = await chain.node.client.getContractEvents({ address: chain.escrow, abi: ESCROW_ABI, fromBlock: 0n });
    const events = logs.map((l) => ({ name: l.eventName as string, args: l.args as Record<string, unknown>, tx: l.transactionHash }));
    const sum = (name: string, field = "amount", channelId?: string) => events.filter((e) => e.name === name && (!channelId || e.args.channelId === channelId)).reduce((s, e) => s + (e.args[field] as bigint), 0n);
    const [deposits, refunds, withdrawals, settled] = [sum("Deposited"), sum("Refunded"), sum("WithdrawFinalized"), sum("Settled")];
    const escrowHolds = await usdcOf(chain.escrow);
    // Deposits = PAY_TO's receipts + refunds + withdrawals + what the escrow still holds.
    expect(deposits).toBe(4n * DEPOSIT);
    expect(await usdcOf(chain.payTo)).toBe(settled);
    expect(deposits).toBe(settled + refunds + withdrawals + escrowHolds);
    expect(await views().receiver()).toEqual({ totalClaimed: settled, totalSettled: settled });
    // Every payer: what it was given, less its deposit, plus what came back, is what it holds.
    let unclaimed = 0n;
    for (const i of [...BATCH_PAYERS, WITHDRAWER]) {
      const { id } = await channelOf(i);
      const back = sum("Refunded", "amount", id) + sum("WithdrawFinalized", "amount", id);
      expect(await usdcOf(chain.node.accounts[i]!.address)).toBe(MINTED - sum("Deposited", "amount", id) + back);
      const onChain = await views().channel(id);
      unclaimed += onChain.balance - onChain.totalClaimed;
      const row = await channelRow(id);
      expect([big(row.deposited_atomic), big(row.balance_atomic), big(row.claimed_atomic), big(row.settled_atomic), big(row.charged_atomic)]).toEqual([
        sum("Deposited", "amount", id),
        onChain.balance,
        onChain.totalClaimed,
        onChain.totalClaimed,
        onChain.totalClaimed,
      ]);
      expect([big(row.refunded_atomic), big(row.withdrawn_atomic)]).toEqual([sum("Refunded", "amount", id), sum("WithdrawFinalized", "amount", id)]);
    }
    // The escrow holds the channels' unclaimed balances and nothing else (every claim is settled: above).
    expect(escrowHolds).toBe(unclaimed);
    await ledgerIsTheChain(events);
  });

  /** Every ledger row is confirmed and is the escrow's event in its transaction; every money event has its row. */
  async function ledgerIsTheChain(events: { name: string; args: Record<string, unknown>; tx: Hex }[]) {
    const all = await t.db.db.selectFrom("x402_channel_ops").selectAll().execute();
    expect(all.filter((o) => o.status !== "confirmed")).toEqual([]);
    const key = (...parts: unknown[]) => parts.map(String).join(" ");
    const fromLedger = all.flatMap((o) =>
      o.kind === "claim"
        ? (o.entries as { channelId: string; claimed: string }[]).map((e) => key("claim", e.channelId, e.claimed, o.tx_hash))
        : [key(o.kind, o.kind === "settle" ? "-" : o.channel_id, big(o.amount_atomic), o.tx_hash)],
    );
    const kinds: Record<string, string> = { Deposited: "deposit", Claimed: "claim", Settled: "settle", Refunded: "refund", WithdrawFinalized: "withdrawal" };
    const fromChain = events
      .filter((e) => kinds[e.name])
      .map((e) => key(kinds[e.name], e.name === "Settled" ? "-" : e.args.channelId, e.name === "Claimed" ? e.args.claimAmount : e.args.amount, e.tx));
    expect(fromLedger.sort()).toEqual(fromChain.sort());
  }
});
