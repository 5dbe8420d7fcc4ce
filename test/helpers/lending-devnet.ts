/**
 * The lending indexer on its own devnet L1 for one test file: a fresh
 * database, a simulated chain that mines only when told (`sim.mine`), an
 * EthRpc over its loopback socket and the indexer's settings over every
 * reviewed market. `drain` indexes until the indexer has caught up.
 */
import { EthRpc } from "../../src/chains/ethereum/rpc.js";
import { AAVE_V3_CORE_ORACLE, LENDING_MARKETS } from "../../src/chains/ethereum/lending.js";
import { startDevnetEthereum, type DevnetEthereum } from "../../devnet/ethereum.js";
import { indexLendingOnce, type LendingIndexerDeps, type LendingRunResult } from "../../src/ingest/lending-indexer.js";
import type { Clock } from "../../src/core/clock.js";
import { openTestDatabase, type TestDatabase } from "./db.js";

export interface LendingDevnet {
  db: TestDatabase;
  sim: DevnetEthereum;
  rpc: EthRpc;
  deps: LendingIndexerDeps;
  /** Index until caught up (at most 50 runs); the last run and how many ran. */
  drain: (d?: LendingIndexerDeps) => Promise<LendingRunResult & { runs: number }>;
  /** Stop (or restart) every simulated protocol's own activity, so a test's hand-made position is all that moves. */
  freezeAll: (on: boolean) => void;
  close: () => Promise<void>;
}

export async function startLendingDevnet(opts: { clock: Clock; seed?: number; batchBlocks: number; history?: number }): Promise<LendingDevnet> {
  const db = await openTestDatabase();
  const sim = await startDevnetEthereum({ autoMine: false, history: opts.history ?? 300, seed: opts.seed });
  const rpc = new EthRpc({ urls: [sim.url], attemptsPerUrl: 1 });
  const deps: LendingIndexerDeps = {
    db: db.db,
    rpc,
    clock: opts.clock,
    markets: LENDING_MARKETS,
    oracle: AAVE_V3_CORE_ORACLE,
    backfillBlocks: 1_000,
    batchBlocks: opts.batchBlocks,
    confirmations: 2,
    retentionSeconds: 86_400,
    multicallBatch: 50,
  };
  const drain = async (d: LendingIndexerDeps = deps) => {
    let r: LendingRunResult;
    let runs = 0;
    do {
      r = await indexLendingOnce(d);
      runs++;
    } while (r.more && runs < 50);
    return { ...r, runs };
  };
  const freezeAll = (on: boolean) => {
    sim.lending.freeze(on);
    sim.comet.freeze(on);
    sim.morpho.freeze(on);
  };
  return {
    db,
    sim,
    rpc,
    deps,
    drain,
    freezeAll,
    close: async () => {
      await rpc.close();
      await sim.close();
      await db.close();
    },
  };
}
