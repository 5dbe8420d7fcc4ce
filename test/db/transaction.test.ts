/**
 * withTransaction joins the caller's transaction when there is one (a paid
 * route's writes must commit or roll back with the settlement) and opens its
 * own otherwise. Checked on the real database: what is visible afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { withTransaction } from "../../src/db/transaction.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

describe("withTransaction", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase();
    await sql`CREATE TABLE tx_probe (label text NOT NULL)`.execute(t.db);
  });
  afterAll(async () => t?.close());

  const labels = async () => (await sql<{ label: string }>`SELECT label FROM tx_probe ORDER BY label`.execute(t.db)).rows.map((r) => r.label);
  const insert = (db: Parameters<Parameters<typeof withTransaction>[1]>[0], label: string) => sql`INSERT INTO tx_probe (label) VALUES (${label})`.execute(db);

  it("on a plain handle, opens a transaction: all writes commit, or none when the work throws", async () => {
    await withTransaction(t.db, async (trx) => {
      expect(trx.isTransaction).toBe(true);
      await insert(trx, "a1");
      await insert(trx, "a2");
    });
    await expect(
      withTransaction(t.db, async (trx) => {
        await insert(trx, "b1");
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await labels()).toEqual(["a1", "a2"]);
  });

  it("inside a transaction, joins it: the same handle, and the outer rollback undoes the inner writes", async () => {
    await expect(
      t.db.transaction().execute(async (outer) => {
        await withTransaction(outer, async (trx) => {
          expect(trx).toBe(outer);
          await insert(trx, "c1");
        });
        // The inner work has "finished", but nothing is committed until the outer transaction is.
        throw new Error("settlement failed");
      }),
    ).rejects.toThrow("settlement failed");
    expect(await labels()).toEqual(["a1", "a2"]);

    await t.db.transaction().execute((outer) => withTransaction(outer, (trx) => insert(trx, "d1")));
    expect(await labels()).toEqual(["a1", "a2", "d1"]);
  });
});
