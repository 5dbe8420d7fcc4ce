/**
 * The private relay (docs/private-relay.md): inspect a signed raw Ethereum
 * transaction for free, or pay to have it forwarded to the configured
 * private builder endpoints only (never a node's public mempool: the node is
 * only read, for its chain id, the sender's nonce and balance, whether it
 * already knows the hash, and the head).
 *
 * Flow of a paid relay (a send cannot be recalled, so the route settles
 * before it sends: RouteDef.settleBeforeWork):
 *   1. precheck, on the unpaid call and again on the paid one before the
 *      payment is verified: decode and recover the sender
 *      (400 invalid_transaction; the body and `raw_tx` size limits come
 *      first), the chain id must be the node's (400 transaction_wrong_chain),
 *      the nonce must not be below the sender's on-chain nonce and the node
 *      must not know the hash (409 transaction_already_mined), a builder must
 *      be configured (503); a node that does not answer is a 502 here too;
 *   2. the payment is verified and settled; a failed settlement sends nothing;
 *   3. only then one submission per builder, in parallel, and 200 with each
 *      builder's outcome, `accepted` false when every builder refused (the
 *      payment paid for the sending, which happened).
 */
import { z } from "zod";
import type { Clock } from "../core/clock.js";
import { badRequest, conflict, ServiceError, unavailable } from "../core/errors.js";
import { forkSchedule, projectFees } from "../chains/ethereum/fees.js";
import type { EthRpc } from "../chains/ethereum/rpc.js";
import type { BuilderClient, Submission } from "./builders.js";
import { decodeRawTransaction, TX_GAS_CAP, type DecodedTx } from "./decode.js";

export interface RelayDeps {
  rpc: EthRpc;
  clock: Clock;
  builders: readonly BuilderClient[];
  /** Blocks ahead a bundle is submitted for. */
  targetBlocks: number;
  /** Whether bundle requests are signed (X-Flashbots-Signature). */
  signed: boolean;
}

const quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/)
  .transform((s) => BigInt(s));

/** What the node says about the transaction's sender and hash. */
export interface NodeView {
  chainId: number;
  head: bigint;
  accountNonce: bigint;
  balance: bigint;
  known: boolean;
  nextBaseFee: bigint | null;
}

async function readNode(rpc: EthRpc, tx: DecodedTx): Promise<NodeView> {
  const chainId = await rpc.chainId();
  const [head, nonce, balance, known] = await Promise.all([
    rpc.header("latest"),
    rpc.call("eth_getTransactionCount", [tx.from, "latest"]),
    rpc.call("eth_getBalance", [tx.from, "latest"]),
    rpc.call("eth_getTransactionByHash", [tx.hash]),
  ]);
  const parse = (method: string, v: unknown) => {
    const r = quantity.safeParse(v);
    if (!r.success) throw new ServiceError("chain_rpc_failed", `Ethereum node sent a malformed answer to ${method}`, { chain: "ethereum", call: method });
    return r.data;
  };
  const schedule = forkSchedule(chainId);
  return {
    chainId,
    head: head?.number ?? 0n,
    accountNonce: parse("eth_getTransactionCount", nonce),
    balance: parse("eth_getBalance", balance),
    known: known !== null && known !== undefined,
    nextBaseFee: head && schedule ? projectFees(head, schedule).nextBaseFee : null,
  };
}

export interface Check {
  check: string;
  ok: boolean;
  /** A failed blocking check refuses the relay; a failed warning only informs. */
  blocking: boolean;
  message: string;
}

/** The checks of a decoded transaction against the node, blocking ones first. */
export function checksOf(tx: DecodedTx, node: NodeView): Check[] {
  const feeCap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  const checks: Check[] = [
    {
      check: "chain",
      ok: tx.chainId === node.chainId,
      blocking: true,
      message:
        tx.chainId === null
          ? `no chain id (pre-EIP-155 signature, valid on any chain); the relay's chain is ${node.chainId}`
          : tx.chainId === node.chainId
            ? `signed for chain ${tx.chainId}`
            : `signed for chain ${tx.chainId}, the relay's chain is ${node.chainId}`,
    },
    {
      check: "not_mined",
      ok: BigInt(tx.nonce) >= node.accountNonce && !node.known,
      blocking: true,
      message: node.known
        ? "the node already knows this transaction hash"
        : BigInt(tx.nonce) < node.accountNonce
          ? `nonce ${tx.nonce} is below the sender's on-chain nonce ${node.accountNonce}: already used`
          : `nonce ${tx.nonce}, sender's on-chain nonce ${node.accountNonce}`,
    },
    {
      check: "nonce_gap",
      ok: BigInt(tx.nonce) <= node.accountNonce,
      blocking: false,
      message:
        BigInt(tx.nonce) > node.accountNonce
          ? `nonce ${tx.nonce} leaves a gap after the on-chain nonce ${node.accountNonce}: builders cannot include it until the gap is filled`
          : "no nonce gap",
    },
    { check: "gas_cap", ok: tx.gas <= TX_GAS_CAP, blocking: false, message: `gas limit ${tx.gas} (cap ${TX_GAS_CAP}, EIP-7825)` },
    {
      check: "fee_cap",
      ok: node.nextBaseFee === null || feeCap >= node.nextBaseFee,
      blocking: false,
      message: node.nextBaseFee === null ? "next base fee unknown" : `fee cap ${feeCap} wei, projected next base fee ${node.nextBaseFee} wei`,
    },
    {
      check: "priority_fee",
      ok: (tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n) > 0n,
      blocking: false,
      message: "builders skip transactions that pay them no priority fee",
    },
    { check: "balance", ok: node.balance >= tx.maxCost, blocking: false, message: `sender balance ${node.balance} wei, maximum cost ${tx.maxCost} wei` },
  ];
  return checks;
}

/** The refusal of the first failed blocking check, as the error the route answers. */
function refusal(tx: DecodedTx, checks: Check[]): ServiceError | null {
  const failed = checks.find((c) => c.blocking && !c.ok);
  if (!failed) return null;
  const details = { hash: tx.hash, from: tx.from, nonce: tx.nonce, chain_id: tx.chainId };
  if (failed.check === "chain") return badRequest("transaction_wrong_chain", `Refused: ${failed.message}.`, details);
  return conflict("transaction_already_mined", `Refused: ${failed.message}.`, details);
}

const wei = z.string().regex(/^\d+$/).describe("wei, decimal integer string");

export const RawTxInput = z
  .object({
    raw_tx: z
      .string()
      .max(2 + 2 * 1_000_000)
      .regex(/^0x[0-9a-fA-F]+$/, "raw_tx must be 0x-prefixed hex (a signed transaction)")
      .describe("the signed transaction, 0x-hex (as eth_sendRawTransaction takes it)"),
  })
  .strict();

const Target = z.object({ builder: z.string(), method: z.enum(["eth_sendBundle", "eth_sendRawTransaction"]) });

export const InspectOutput = z.object({
  relayable: z.boolean().describe("whether POST /v1/premium/private-relay would forward it now (no blocking check failed)"),
  refusal: z.object({ code: z.string(), message: z.string() }).nullable(),
  type: z.enum(["legacy", "eip2930", "eip1559", "eip4844", "eip7702"]),
  hash: z.string(),
  from: z.string(),
  to: z.string().nullable().describe("null: contract creation"),
  nonce: z.number().int(),
  chain_id: z.number().int().nullable().describe("null: a pre-EIP-155 legacy signature"),
  value_wei: wei,
  gas_limit: z.string(),
  fees: z.object({
    gas_price_wei: wei.nullable(),
    max_fee_per_gas_wei: wei.nullable(),
    max_priority_fee_per_gas_wei: wei.nullable(),
    max_fee_per_blob_gas_wei: wei.nullable(),
    blob_count: z.number().int(),
    max_cost_wei: wei.describe("gas × fee cap + value + blob gas × blob fee cap"),
  }),
  call: z.object({
    selector: z.string().nullable(),
    data_bytes: z.number().int(),
    access_list_addresses: z.array(z.string()),
    authorizations: z.array(z.object({ delegate: z.string(), chain_id: z.number().int(), nonce: z.number().int(), authority: z.string().nullable() })),
  }),
  node: z
    .object({ chain_id: z.number().int(), head_block: z.string(), account_nonce: z.string(), balance_wei: wei, hash_known: z.boolean() })
    .describe("what the node said"),
  checks: z.array(z.object({ check: z.string(), ok: z.boolean(), blocking: z.boolean(), message: z.string() })),
  targets: z.array(Target).describe("the builders a paid relay would forward it to"),
  relay_price: z.string(),
  as_of_ms: z.number().int(),
});
export type Inspection = z.infer<typeof InspectOutput>;

const str = (v: bigint | null) => (v === null ? null : v.toString());

async function examine(deps: RelayDeps, rawTx: string): Promise<{ tx: DecodedTx; node: NodeView; checks: Check[]; refused: ServiceError | null }> {
  const tx = await decodeRawTransaction(rawTx);
  const node = await readNode(deps.rpc, tx);
  const checks = checksOf(tx, node);
  return { tx, node, checks, refused: refusal(tx, checks) };
}

export async function inspectTransaction({ ctx, input, price }: { ctx: RelayDeps; input: z.infer<typeof RawTxInput>; price: string }): Promise<Inspection> {
  const { tx, node, checks, refused } = await examine(ctx, input.raw_tx);
  const noBuilders = ctx.builders.length === 0;
  return {
    relayable: !refused && !noBuilders,
    refusal: refused
      ? { code: refused.code, message: refused.message }
      : noBuilders
        ? { code: "private_relay_not_configured", message: "This server has no private builder endpoint." }
        : null,
    type: tx.type,
    hash: tx.hash,
    from: tx.from,
    to: tx.to,
    nonce: tx.nonce,
    chain_id: tx.chainId,
    value_wei: tx.value.toString(),
    gas_limit: tx.gas.toString(),
    fees: {
      gas_price_wei: str(tx.gasPrice),
      max_fee_per_gas_wei: str(tx.maxFeePerGas),
      max_priority_fee_per_gas_wei: str(tx.maxPriorityFeePerGas),
      max_fee_per_blob_gas_wei: str(tx.maxFeePerBlobGas),
      blob_count: tx.blobCount,
      max_cost_wei: tx.maxCost.toString(),
    },
    call: {
      selector: tx.selector,
      data_bytes: tx.dataBytes,
      access_list_addresses: tx.accessListAddresses,
      authorizations: tx.authorizations.map((a) => ({ delegate: a.delegate, chain_id: a.chainId, nonce: a.nonce, authority: a.authority })),
    },
    node: { chain_id: node.chainId, head_block: node.head.toString(), account_nonce: node.accountNonce.toString(), balance_wei: node.balance.toString(), hash_known: node.known },
    checks,
    targets: ctx.builders.map((b) => ({ builder: b.endpoint.name, method: b.endpoint.method })),
    relay_price: price,
    as_of_ms: ctx.clock.now(),
  };
}

/** The paid relay's precheck: every refusal that needs no payment. */
export async function checkRelay({ ctx, input }: { ctx: RelayDeps; input: z.infer<typeof RawTxInput> }): Promise<{ tx: DecodedTx; node: NodeView }> {
  if (ctx.builders.length === 0) throw unavailable("private_relay_not_configured", "This server has no private builder endpoint (PRIVATE_RELAY_BUILDERS), so it relays nothing.");
  const { tx, node, refused } = await examine(ctx, input.raw_tx);
  if (refused) throw refused;
  return { tx, node };
}

export const RelayOutput = z.object({
  accepted: z.boolean().describe("at least one builder accepted; false: every builder refused (see builders[].error), the transaction was sent and the payment settled"),
  hash: z.string(),
  from: z.string(),
  nonce: z.number().int(),
  chain_id: z.number().int(),
  submitted_at_ms: z.number().int(),
  head_block: z.string().describe("the node's head when the transaction was submitted"),
  accepted_by: z.array(z.string()),
  builders: z.array(
    z.object({
      builder: z.string(),
      method: z.enum(["eth_sendBundle", "eth_sendRawTransaction"]),
      accepted: z.boolean(),
      reply: z.string().nullable().describe("the builder's bundle hash or transaction hash"),
      target_blocks: z.array(z.object({ block: z.string(), accepted: z.boolean(), error: z.string().optional() })),
      error: z.string().nullable(),
    }),
  ),
  note: z.string(),
});
export type RelayResult = z.infer<typeof RelayOutput>;

/**
 * The paid work, run once the payment has settled: every refusal was the
 * precheck's, so this only sends and reports. The transaction is decoded
 * again (pure: the precheck's decode succeeded on these bytes) and the head
 * read for the bundles' target blocks; a node that fails now fails the call
 * after settlement, and the paywall's resume sends on the client's retry.
 */
export async function relayTransaction({ ctx, input }: { ctx: RelayDeps; input: z.infer<typeof RawTxInput> }): Promise<RelayResult> {
  const tx = await decodeRawTransaction(input.raw_tx);
  const head = (await ctx.rpc.header("latest"))?.number ?? 0n;
  const submissions: Submission[] = await Promise.all(ctx.builders.map((b) => b.submit(tx.raw, head + 1n, ctx.targetBlocks)));
  const builders = submissions.map((s) => ({ builder: s.builder, method: s.method, accepted: s.accepted, reply: s.reply, target_blocks: s.blocks, error: s.error }));
  const accepted = submissions.filter((s) => s.accepted).map((s) => s.builder);
  return {
    accepted: accepted.length > 0,
    hash: tx.hash,
    from: tx.from,
    nonce: tx.nonce,
    chain_id: tx.chainId!,
    submitted_at_ms: ctx.clock.now(),
    head_block: head.toString(),
    accepted_by: accepted,
    builders,
    note:
      accepted.length > 0
        ? "Accepted means the builder took the transaction, not that it will be included. A sent transaction cannot be recalled, only replaced by one with the same nonce and a higher fee."
        : "Every builder refused the transaction (reasons per builder above). It was sent to each of them after the payment settled, so the payment stands; a refusing builder may still have seen it. Fix the reason and relay again (a new payment).",
  };
}

export const InfoOutput = z.object({
  chain_id: z.number().int().nullable().describe("the chain the relay accepts transactions for (its node's); null when no node answers"),
  price: z.string(),
  builders: z.array(z.object({ name: z.string(), url: z.string(), method: z.enum(["eth_sendBundle", "eth_sendRawTransaction"]) })),
  target_blocks: z.number().int().describe("eth_sendBundle: one bundle per block for this many blocks after the head"),
  signed_requests: z.boolean().describe("whether requests carry X-Flashbots-Signature (the service's reputation key)"),
  inspect_endpoint: z.string(),
  relay_endpoint: z.string(),
  caveats: z.array(z.string()),
});

export async function relayInfo({ ctx, price }: { ctx: RelayDeps; price: string }): Promise<z.infer<typeof InfoOutput>> {
  const chainId = ctx.rpc.configured ? await ctx.rpc.chainId().catch(() => null) : null;
  return {
    chain_id: chainId,
    price,
    builders: ctx.builders.map((b) => ({ name: b.endpoint.name, url: b.endpoint.publicUrl, method: b.endpoint.method })),
    target_blocks: ctx.targetBlocks,
    signed_requests: ctx.signed,
    inspect_endpoint: "/v1/private-relay/inspect",
    relay_endpoint: "/v1/premium/private-relay",
    caveats: [
      "Only the listed private builder endpoints receive the transaction; it is never sent to a public mempool by this service.",
      "Every listed builder sees the transaction and may share it with the parties its own policy names.",
      "Acceptance is not inclusion: a builder includes it only if it wins a block while the transaction is valid.",
      `Bundles target the next ${ctx.targetBlocks} block(s) after the head; after that, submit again.`,
      "A sent transaction cannot be recalled; it can only be replaced by one with the same nonce and a higher fee.",
      "Refusals (malformed, unsigned, wrong chain, nonce already used, already known) are decided before payment and cost nothing.",
      "The payment settles before the transaction is sent: if settlement fails, nothing is sent; once sent, the payment stands even if every builder refuses (the answer says why, per builder).",
    ],
  };
}
