/**
 * End to end through the Private Watch module: a watch on a devnet wallet,
 * a devnet transfer built with real sender cryptography, the poll tick with
 * the real Monero scanner, and signed webhooks to a loopback receiver —
 * including the reorg that takes a confirmed payment away again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MoneroDaemonClient } from "../../../../src/chains/monero/daemon-client.js";
import { createMoneroScanner } from "../../../../src/chains/monero/scanner.js";
import { verifySignature } from "../../../../src/webhooks/sign.js";
import type { WatchDeps } from "../../../../src/watch/deps.js";
import { CREATE_CREDIT } from "../../../../src/watch/meter.js";
import { createWatch } from "../../../../src/watch/service.js";
import { startWatchHarness, type ReceivedHook, type WatchHarness } from "../../../helpers/watch-harness.js";
import { TEST_LOOKAHEAD, startTestMonerod } from "./helpers.js";

type Monerod = Awaited<ReturnType<typeof startTestMonerod>>;

describe("Monero watch end to end on the devnet", () => {
  let d: Monerod;
  let client: MoneroDaemonClient;
  let h: WatchHarness;
  let db: WatchHarness["db"];
  let deps: WatchDeps;
  let receiverUrl: string;

  beforeAll(async () => {
    d = await startTestMonerod({ initialBlocks: 3 });
    client = new MoneroDaemonClient({ url: d.url });
    h = await startWatchHarness((clock) => ({ monero: createMoneroScanner({ daemon: client, confirmations: 2, lookahead: TEST_LOOKAHEAD, clock }) }));
    ({ db, deps, receiverUrl } = h);
  });
  afterAll(async () => {
    await h.close();
    await client.close();
    await d.close();
  });

  const poll = () => h.poll();

  it("create → send → pending → confirmed → reorg: signed balance_change webhooks with the right deltas", async () => {
    const bob = d.wallets[1]!;
    const watch = await createWatch({
      ctx: { deps: deps, db: db.db },
      input: { chain: "monero", address: bob.address, viewKey: bob.viewKey, webhookUrl: receiverUrl },
      opening: { creditAtomic: CREATE_CREDIT, funding: "test" },
    });
    expect(watch.startHeight).toBe(d.height());

    const first = await poll();
    expect(first.map((r) => r.body.event)).toEqual(["scan_complete"]);

    const amount = 500_000_000_000n; // 0.5 XMR
    d.send(bob.address, amount);
    const seen = await poll();
    expect(seen.map((r) => r.body.event)).toEqual(["balance_change"]);
    expect(seen[0]!.body.delta).toMatchObject({ balance_atomic: "0", before_atomic: "0", after_atomic: "0", pending_atomic: amount.toString() });
    expect(seen[0]!.body.current).toMatchObject({ balanceAtomic: "0", pendingAtomic: amount.toString() });

    d.mine(2);
    const confirmed = await poll();
    expect(confirmed.map((r) => r.body.event)).toEqual(["balance_change"]);
    const c = confirmed[0]!;
    expect(c.body.delta).toMatchObject({ balance_atomic: amount.toString(), before_atomic: "0", after_atomic: amount.toString() });
    expect(c.body.current).toMatchObject({ balanceAtomic: amount.toString(), pendingAtomic: "0", scannedHeight: d.height() });
    expect((c.body.current.outputs as { subaddress: unknown }[])[0]!.subaddress).toEqual({ major: 0, minor: 0 });
    // Signed with the watch's secret over the exact raw body.
    expect(c.headers["x-service-event"]).toBe("balance_change");
    expect(c.headers["x-service-watch-id"]).toBe(watch.watchId);
    expect(verifySignature(watch.webhookSecret, c.raw, c.headers["x-service-signature"] as string)).toBe(true);
    expect(verifySignature(watch.webhookSecret, c.raw.replace(amount.toString(), "1"), c.headers["x-service-signature"] as string)).toBe(false);

    expect(await poll()).toEqual([]); // nothing changed, nothing sent

    d.reorg(2);
    const reorged = await poll();
    expect(reorged.map((r) => r.body.event)).toEqual(["balance_change"]);
    expect(reorged[0]!.body.delta).toMatchObject({
      balance_atomic: (-amount).toString(),
      before_atomic: amount.toString(),
      after_atomic: "0",
    });
    expect(verifySignature(watch.webhookSecret, reorged[0]!.raw, reorged[0]!.headers["x-service-signature"] as string)).toBe(true);
  });

  it("a primary-address watch reports a subaddress payment with its index", async () => {
    const carol = d.wallets[2]!;
    const watch = await createWatch({
      ctx: { deps: deps, db: db.db },
      input: { chain: "monero", address: carol.address, viewKey: carol.viewKey, webhookUrl: receiverUrl },
      opening: { creditAtomic: CREATE_CREDIT, funding: "test" },
    });
    const mine = (rs: ReceivedHook[]) => rs.filter((r) => r.body.watchId === watch.watchId);
    await poll();
    const sub = carol.subaddresses.find((s) => s.major === 1 && s.minor === 1)!;
    d.send(sub.address, 42n);
    d.mine(2);
    const got = mine(await poll());
    expect(got.map((r) => r.body.event)).toEqual(["balance_change"]);
    expect(got[0]!.body.delta.balance_atomic).toBe("42");
    expect((got[0]!.body.current.outputs as { subaddress: unknown }[]).at(-1)!.subaddress).toEqual({ major: 1, minor: 1 });
  });
});
