/**
 * The official ChannelStorage over the database (src/x402/channel-store.ts),
 * on PGlite and on PostgreSQL:
 * - get/list/updateChannel keep the official record's every field, and the
 *   answer beside it;
 * - updateChannel is atomic across processes: two storages with caches of
 *   their own (as two `vigil api` processes have) and a third without any,
 *   each adding to a channel's charged amount many times at once, lose no
 *   increment and never let two reservations hold at once;
 * - a stale cached copy never decides a refusal, and costs one retry;
 * - inside a transaction the write commits or rolls back with it;
 * - deleting closes the row for its history, a later write reopens it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Channel } from "@x402/evm/batch-settlement/server";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { channelStorage, channelTotals, newChannelCache, type StoredChannel } from "../../src/x402/channel-store.js";

const NETWORK = "eip155:84532";
const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

function channel(n: number, over: Partial<StoredChannel> = {}): StoredChannel {
  return {
    channelId: id(n),
    channelConfig: {
      payer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      payerAuthorizer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      receiver: "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199",
      receiverAuthorizer: "0xbDA5747bFD65F08deb54cb465eB87D40e51B197E",
      token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      withdrawDelay: 86_400,
      salt: `0x${"00".repeat(32)}`,
    },
    chargedCumulativeAmount: "0",
    signedMaxClaimable: "0",
    signature: "",
    balance: "100000",
    totalClaimed: "0",
    withdrawRequestedAt: 0,
    refundNonce: 0,
    lastRequestTimestamp: 0,
    answer: null,
    ...over,
  };
}

describe("the channels' storage (the official ChannelStorage over the database)", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("keeps every field of the official record, and the answer beside it", async () => {
    const s = channelStorage(t.db, { network: NETWORK });
    const full: StoredChannel = channel(1, {
      chargedCumulativeAmount: "3000",
      signedMaxClaimable: "3000",
      signature: `0x${"ab".repeat(65)}`,
      balance: "100000",
      totalClaimed: "1000",
      withdrawRequestedAt: 1_765_000_000,
      refundNonce: 2,
      onchainSyncedAt: 1_765_000_001_000,
      lastRequestTimestamp: 1_765_000_002_000,
      pendingRequest: { pendingId: "p1", signedMaxClaimable: "4000", expiresAt: 1_765_000_003_000 },
      answer: { requestHash: "h", status: 200, sealed: Buffer.from([1, 2, 3]) },
    });
    expect((await s.updateChannel(id(1), () => full)).status).toBe("updated");
    expect(await s.get(id(1))).toEqual(full);
    // Another process (no cache) reads the same.
    expect(await channelStorage(t.db, { network: NETWORK }).get(id(1).toUpperCase().replace("0X", "0x"))).toEqual(full);
    expect((await s.list()).map((c) => c.channelId)).toContain(id(1));
    expect((await s.updateChannel(id(1), (c) => c)).status).toBe("unchanged");
    await expect(s.get("0x1234")).rejects.toThrow(/invalid channel id/);
  });

  it("updateChannel is atomic across processes: concurrent increments are all kept", async () => {
    await channelStorage(t.db, { network: NETWORK }).updateChannel(id(2), () => channel(2));
    const processes = [channelStorage(t.db, { network: NETWORK, cache: newChannelCache() }), channelStorage(t.db, { network: NETWORK, cache: newChannelCache() }), channelStorage(t.db, { network: NETWORK })];
    const add = (s: (typeof processes)[number]) => s.updateChannel(id(2), (c) => c && { ...c, chargedCumulativeAmount: String(BigInt(c.chargedCumulativeAmount) + 1n) });
    await Promise.all(Array.from({ length: 60 }, (_, i) => add(processes[i % 3]!)));
    expect((await processes[2]!.get(id(2)))!.chargedCumulativeAmount).toBe("60");
    const row = await t.db.selectFrom("x402_channels").select(["calls", "version"]).where("channel_id", "=", id(2)).executeTakeFirstOrThrow();
    expect(Number(row.calls)).toBe(60);
    expect(Number(row.version)).toBe(61);
  });

  it("two processes reserving a channel at once: exactly one reservation holds", async () => {
    await channelStorage(t.db, { network: NETWORK }).updateChannel(id(3), () => channel(3));
    const a = channelStorage(t.db, { network: NETWORK, cache: newChannelCache() });
    const b = channelStorage(t.db, { network: NETWORK, cache: newChannelCache() });
    // Both caches hold the free channel first.
    await a.updateChannel(id(3), (c) => c && { ...c, lastRequestTimestamp: 1 });
    await b.updateChannel(id(3), (c) => c && { ...c, lastRequestTimestamp: 2 });
    const won: string[] = [];
    const reserve = (s: typeof a, who: string) =>
      s.updateChannel(id(3), (c) => {
        if (!c || c.pendingRequest) return c;
        return { ...c, pendingRequest: { pendingId: who, signedMaxClaimable: "1", expiresAt: Date.now() + 60_000 } };
      });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => reserve(i % 2 ? a : b, `r${i}`).then((r) => (r.status === "updated" ? won.push(r.channel!.pendingRequest!.pendingId) : 0))));
    expect(results).toHaveLength(20);
    expect(won).toHaveLength(1);
    expect((await channelStorage(t.db, { network: NETWORK }).get(id(3)))!.pendingRequest!.pendingId).toBe(won[0]);
  });

  it("a refusal decided on a stale cached copy is checked against a fresh read", async () => {
    const a = channelStorage(t.db, { network: NETWORK, cache: newChannelCache() });
    const b = channelStorage(t.db, { network: NETWORK });
    await a.updateChannel(id(4), () => channel(4, { pendingRequest: { pendingId: "old", signedMaxClaimable: "1", expiresAt: Date.now() + 60_000 } }));
    // Another process ends the reservation; a's copy still shows it.
    await b.updateChannel(id(4), (c) => c && { ...c, pendingRequest: undefined });
    const r = await a.updateChannel(id(4), (c) => (c && !c.pendingRequest ? { ...c, pendingRequest: { pendingId: "new", signedMaxClaimable: "2", expiresAt: Date.now() + 60_000 } } : c));
    expect(r.status).toBe("updated");
    expect(r.channel!.pendingRequest!.pendingId).toBe("new");
  });

  it("inside a transaction the write commits or rolls back with it", async () => {
    const s = channelStorage(t.db, { network: NETWORK, cache: newChannelCache() });
    await s.updateChannel(id(5), () => channel(5));
    await expect(
      t.db.transaction().execute(async (trx) => {
        await s.on(trx).updateChannel(id(5), (c) => c && { ...c, chargedCumulativeAmount: "500" });
        throw new Error("the work failed");
      }),
    ).rejects.toThrow(/the work failed/);
    expect((await channelStorage(t.db, { network: NETWORK }).get(id(5)))!.chargedCumulativeAmount).toBe("0");
    // The cache held the rolled-back version: the next write retries against the row and succeeds.
    await s.updateChannel(id(5), (c) => c && { ...c, chargedCumulativeAmount: "7" });
    expect((await channelStorage(t.db, { network: NETWORK }).get(id(5)))!.chargedCumulativeAmount).toBe("7");
  });

  it("a deleted record is closed and kept; a later write reopens it", async () => {
    const s = channelStorage(t.db, { network: NETWORK });
    await s.updateChannel(id(6), () => channel(6, { chargedCumulativeAmount: "9" }));
    expect((await s.updateChannel(id(6), () => undefined)).status).toBe("deleted");
    expect(await s.get(id(6))).toBeUndefined();
    expect((await s.list()).map((c) => c.channelId)).not.toContain(id(6));
    const row = await t.db.selectFrom("x402_channels").select(["closed_at", "charged_atomic"]).where("channel_id", "=", id(6)).executeTakeFirstOrThrow();
    expect(row.closed_at).not.toBeNull();
    expect(String(row.charged_atomic)).toBe("9");
    expect((await s.updateChannel(id(6), (c) => c ?? channel(6, { chargedCumulativeAmount: "10" }))).status).toBe("updated");
    expect((await s.get(id(6)))!.chargedCumulativeAmount).toBe("10");
  });

  it("refuses amounts the columns cannot hold instead of storing something else", async () => {
    const s = channelStorage(t.db, { network: NETWORK });
    await expect(s.updateChannel(id(7), () => channel(7, { balance: (1n << 64n).toString() }))).rejects.toThrow(/balance is out of range/);
    expect(await s.get(id(7))).toBeUndefined();
  });

  it("totals sum every channel of the network", async () => {
    const totals = await channelTotals(t.db, NETWORK);
    expect(totals.channels).toBeGreaterThanOrEqual(6);
    // Channels 1, 2, 5 and 6 were charged 3000, 60, 7 and 10.
    expect(totals.charged).toBe(3077n);
  });
});

// The record type is the official one (a compile-time check that the storage speaks it).
const _official: Channel = channel(0);
void _official;
