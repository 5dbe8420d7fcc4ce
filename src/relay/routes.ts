/**
 * The private relay's routes (docs/private-relay.md): GET /v1/private-relay/info
 * and GET /v1/private-relay/inspect (free), POST /v1/premium/private-relay ($0.50).
 */
import { defineRoute, priceLabel, type AnyRouteDef } from "../http/route-table.js";
import { usdCents } from "../core/money.js";
import { z } from "zod";
import { checkRelay, InfoOutput, InspectOutput, inspectTransaction, RawTxInput, relayInfo, RelayOutput, relayTransaction, type RelayDeps } from "./relay.js";

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
      // Nothing is written to the database; but a send cannot be recalled, so the payment settles first and only a settled payment sends.
      readOnly: true,
      settleBeforeWork: true,
      minValiditySeconds: 30,
      precheck: async (input) => void (await checkRelay({ ctx, input })),
      handler: (input) => relayTransaction({ ctx, input }),
    }),
  ];
}
