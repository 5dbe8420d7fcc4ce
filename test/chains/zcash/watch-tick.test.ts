/**
 * A Zcash watch through the real Private Watch module: createWatch, the poll
 * tick with the real Zcash scanner over an in-test compact-block source,
 * signed webhooks to a loopback receiver (pending → confirmed with the memo,
 * a spend, a reorg with a negative delta), against PGlite or PostgreSQL.
 * Also the historical scan.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeAccountKeys } from "../../../src/chains/zcash/derive.js";
import { createZcashHistorical } from "../../../src/chains/zcash/historical.js";
import { encodeTextMemo } from "../../../src/chains/zcash/note-decrypt.js";
import { orchardAddressAt, orchardIvkParts } from "../../../src/chains/zcash/orchard-keys.js";
import { saplingDefaultAddress } from "../../../src/chains/zcash/sapling-keys.js";
import { createZcashScanner } from "../../../src/chains/zcash/scanner.js";
import { scanTransaction } from "../../../src/chains/zcash/scan-tx.js";
import { parseTransaction } from "../../../src/chains/zcash/tx-parse.js";
import { deriveAccountViewingKeys } from "../../../src/chains/zcash/zip32.js";
import { decodeUfvk } from "../../../src/chains/zcash/zip316.js";
import { verifySignature } from "../../../src/webhooks/sign.js";
import type { WatchDeps } from "../../../src/watch/deps.js";
import { historicalRoute, runHistoricalScan, zcashHistoricalScan } from "../../../src/watch/historical-route.js";
import { CREATE_CREDIT } from "../../../src/watch/meter.js";
import { createWatch } from "../../../src/watch/service.js";
import { startWatchHarness, type WatchHarness } from "../../helpers/watch-harness.js";
import { makeTx, TestCompactChain } from "./compact-chain.js";
import { encryptAction, encryptSapling } from "./sender.js";

const acct = deriveAccountViewingKeys(Uint8Array.from({ length: 32 }, (_, i) => 200 - i), "regtest", 0);
const keys = describeAccountKeys(acct);
const orchard = orchardAddressAt(orchardIvkParts(acct.orchard, "external")!, BigInt(keys.diversifierIndex));
const sapling = saplingDefaultAddress(acct.sapling).raw;

describe("Zcash watch through the watch module", () => {
  let chain: TestCompactChain;
  let h: WatchHarness;
  let db: WatchHarness["db"];
  let deps: WatchDeps;
  let receiverUrl: string;

  beforeAll(async () => {
    chain = new TestCompactChain(50_000);
    h = await startWatchHarness(() => ({ zcash: createZcashScanner({ source: chain, network: "regtest", confirmations: 2 }) }));
    ({ db, deps, receiverUrl } = h);
  });
  afterAll(async () => {
    await h.close();
  });

  const poll = () => h.poll();

  it("create → pending → confirmed with memo → spend → reorg: signed balance_change webhooks with the right deltas", async () => {
    const watch = await createWatch({
      ctx: { deps, db: db.db },
      input: { chain: "zcash", address: keys.defaultAddress, viewKey: keys.ufvk, webhookUrl: receiverUrl },
      opening: { creditAtomic: CREATE_CREDIT, funding: "test" },
    });
    expect(watch.startHeight).toBe(chain.tip); // test networks start at the tip
    expect((await poll()).map((r) => r.body.event)).toEqual(["scan_complete"]);

    const pay = makeTx({ ironwood: [encryptAction(orchard, 150_000n, encodeTextMemo("order 42"), 0x03)] });
    chain.broadcast(pay);
    const pending = await poll();
    expect(pending.map((r) => r.body.event)).toEqual(["balance_change"]);
    expect(pending[0]!.body.current).toMatchObject({ balanceAtomic: "0", pendingAtomic: "150000" });
    expect(pending[0]!.body.current.outputs).toEqual([expect.objectContaining({ pool: "ironwood", memo: { text: "order 42" }, height: null, status: "pending" })]);

    chain.mine();
    chain.mineEmpty(1);
    const confirmed = await poll();
    expect(confirmed.map((r) => r.body.event)).toEqual(["balance_change"]);
    const c = confirmed[0]!;
    expect(c.body.delta).toMatchObject({ balance_atomic: "150000", before_atomic: "0", after_atomic: "150000" });
    expect(c.body.current).toMatchObject({ balanceAtomic: "150000", pendingAtomic: "0", scannedHeight: chain.tip });
    expect(c.headers["x-service-watch-id"]).toBe(watch.watchId);
    expect(verifySignature(watch.webhookSecret, c.raw, c.headers["x-service-signature"] as string)).toBe(true);
    expect(await poll()).toEqual([]); // nothing changed, nothing sent

    // A Sapling payment, then a reorg that takes it away again.
    chain.mine([makeTx({ sapling: [encryptSapling(sapling, 7_000n, encodeTextMemo(""))] })]);
    chain.mineEmpty(1);
    expect((await poll()).map((r) => r.body.delta.balance_atomic)).toEqual(["7000"]);
    chain.reorg(2);
    chain.mineEmpty(3);
    const reorged = await poll();
    expect(reorged.map((r) => r.body.event)).toEqual(["balance_change"]);
    expect(reorged[0]!.body.delta).toMatchObject({ balance_atomic: "-7000", before_atomic: "157000", after_atomic: "150000" });

    // The Ironwood note is spent: its nullifier shows up in the Ironwood pool.
    const nf = scanTransaction(parseTransaction(pay.raw), decodeUfvk(keys.ufvk))[0]!.nullifier!;
    chain.mine([makeTx({ spends: { ironwood: [nf] } })]);
    const spent = await poll();
    expect(spent.map((r) => r.body.delta.balance_atomic)).toEqual(["-150000"]);
    expect(spent[0]!.body.current).toMatchObject({ balanceAtomic: "0", spentAtomic: "150000", receivedAtomic: "150000" });
  });

  it("historical scan: received, spent, spendable and every note with pool, memo and spent flag", async () => {
    const scan = createZcashHistorical({ source: chain, network: "regtest", confirmations: 2, maxBlocks: 100 });
    const from = chain.base;
    const out = await runHistoricalScan({ zcash: zcashHistoricalScan(scan) }, { chain: "zcash", viewKey: keys.ufvk, birthdayHeight: from, includeNotes: true });
    expect(out).toMatchObject({
      chain: "zcash",
      network: "regtest",
      received_atomic: "150000",
      spent_atomic: "150000",
      spendable_atomic: "0",
      spent_visibility: "visible_with_full_viewing_key",
      output_count: 1,
    });
    expect(out.outputs).toEqual([expect.objectContaining({ pool: "ironwood", amount_atomic: "150000", memo: { text: "order 42" }, spent: true })]);
    // Without the spend in range, the note is spendable.
    const before = await scan({ viewKey: keys.ufvk, birthdayHeight: from, toHeight: chain.tip - 1 });
    expect(before).toMatchObject({ received_atomic: "150000", spent_atomic: "0", spendable_atomic: "150000" });
    expect(before.outputs).toBeUndefined();
    // Range and key checks.
    await expect(scan({ viewKey: keys.ufvk, birthdayHeight: 1 })).rejects.toMatchObject({ status: 400, code: "range_too_large" });
    await expect(scan({ viewKey: keys.ufvk, birthdayHeight: from, toHeight: chain.tip + 5 })).rejects.toMatchObject({ status: 400, code: "invalid_height" });
    await expect(scan({ viewKey: "uview1junk" })).rejects.toMatchObject({ status: 400 });
    await expect(scan({ viewKey: keys.defaultAddress })).rejects.toMatchObject({ status: 400, code: "address_not_ufvk" });
    expect(historicalRoute({}).path).toBe("/v1/private/historical");
  });
});
