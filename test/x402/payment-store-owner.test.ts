/**
 * One writer of `payments` (DESIGN.md, "Ownership"; docs/architecture.md):
 * `src/x402/payment-store.ts` is the only file under src/ that writes the
 * x402 payment rows; the paywall and the reconciler call its named
 * operations. Checked on the source text, like the watch account's scan
 * (test/watch/account-owner.test.ts): Kysely writes (insertInto /
 * updateTable / deleteFrom / mergeInto / replaceInto of `payments`) and raw
 * SQL (INSERT INTO / UPDATE / DELETE FROM / MERGE INTO payments). Migrations
 * (.sql) are schema, not writers, and are not scanned.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles, tableWrites } from "../helpers/table-writes.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");
const OWNER = path.join("src", "x402", "payment-store.ts");

/** Writes of `payments` in `text`, as "why @ line". */
export const paymentWrites = (text: string): string[] => tableWrites(text, ["payments"]);

describe("one writer of payments", () => {
  it("the scan finds every shape of write (it is not vacuous)", () => {
    const writes = [
      `db.insertInto("payments").values(row)`,
      `trx.updateTable('payments').set({ status: "settled" })`,
      "db.deleteFrom(`payments`).where(\"id\", \"=\", id)",
      `db.mergeInto("payments").using("x", "a", "b")`,
      `db.replaceInto("payments").values(row)`,
      "sql`INSERT INTO payments (id) VALUES (${id})`",
      "sql`update payments set status = 'failed' where id = ${id}`",
      "sql`WITH d AS (DELETE FROM payments WHERE true) SELECT 1`",
      "sql`MERGE INTO payments p USING x ON true WHEN MATCHED THEN DELETE`",
    ];
    for (const w of writes) expect(paymentWrites(w), w).toHaveLength(1);
    const fine = [
      `db.selectFrom("payments").selectAll()`,
      "sql`select id from payments where id = ${id} for update`",
      `db.updateTable("payments_archive").set({ x: 1 })`,
      `db.insertInto("watches").values(row)`,
      "sql`SELECT count(*) FROM payments p JOIN watches w ON true`",
    ];
    for (const f of fine) expect(paymentWrites(f), f).toEqual([]);
    // And on the real owner: it inserts, updates and deletes.
    const own = paymentWrites(fs.readFileSync(path.join(ROOT, OWNER), "utf8")).join("\n");
    for (const w of ["insertInto", "updateTable", "deleteFrom"]) expect(own).toContain(w);
  });

  it("no file under src/ but src/x402/payment-store.ts writes payments", () => {
    const offenders = sourceFiles(SRC)
      .map((file) => path.relative(ROOT, file))
      .filter((rel) => rel !== OWNER)
      .flatMap((rel) => paymentWrites(fs.readFileSync(path.join(ROOT, rel), "utf8")).map((w) => `${rel}: ${w}`));
    expect(offenders, "call the operations of src/x402/payment-store.ts instead (docs/architecture.md)").toEqual([]);
  });
});
