/**
 * The private relay's routes (docs/private-relay.md): GET /v1/private-relay/info
 * and GET /v1/private-relay/inspect (free), POST /v1/premium/private-relay ($0.50).
 */
import { defineRoute, priceLabel, type AnyRouteDef } from "../http/route-table.js";
import { usdCents } from "../core/money.js";
import { z } from "zod";
import { checkRelay, InfoOutput, InspectOutput, inspectTransaction, RawTxInput, relayInfo, RelayOutput, relayTransaction, type RelayDeps } from "./relay.js";

/** The EIP-155 example transaction (chain 1, nonce 9), a real signed mainnet transaction: the example call relays it. */
const EXAMPLE_RAW_TX =
  "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";

/** What relaying it to three builders on 2026-01-01 answers (bundles for the next three blocks). */
const RELAY_EXAMPLE = {
  accepted: true,
  hash: "0x33469b22e9f636356c4160a87eb19df52b7412e8eac32a4a55ffe88ea8350788",
  from: "0x9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f",
  nonce: 9,
  chain_id: 1,
  submitted_at_ms: 1_767_225_600_000,
  head_block: "24150000",
  accepted_by: ["flashbots", "titan"],
  builders: [
    {
      builder: "flashbots",
      method: "eth_sendBundle",
      accepted: true,
      reply: "0x74bae464f934b0051f5d1d59bb771599d677b2a08ea933eaaf93d6f5b33036c9",
      target_blocks: [
        { block: "24150001", accepted: true },
        { block: "24150002", accepted: true },
        { block: "24150003", accepted: true },
      ],
      error: null,
    },
    {
      builder: "titan",
      method: "eth_sendBundle",
      accepted: true,
      reply: "0x1ca88e97437f7e49e63312b3aaf6f6deb7ef27d0daa2dd232135ae8e9868f0cb",
      target_blocks: [
        { block: "24150001", accepted: true },
        { block: "24150002", accepted: true },
        { block: "24150003", accepted: true },
      ],
      error: null,
    },
    {
      builder: "beaverbuild",
      method: "eth_sendBundle",
      accepted: false,
      reply: null,
      target_blocks: [{ block: "24150001", accepted: false, error: "request timed out after 5000 ms" }],
      error: "request timed out after 5000 ms",
    },
  ],
  note: "Accepted means the builder took the transaction, not that it will be included. A sent transaction cannot be recalled, only replaced by one with the same nonce and a higher fee.",
} satisfies z.input<typeof RelayOutput>;

export const PRIVATE_RELAY_PRICE = usdCents(50);
const PRICE_LABEL = priceLabel({ price: PRIVATE_RELAY_PRICE })!;

export function relayRoutes(ctx: RelayDeps): AnyRouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/private-relay/info",
      operationId: "privateRelayInfo",
      summary: "The private relay: the builders it fans out to, their methods, the price and the caveats",
      tags: ["private-relay"],
      mcpTool: "service_private_relay_info",
      input: z.object({}).strict(),
      output: InfoOutput,
      handler: () => relayInfo({ ctx, price: PRICE_LABEL }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/private-relay/inspect",
      operationId: "privateRelayInspect",
      summary: "Decode and check a signed raw Ethereum transaction (sender, hash, to, nonce, chain, fees) and preview the builders it would go to; relays nothing, costs nothing",
      description:
        "Legacy, EIP-2930, EIP-1559, EIP-4844 (with or without blob sidecars) and EIP-7702 transactions. A transaction that cannot be decoded or is unsigned is a 400 invalid_transaction; one that decodes but would be refused (wrong chain, nonce used, already known) is answered with `relayable: false` and the refusal.",
      tags: ["private-relay"],
      mcpTool: "service_private_relay_inspect",
      input: RawTxInput,
      output: InspectOutput,
      handler: (input) => inspectTransaction({ ctx, input, price: PRICE_LABEL }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/premium/private-relay",
      operationId: "premiumPrivateRelay",
      summary: "Forward a locally signed raw Ethereum transaction to the private block builders only (never a public mempool); answers per builder accepted or refused",
      description:
        "Body `{raw_tx}`. Malformed, unsigned, wrong-chain, nonce-used and already-known transactions are refused before payment. The payment settles before anything is sent: a failed settlement sends nothing. The answer reports each builder's outcome; when every builder refuses, `accepted` is false and the payment stands (the sending was done). A retry with the same payment returns the stored answer and sends nothing again.",
      tags: ["private-relay"],
      mcpTool: "service_private_relay",
      input: RawTxInput,
      output: RelayOutput,
      price: PRIVATE_RELAY_PRICE,
      example: { input: { raw_tx: EXAMPLE_RAW_TX }, output: RELAY_EXAMPLE },
      // Nothing is written to the database; but a send cannot be recalled, so the payment settles first and only a settled payment sends.
      readOnly: true,
      settleBeforeWork: true,
      minValiditySeconds: 30,
      precheck: async (input) => void (await checkRelay({ ctx, input })),
      handler: (input) => relayTransaction({ ctx, input }),
    }),
  ];
}
