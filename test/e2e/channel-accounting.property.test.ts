/**
 * Channel accounting as a property (fast-check model-based runs): random
 * interleavings of paid calls (deposits, vouchers), calls whose work fails,
 * replayed vouchers, keeper runs (claims and settlement), idle refunds, and
 * a payer's withdrawal (started, claimed by the keeper, finalized after the
 * delay), against the service's paywall and keeper over real HTTP and the
 * devnet's escrow. After every step the service's record and the chain agree
 * with a model of the money; at the end of every run:
 *   - what the receiver gets on chain is exactly what was charged (every
 *     successful call's price, nothing for refused or failed ones);
 *   - money is conserved: deposits = claimed (the receiver's) + refunds +
 *     withdrawals + what the escrow still holds for the payer;
 *   - the escrow's USDC is exactly what all channels and the receiver are
 *     still owed.
 * Payers' payments are signed by hand with the chain's own clock (the run
 * moves it forward past withdraw delays), as the official client signs them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { sql } from "kysely";
import { bytesToHex, createWalletClient, http, keccak256, encodeAbiParameters, type Hex } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { authorizationTypes, BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "@x402/evm";
import { startDevnetEvm, DEVNET_MNEMONIC, DEVNET_USDC_DOMAIN, batchSettlementAbi, type DevnetEvm, type ChannelConfig } from "../../devnet/evm.js";
import { defineRoute } from "../../src/http/route-table.js";
import { keepChannelsOnce, type KeeperClock } from "../../src/x402/channel-keeper.js";
import { minDepositFor } from "../../src/x402/channel-terms.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { channelIdOf, signVoucher } from "../helpers/batch-settlement-sign.js";

const PRICE = 1_000n;
const DEPOSIT = minDepositFor(PRICE);
const IDLE_SECONDS = 600;
const DELAY_SECONDS = 900;
const keyAt = (i: number): Hex => bytesToHex(mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i }).getHdKey().privateKey!);

const factRoute = defineRoute({
  method: "GET",
  path: "/v1/test/acct",
  operationId: "testAccountingFact",
  summary: "paid read-only fact",
  input: z.object({ q: z.string() }),
  output: z.object({ q: z.string() }),
  price: PRICE,
  readOnly: true,
  handler: async (input) => ({ q: input.q }),
});
const failingRoute = defineRoute({
  method: "POST",
  path: "/v1/test/acct-fail",
  operationId: "testAccountingFail",
  summary: "paid work that fails after writing",
  input: z.object({ q: z.string() }),
  output: z.object({ q: z.string() }),
  price: PRICE,
  handler: async (input, ctx) => {
    await sql`INSERT INTO test_acct_writes (q) VALUES (${input.q})`.execute(ctx.db);
    throw new Error("the work failed");
  },
});

/** The money of one run's channel as the model sees it. */
interface Model {
  charged: bigint;
  /** What the chain shows claimed (the keeper claims everything charged when it runs). */
  claimed: bigint;
  balance: bigint;
  deposited: bigint;
  refunded: bigint;
  withdrawn: bigint;
  /** The amount of a withdrawal started and not finalized (0n: none). */
  withdrawing: bigint;
  /** The keeper has run since the withdrawal started (it claims at once). */
  keeperSinceWithdrawal: boolean;
  calls: number;
  lastVoucher?: string;
}

interface Real {
  payer: PrivateKeyAccount;
  config: ChannelConfig;
  id: Hex;
}

describe("channel accounting (model-based, random interleavings)", () => {
  let evm: DevnetEvm;
  let t: TestApp;
  let req: PaymentRequirements;
  const chainOffset = { ms: 0 };
  const appOffset = { ms: 0 };
  const times: KeeperClock = { lastClaimMs: 0, lastSettleMs: 0 };
  const payTo = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: 19 }).address;
  const authorizer = privateKeyToAccount(keyAt(17)).address;

  beforeAll(async () => {
    evm = await startDevnetEvm({ clock: { now: () => Date.now() + chainOffset.ms } });
    t = await startTestApp(
      {
        FACILITATOR_MODE: "local",
        EVM_RPC_URL: evm.url,
        FACILITATOR_PRIVATE_KEY: keyAt(18),
        BATCH_RECEIVER_AUTHORIZER_KEY: keyAt(17),
        BATCH_WITHDRAW_DELAY_SECONDS: String(DELAY_SECONDS),
        BATCH_REFUND_IDLE_SECONDS: String(IDLE_SECONDS),
        BATCH_CLAIM_MIN_ATOMIC: "1",
        RATE_LIMIT_PER_MINUTE: "1000000",
        X402_NETWORK: "eip155:84532",
        PAY_TO: payTo,
        MASTER_KEY: randomBytes(32).toString("hex"),
      },
      { clock: { now: () => Date.now() + appOffset.ms }, extraRoutes: [factRoute, failingRoute] },
    );
    await sql`CREATE TABLE test_acct_writes (q text NOT NULL)`.execute(t.db.db);
    const r = await fetch(`${t.url}/v1/test/acct?q=probe`);
    req = (decodePaymentRequiredHeader(r.headers.get("payment-required")!) as PaymentRequired).accepts.find((a) => a.scheme === "batch-settlement")!;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await evm?.close();
  });

  const keeper = async () => {
    times.lastClaimMs = 0;
    times.lastSettleMs = 0;
    return keepChannelsOnce(t.app.payments.keeper!, times);
  };
  const chainNowS = () => BigInt(Math.floor((Date.now() + chainOffset.ms) / 1000));
  const row = (id: Hex) => t.db.db.selectFrom("x402_channels").selectAll().where("channel_id", "=", id.toLowerCase()).executeTakeFirst();

  function header(real: Real, payload: Record<string, unknown>): string {
    return encodePaymentSignatureHeader({ x402Version: 2, accepted: req, payload: { channelConfig: real.config, ...payload } } as unknown as PaymentPayload);
  }
  async function voucherHeader(real: Real, max: bigint): Promise<string> {
    return header(real, { type: "voucher", voucher: { channelId: real.id, maxClaimableAmount: max.toString(), signature: await signVoucher(real.payer, real.config, max) } });
  }
  /** A deposit with its voucher, its ERC-3009 authorisation valid by the chain's clock. */
  async function depositHeader(real: Real, amount: bigint, max: bigint): Promise<string> {
    const salt = bytesToHex(randomBytes(32));
    const validBefore = chainNowS() + 300n;
    const nonce = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [real.id, BigInt(salt)]));
    const signature = await real.payer.signTypedData({
      domain: DEVNET_USDC_DOMAIN,
      types: { ReceiveWithAuthorization: authorizationTypes.TransferWithAuthorization },
      primaryType: "ReceiveWithAuthorization",
      message: { from: real.payer.address, to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, value: amount, validAfter: 0n, validBefore, nonce },
    });
    return header(real, {
      type: "deposit",
      voucher: { channelId: real.id, maxClaimableAmount: max.toString(), signature: await signVoucher(real.payer, real.config, max) },
      deposit: { amount: amount.toString(), authorization: { erc3009Authorization: { validAfter: "0", validBefore: validBefore.toString(), salt, signature } } },
    });
  }

  const wallet = (real: Real) => createWalletClient({ account: real.payer, chain: baseSepolia, transport: http(evm.url) });

  /** The service and the chain agree with the model. */
  async function agree(m: Model, real: Real): Promise<void> {
    const r = await row(real.id);
    expect(BigInt(r?.charged_atomic ?? 0)).toBe(m.charged);
    expect(evm.escrow.channel(real.id).balance).toBe(m.balance);
    expect(r?.pending_id ?? null).toBeNull();
  }

  /**
   * A paid call. While a withdrawal is pending the service learns of it at the keeper's next run: until then a
   * voucher is still charged (the keeper claims it with the rest, long before the delay ends), after it refused.
   */
  class Call implements fc.AsyncCommand<Model, Real> {
    constructor(readonly q: string) {}
    check = (m: Readonly<Model>) => m.withdrawing === 0n || m.charged + PRICE <= m.balance;
    async run(m: Model, real: Real) {
      const max = m.charged + PRICE;
      const topUp = max > m.balance;
      const h = topUp ? await depositHeader(real, DEPOSIT, max) : await voucherHeader(real, max);
      const res = await fetch(`${t.url}/v1/test/acct?q=${this.q}`, { headers: { "PAYMENT-SIGNATURE": h } });
      if (m.withdrawing > 0n && m.keeperSinceWithdrawal) {
        expect(res.status).toBe(402);
        expect(decodePaymentRequiredHeader(res.headers.get("payment-required")!).error).toBe("invalid_batch_settlement_evm_channel_withdrawing");
        return agree(m, real);
      }
      expect(res.status, res.headers.get("payment-required") ?? "").toBe(200);
      m.charged = max;
      m.calls++;
      m.lastVoucher = h;
      if (topUp) {
        m.balance += DEPOSIT;
        m.deposited += DEPOSIT;
      }
      await agree(m, real);
    }
    toString = () => `call(${this.q})`;
  }

  class FailingCall implements fc.AsyncCommand<Model, Real> {
    check = (m: Readonly<Model>) => m.withdrawing === 0n && m.charged + PRICE <= m.balance;
    async run(m: Model, real: Real) {
      const res = await fetch(`${t.url}/v1/test/acct-fail`, {
        method: "POST",
        headers: { "PAYMENT-SIGNATURE": await voucherHeader(real, m.charged + PRICE), "content-type": "application/json" },
        body: JSON.stringify({ q: "f" }),
      });
      expect(res.status).toBe(500);
      await agree(m, real);
    }
    toString = () => "failingCall";
  }

  class Replay implements fc.AsyncCommand<Model, Real> {
    check = (m: Readonly<Model>) => m.lastVoucher !== undefined && m.withdrawing === 0n;
    async run(m: Model, real: Real) {
      const res = await fetch(`${t.url}/v1/test/acct?q=replayed-elsewhere`, { headers: { "PAYMENT-SIGNATURE": m.lastVoucher! } });
      expect(res.status).toBe(402);
      await agree(m, real);
    }
    toString = () => "replay";
  }

  class Keep implements fc.AsyncCommand<Model, Real> {
    check = () => true;
    async run(m: Model, real: Real) {
      await keeper();
      if (m.withdrawing > 0n) m.keeperSinceWithdrawal = true;
      m.claimed = m.charged;
      expect(evm.escrow.channel(real.id).totalClaimed).toBe(m.charged);
      await agree(m, real);
    }
    toString = () => "keeper";
  }

  class IdleRefund implements fc.AsyncCommand<Model, Real> {
    check = (m: Readonly<Model>) => m.withdrawing === 0n && m.balance > m.charged;
    async run(m: Model, real: Real) {
      appOffset.ms += (IDLE_SECONDS + 1) * 1000;
      await keeper();
      m.refunded += m.balance - m.charged;
      m.balance = m.charged;
      m.claimed = m.charged;
      await agree(m, real);
    }
    toString = () => "idleRefund";
  }

  class StartWithdrawal implements fc.AsyncCommand<Model, Real> {
    check = (m: Readonly<Model>) => m.withdrawing === 0n && m.balance > m.claimed;
    async run(m: Model, real: Real) {
      expect(evm.escrow.channel(real.id).totalClaimed).toBe(m.claimed);
      const amount = m.balance - m.claimed;
      await wallet(real).writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "initiateWithdraw", args: [real.config, amount] });
      m.withdrawing = amount;
      m.keeperSinceWithdrawal = false;
      await agree(m, real);
    }
    toString = () => "startWithdrawal";
  }

  class FinishWithdrawal implements fc.AsyncCommand<Model, Real> {
    check = (m: Readonly<Model>) => m.withdrawing > 0n && m.keeperSinceWithdrawal;
    async run(m: Model, real: Real) {
      chainOffset.ms += (DELAY_SECONDS + 1) * 1000;
      await wallet(real).writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "finalizeWithdraw", args: [real.config] });
      // Everything charged was claimed by the keeper: the payer gets the rest, up to what it asked for.
      const paid = m.withdrawing < m.balance - m.charged ? m.withdrawing : m.balance - m.charged;
      m.withdrawn += paid;
      m.balance -= paid;
      m.withdrawing = 0n;
      await keeper();
      m.claimed = m.charged;
      await agree(m, real);
    }
    toString = () => "finishWithdrawal";
  }

  const commands = [
    fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom("a", "b", "c") }).map((q) => new Call(q)),
    fc.constant(new FailingCall()),
    fc.constant(new Replay()),
    fc.constant(new Keep()),
    fc.constant(new IdleRefund()),
    fc.constant(new StartWithdrawal()),
    fc.constant(new FinishWithdrawal()),
  ];

  it("money is conserved and the receiver gets exactly what was charged, whatever the order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 14 }), async (cmds) => {
        const payer = privateKeyToAccount(generatePrivateKey());
        evm.mintUsdc(payer.address, 10_000_000n);
        const config: ChannelConfig = { payer: payer.address, payerAuthorizer: payer.address, receiver: payTo, receiverAuthorizer: authorizer, token: evm.usdcAddress, withdrawDelay: DELAY_SECONDS, salt: `0x${"00".repeat(32)}` };
        const real: Real = { payer, config, id: channelIdOf(config) };
        const model: Model = { charged: 0n, claimed: 0n, balance: 0n, deposited: 0n, refunded: 0n, withdrawn: 0n, withdrawing: 0n, keeperSinceWithdrawal: false, calls: 0 };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        // A withdrawal left pending: the keeper claims; the payer's money stays escrowed until it finalizes.
        await keeper();
        const ch = evm.escrow.channel(real.id);
        expect(model.charged).toBe(BigInt(model.calls) * PRICE);
        expect(ch.totalClaimed).toBe(model.charged);
        expect(model.deposited).toBe(ch.totalClaimed + model.refunded + model.withdrawn + (ch.balance - ch.totalClaimed));
        const r = await row(real.id);
        if (r) expect([BigInt(r.deposited_atomic), BigInt(r.refunded_atomic), BigInt(r.withdrawn_atomic), BigInt(r.claimed_atomic)]).toEqual([model.deposited, model.refunded, model.withdrawn, model.charged]);
        // Every channel's claims reached the receiver; the escrow holds exactly what it still owes.
        const receiver = evm.escrow.receiver(payTo, evm.usdcAddress);
        expect(receiver.totalSettled).toBe(receiver.totalClaimed);
        const owed = await sql<{ owed: string }>`SELECT coalesce(sum(balance_atomic - claimed_atomic), 0)::text AS owed FROM x402_channels`.execute(t.db.db);
        expect(evm.usdcBalanceOf(BATCH_SETTLEMENT_ADDRESS)).toBe(BigInt(owed.rows[0]!.owed));
      }),
      { numRuns: 12 },
    );
    // Failing work wrote nothing that stayed.
    expect((await sql<{ n: string }>`SELECT count(*)::text AS n FROM test_acct_writes`.execute(t.db.db)).rows[0]!.n).toBe("0");
  }, 300_000);
});
