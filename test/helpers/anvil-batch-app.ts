/**
 * Vigil's payment channels on a real EVM: what the real-contract suite
 * (test/real/batch-settlement-anvil.test.ts) and `npm run bench:channel-gas`
 * share. Foundry's anvil runs as Base Sepolia (84532) with Circle's
 * FiatTokenV2_2 at Base Sepolia's USDC address, Multicall3 at its canonical
 * address, and x402's escrow and ERC-3009 deposit collector deployed through
 * the CREATE2 deployer at the addresses @x402/evm hard-codes. The app is
 * configured as an operator would run channels with its local facilitator;
 * payers are the official clients (@x402/fetch with @x402/evm's schemes).
 *
 * Anvil's ten funded accounts have fixed roles, so a test can name them:
 * 9 the USDC proxy's admin, 8 USDC's owner (and the deployer of Multicall3
 * and the escrow), 7 the facilitator's gas key, 6 PAY_TO, 5 the
 * receiver-authorizer; 0–4 are payers that hold ETH (a payer's own
 * withdrawal is a transaction it pays for).
 *
 * No vitest here: the benchmark imports it too.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { sql } from "kysely";
import { parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { BATCH_SETTLEMENT_ADDRESS, toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage, type BatchSettlementEvmSchemeOptions } from "@x402/evm/batch-settlement/client";
import { defineRoute } from "../../src/http/route-table.js";
import { USDC } from "../../src/x402/networks.js";
import type { Database } from "../../src/db/types.js";
import { startAnvil, type AnvilNode } from "./anvil.js";
import { installCircleUsdc, installMulticall3, type CircleUsdc } from "./anvil-usdc.js";
import { ESCROW_ARTIFACT, installBatchSettlement } from "./anvil-batch-settlement.js";

export const NETWORK = "eip155:84532";
export const SEPOLIA_USDC = USDC[NETWORK];
export const ESCROW_ABI = ESCROW_ARTIFACT.abi;
/** BATCH_REFUND_IDLE_SECONDS of the app: a channel unused this long is refunded (the devnet's default). */
export const REFUND_IDLE_SECONDS = 3600;

export interface BatchChain {
  node: AnvilNode;
  usdc: CircleUsdc;
  escrow: Address;
  collector: Address;
  payTo: Address;
  /** The facilitator's gas key (it sends deposits, claims, settlements and refunds). */
  facilitator: PrivateKeyAccount;
  /** The receiver-authorizer's key (the app signs claim batches and refunds with it). */
  authorizerKey: Hex;
  close(): Promise<void>;
}

/** Anvil as Base Sepolia with Circle's USDC, Multicall3, the escrow and the ERC-3009 collector in place. */
export async function startBatchChain(): Promise<BatchChain> {
  const node = await startAnvil({ chainId: SEPOLIA_USDC.chainId });
  try {
    const usdc = await installCircleUsdc(node, { at: SEPOLIA_USDC.asset, name: SEPOLIA_USDC.name, symbol: "USDC", admin: node.accounts[9]!, owner: node.accounts[8]! });
    await installMulticall3(node, node.accounts[8]!);
    const { escrow, collector } = await installBatchSettlement(node, node.accounts[8]!);
    return { node, usdc, escrow, collector, payTo: node.accounts[6]!.address, facilitator: node.accounts[7]!, authorizerKey: node.keys[5]!, close: () => node.close() };
  } catch (e) {
    await node.close();
    throw e;
  }
}

/** The app's settings for channels on this chain, as the devnet e2e runs them (the keeper claims any charge on a periodic run). */
export function batchAppEnv(chain: BatchChain): Record<string, string> {
  const facilitatorKey = chain.node.keys[chain.node.accounts.indexOf(chain.facilitator)]!;
  return {
    FACILITATOR_MODE: "local",
    EVM_RPC_URL: chain.node.url,
    FACILITATOR_PRIVATE_KEY: facilitatorKey,
    X402_NETWORK: NETWORK,
    PAY_TO: chain.payTo,
    MASTER_KEY: randomBytes(32).toString("hex"),
    BATCH_SETTLEMENT: "on",
    BATCH_RECEIVER_AUTHORIZER_KEY: chain.authorizerKey,
    BATCH_WITHDRAW_DELAY_SECONDS: "900",
    BATCH_REFUND_IDLE_SECONDS: String(REFUND_IDLE_SECONDS),
    BATCH_CLAIM_MIN_ATOMIC: "1",
    RATE_LIMIT_PER_MINUTE: "10000000",
  };
}

/**
 * A payer paying with batch-settlement only, through the official client, reading its channel on chain through `rpc`
 * (a viem public client of the chain); `options` are the official scheme's (salt, deposit sizing).
 */
export function officialBatchPayer(rpc: Parameters<typeof toClientEvmSigner>[1], key: Hex, options: Omit<BatchSettlementEvmSchemeOptions, "storage"> = {}) {
  const account = privateKeyToAccount(key);
  const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(account, rpc), { storage: new InMemoryClientChannelStorage(), ...options });
  return { account, scheme, pay: wrapFetchWithPayment(fetch, new x402Client().register(NETWORK, scheme)) };
}

/** A payer paying with exact only, through the official client. */
export function officialExactPayer(key: Hex) {
  const account = privateKeyToAccount(key);
  return { account, pay: wrapFetchWithPayment(fetch, new x402Client().register(NETWORK, new ExactEvmScheme(account))) };
}

/** The escrow's views, read from the chain. */
export function escrowViews(chain: BatchChain) {
  const read = <T>(functionName: string, args: readonly unknown[]) => chain.node.client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: ESCROW_ABI, functionName, args }) as Promise<T>;
  return {
    async channel(id: Hex): Promise<{ balance: bigint; totalClaimed: bigint }> {
      const [balance, totalClaimed] = await read<readonly [bigint, bigint]>("channels", [id]);
      return { balance, totalClaimed };
    },
    async receiver(): Promise<{ totalClaimed: bigint; totalSettled: bigint }> {
      const [totalClaimed, totalSettled] = await read<readonly [bigint, bigint]>("receivers", [chain.payTo, chain.usdc.address]);
      return { totalClaimed, totalSettled };
    },
    async pendingWithdrawal(id: Hex): Promise<{ amount: bigint; initiatedAt: number }> {
      const [amount, initiatedAt] = await read<readonly [bigint, number]>("pendingWithdrawals", [id]);
      return { amount, initiatedAt: Number(initiatedAt) };
    },
  };
}

export interface EscrowLog {
  eventName: string;
  args: Record<string, unknown>;
}

/** A mined transaction's receipt and the escrow's events in it, decoded with the real contract's ABI. */
export async function escrowReceipt(chain: BatchChain, hash: Hex) {
  const receipt = await chain.node.client.getTransactionReceipt({ hash });
  const ofEscrow = receipt.logs.filter((l) => l.address.toLowerCase() === chain.escrow.toLowerCase());
  const events: EscrowLog[] = parseEventLogs({ abi: ESCROW_ABI, logs: ofEscrow }).map((e) => ({ eventName: e.eventName, args: e.args as Record<string, unknown> }));
  return { receipt, events };
}

/** A paid read-only route and a paid route that writes a row (the table: createPaidWorkTable), both at `price`. */
export function channelTestRoutes(price: bigint) {
  let reads = 0;
  const fact = defineRoute({
    method: "GET",
    path: "/v1/test/fact",
    operationId: "testRealChannelFact",
    summary: "paid read-only test fact (real EVM)",
    input: z.object({ q: z.string().optional() }),
    output: z.object({ n: z.number(), q: z.string().nullable() }),
    price,
    readOnly: true,
    handler: async (input) => ({ n: ++reads, q: input.q ?? null }),
  });
  const work = defineRoute({
    method: "POST",
    path: "/v1/test/work",
    operationId: "testRealChannelWork",
    summary: "paid test work that writes (real EVM)",
    input: z.object({ tag: z.string() }),
    output: z.object({ tag: z.string() }),
    price,
    handler: async (input, ctx) => {
      await sql`INSERT INTO test_paid_work (tag, payer) VALUES (${input.tag}, ${ctx.payment!.payer})`.execute(ctx.db as Database);
      return { tag: input.tag };
    },
  });
  return { fact, work };
}

export const createPaidWorkTable = (db: Database) => sql`CREATE TABLE test_paid_work (tag text NOT NULL, payer text NOT NULL)`.execute(db);
