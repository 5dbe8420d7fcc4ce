/**
 * npm run bench:zcash-historical — a 1,000-block Zcash historical scan on the
 * devnet, over the lightwalletd gRPC simulator, with and without the Merkle
 * paths of unspent notes.
 *
 *  1. CHAIN: a devnet chain of BLOCKS blocks (it starts 10 before NU6.3): a
 *     Sapling and an Orchard note to the scanned wallet in the first block,
 *     an Ironwood note after NU6.3, background traffic (Orchard → Ironwood
 *     migration, 0–2 transactions a block) and a Sapling payment to another
 *     wallet every 5th block, so every tree grows. Block production time is
 *     printed with the share spent appending to the trees (replayed here on
 *     copies of the same frontiers).
 *  2. BASELINE: the historical scan without includeNotes — the engine path
 *     the live watches share, unchanged by the trees.
 *  3. PATHS: the same scan with includeNotes (memos read, then anchors and
 *     paths for the three unspent notes built across the whole range and
 *     checked against the tree state at toHeight), and the path step alone.
 * Wall time and this process's CPU time are printed (the machine is shared).
 *
 * Env: BLOCKS (1000).
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { systemClock } from "../src/core/clock.js";
import { createZcashHistorical } from "../src/chains/zcash/historical.js";
import { createLightwalletd } from "../src/chains/zcash/lightwalletd.js";
import { CommitmentTree } from "../src/chains/zcash/merkle.js";
import { unspentNotePaths } from "../src/chains/zcash/note-paths.js";
import type { StoredNote } from "../src/chains/zcash/scan-state.js";
import { startDevnetLightwalletd } from "../devnet/lightwalletd.js";
import { DevnetZcashChain, devnetInitialTrees } from "../devnet/zcash-chain.js";
import { deriveDevnetZcashWallets } from "../devnet/zcash-wallets.js";

const BLOCKS = Math.max(20, Number(process.env.BLOCKS ?? 1000));

async function timed<T>(label: string, f: () => Promise<T> | T): Promise<{ value: T; wall: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  console.log(`${label.padEnd(58)} ${wall.toFixed(0).padStart(7)} ms wall  ${((cpu.user + cpu.system) / 1000).toFixed(0).padStart(7)} ms CPU`);
  return { value, wall };
}

async function main(): Promise<void> {
  console.log(`bench:zcash-historical — ${BLOCKS} blocks, node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  const [wallet, other] = deriveDevnetZcashWallets("5a".repeat(32));
  const chain = new DevnetZcashChain(systemClock, 0);

  // 1. The chain.
  const built = await timed(`build ${BLOCKS} blocks (trial encryption + trees)`, () => {
    chain.open(1);
    chain.send(wallet!.saplingAddress, 100_000n, "sapling");
    chain.send(wallet!.address, 110_000n, "orchard");
    for (let i = 1; i < BLOCKS; i++) {
      if (i === 12) chain.send(wallet!.address, 120_000n, "ironwood");
      if (i % 5 === 0) chain.send(other!.saplingAddress, 10_000n);
      chain.mine(1);
    }
  });
  const first = chain.blocks[0]!;
  const tip = chain.tip();
  const start = devnetInitialTrees();
  const leaves = { sapling: tip.trees.sapling - start.sapling.size(), orchard: tip.trees.orchard - start.orchard.size(), ironwood: tip.trees.ironwood - start.ironwood.size() };
  console.log(`  leaves appended: sapling ${leaves.sapling}, orchard ${leaves.orchard}, ironwood ${leaves.ironwood}; ${(built.wall / BLOCKS).toFixed(1)} ms per block`);
  const replay = await timed("  of which tree appends (replayed on copies)", () => {
    const t = { sapling: start.sapling.clone(), orchard: start.orchard.clone(), ironwood: start.ironwood.clone() };
    for (const b of chain.blocks)
      for (const tx of b.txs) {
        for (const o of tx.parsed.sapling.outputs) t.sapling.append(o.cmu);
        for (const a of tx.parsed.orchard?.actions ?? []) t.orchard.append(a.cmx);
        for (const a of tx.parsed.ironwood?.actions ?? []) t.ironwood.append(a.cmx);
      }
    return t;
  });
  console.log(`  tree appends: ${((100 * replay.wall) / built.wall).toFixed(1)} % of block production`);

  const sim = await startDevnetLightwalletd({ chain });
  const client = createLightwalletd({ url: sim.url, network: "testnet", timeoutMs: 60_000 });
  const scan = createZcashHistorical({ source: client, network: "testnet", maxBlocks: BLOCKS + 10, deadlineMs: 600_000 });
  const input = { viewKey: wallet!.ufvk, birthdayHeight: first.height, toHeight: tip.height };
  try {
    // Warm-up (key derivation, S-table, Pedersen bases), not counted.
    await scan({ ...input, birthdayHeight: tip.height - 5 });
    await scan({ ...input, birthdayHeight: tip.height - 5, includeNotes: true });

    // 2. Baseline.
    const base = await timed(`BASELINE historical scan, ${BLOCKS} blocks, no includeNotes`, () => scan(input));
    // 3. With paths.
    const full = await timed(`PATHS historical scan, ${BLOCKS} blocks, includeNotes`, () => scan({ ...input, includeNotes: true }));
    const unspent = full.value.outputs!.filter((o) => !o.spent && o.pool !== "transparent");
    console.log(`  unspent shielded notes with a path: ${unspent.filter((o) => o.merkle_path).length} (${unspent.map((o) => o.pool).join(", ")})`);
    const notes: StoredNote[] = full.value.outputs!.map((o) => ({
      pool: o.pool,
      txid: o.txid,
      index: o.output_index,
      value: o.amount_atomic,
      height: o.height,
      scope: o.scope,
      di: o.diversifier_index ?? null,
      nf: null,
      spent: o.spent ? { height: o.spent_height!, txid: o.spent_txid! } : null,
    }));
    const paths = await timed("  the path step alone (re-read blocks, append, witness, check)", () =>
      unspentNotePaths(notes, { source: client, toHeight: tip.height, toHash: tip.hash, checkDeadline: () => undefined }),
    );
    console.log(`  paths: ${paths.value.size}; includeNotes adds ${(full.wall - base.wall).toFixed(0)} ms over the baseline (${(((full.wall - base.wall) / base.wall) * 100).toFixed(0)} %), the path step ${paths.wall.toFixed(0)} ms`);
    const check = CommitmentTree.parse("orchard", (await client.treeState(tip.height)).orchardTree);
    console.log(`  tree state at the tip: orchard size ${check.size()}`);
  } finally {
    client.close();
    await sim.close();
  }
  console.log(`load average after: ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
