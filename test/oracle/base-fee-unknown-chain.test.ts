/**
 * The base-fee question on a node of a chain with no fork schedule: the
 * devnet's payment chain (Base Sepolia's id, 84532) where an Ethereum node
 * was meant, as an ETH_RPC_URL pointed at the wrong node would give. The
 * answer is 502 chain_schedule_unknown naming the chain id, never fees
 * computed by another chain's rules.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EthRpc } from "../../src/chains/ethereum/rpc.js";
import { forkSchedule } from "../../src/chains/ethereum/fees.js";
import { startDevnetEvm, type DevnetEvm } from "../../devnet/evm.js";
import { ethereumQuestions } from "../../src/oracle/questions/ethereum.js";
import { createOracleRegistry } from "../../src/oracle/registry.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

describe("base-fee on a node of another chain", () => {
  let evm: DevnetEvm;
  let db: TestDatabase;
  let rpc: EthRpc;

  beforeAll(async () => {
    evm = await startDevnetEvm({ accounts: 1 });
    db = await openTestDatabase();
    rpc = new EthRpc({ urls: [evm.url] });
  });
  afterAll(async () => {
    await rpc?.close();
    await db?.close();
    await evm?.close();
  });

  it("is a 502 chain_schedule_unknown naming the chain id", async () => {
    expect(forkSchedule(evm.chainId)).toBeUndefined();
    const clock = { now: () => Date.now() };
    const registry = createOracleRegistry(ethereumQuestions({ rpc, db: db.db, clock, maxAgeSeconds: 60 }), clock);
    await expect(registry.ask("base-fee", {})).rejects.toMatchObject({ status: 502, code: "chain_schedule_unknown", details: { chainId: evm.chainId } });
  });
});
