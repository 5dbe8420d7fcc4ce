/**
 * Run in a process of its own by test/x402/local-facilitator.test.ts: verifies and settles one payment
 * through the local facilitator on a devnet chain, and prints whether promise hooks were on before and
 * after. With promise hooks off, a promise continuation runs without an async id of its own (0); an
 * AsyncLocalStorage that has run turns them on for the whole process, for good. A process of its own,
 * because the test workers run many files one after another and another file may have turned them on.
 */
import { executionAsyncId } from "node:async_hooks";
import type { PaymentRequirements } from "@x402/core/types";
import { startDevnetEvm } from "../../devnet/evm.js";
import { createLocalFacilitator } from "../../src/x402/local-facilitator.js";
import { createPayer } from "../../src/x402/payer.js";

const idAfterAwait = async () => {
  await null;
  return executionAsyncId();
};

const before = await idAfterAwait();
const dev = await startDevnetEvm({ accounts: 3 });
try {
  const facilitator = createLocalFacilitator({ rpcUrl: dev.url, privateKey: dev.accounts[2]!.privateKey, network: "eip155:84532" });
  const req: PaymentRequirements = {
    scheme: "exact",
    network: "eip155:84532",
    amount: "100000",
    asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    payTo: dev.accounts[1]!.address,
    maxTimeoutSeconds: 300,
    extra: { name: "USDC", version: "2" },
  };
  const { payload } = await createPayer(dev.accounts[0]!.privateKey).signFor({
    x402Version: 2,
    error: "Payment required",
    resource: { url: "http://127.0.0.1/v1/test", description: "test", mimeType: "application/json" },
    accepts: [req],
  });
  const verified = await facilitator.verify(payload, req);
  const settled = await facilitator.settle(payload, req);
  const after = await idAfterAwait();
  process.stdout.write(`${JSON.stringify({ before, after, verified: verified.isValid, settled: settled.success })}\n`);
} finally {
  await dev.close();
}
