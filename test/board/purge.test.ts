/** The purge job deletes only notices nobody can see and nobody paid for. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/core/clock.js";
import { boardCatalogue } from "../../src/board/boards.js";
import { boostNotice, NOTICE_TTL_MS, postNotice, removeNotice } from "../../src/board/service.js";
import { boardPurgeJob } from "../../src/board/purge.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

describe("board purge job", () => {
  let db: TestDatabase;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => db?.close());

  it("deletes expired and removed unboosted notices, keeps live, boosted and boosted-then-removed ones", async () => {
    const ctx = { deps: { clock, boards: boardCatalogue(["bounties"]) }, db: db.db };
    const post = (title: string) => postNotice({ ctx, input: { board: "bounties", title, body: "x" } });
    const expired = await post("Will expire");
    const boostedOld = await post("Boosted and old");
    const boostedRemoved = await post("Boosted then removed");
    await boostNotice({ ctx: { ...ctx, payment: { payer: "0xabc", nonce: "0x01" } }, input: { board: "bounties", id: boostedOld.id, amountAtomic: 100_000n } });
    await boostNotice({ ctx: { ...ctx, payment: { payer: "0xabc", nonce: "0x02" } }, input: { board: "bounties", id: boostedRemoved.id, amountAtomic: 100_000n } });
    await removeNotice({ ctx, input: { board: "bounties", id: boostedRemoved.id, ownerToken: boostedRemoved.ownerToken } });
    clock.advance(NOTICE_TTL_MS);
    const removed = await post("Removed by owner");
    await removeNotice({ ctx, input: { board: "bounties", id: removed.id, ownerToken: removed.ownerToken } });
    const fresh = await post("Still fresh");

    const job = boardPurgeJob({ db: db.db, clock });
    expect(await job.run(new AbortController().signal)).toEqual({ more: false });
    const left = (await db.db.selectFrom("notices").select("id").execute()).map((r) => r.id).sort();
    expect(left).toEqual([boostedOld.id, boostedRemoved.id, fresh.id].sort());
    expect(left).not.toContain(expired.id);
    expect(await db.db.selectFrom("notice_boosts").select("id").execute()).toHaveLength(2);
  });
});
