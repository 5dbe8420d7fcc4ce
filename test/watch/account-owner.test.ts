/**
 * One writer of the watch account (DESIGN.md, "Ownership"; docs/architecture.md):
 * `src/watch/account.ts` is the only file under src/ that writes the credit
 * and meter columns of `watches` (CREDIT_COLUMNS), `watch_ledger` and
 * `webhook_outbox`. Checked on the source text, like the error registry's
 * scan: Kysely writes (insertInto / updateTable / deleteFrom of those tables;
 * an updateTable("watches") whose `.set(...)` names a credit column, spreads
 * `meterColumns(...)` or is not a plain object literal the scan can read) and
 * raw SQL (INSERT INTO / UPDATE / DELETE FROM those tables; UPDATE watches
 * whose SET clause names a credit column). A watch row inserted or deleted
 * creates or destroys its credit (and a delete cascades to the outbox), so
 * those count as writes of the account too. Migrations (.sql) are schema, not
 * writers, and are not scanned.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACCOUNT_TABLES, CREDIT_COLUMNS } from "../../src/watch/account.js";
import { openMeter } from "../../src/watch/meter.js";
import { meterColumns } from "../../src/watch/model.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");
const OWNER = path.join("src", "watch", "account.ts");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** The text of the balanced (...) group whose "(" is at `open`. */
function group(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;
const names = (cols: readonly string[]) => cols.join("|");
const touchesCredit = (s: string) => new RegExp(`\\b(${names(CREDIT_COLUMNS)})\\b|meterColumns\\(`).test(s);

/** Writes of the watch account in `text`, as "why @ line". */
export function accountWrites(text: string): string[] {
  const found: string[] = [];
  const money = names(ACCOUNT_TABLES.filter((t) => t !== "watches"));
  // Kysely: any write of the ledger or the outbox; an insert or delete of a watch row.
  for (const m of text.matchAll(new RegExp(`\\b(insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\\(\\s*["'\`](${money})["'\`]`, "g")))
    found.push(`${m[1]}("${m[2]}") @ ${lineOf(text, m.index)}`);
  for (const m of text.matchAll(/\b(insertInto|deleteFrom|mergeInto|replaceInto)\(\s*["'`]watches["'`]/g)) found.push(`${m[1]}("watches") @ ${lineOf(text, m.index)}`);
  // Kysely: updateTable("watches") whose set(...) touches a credit column, or cannot be read.
  for (const m of text.matchAll(/\bupdateTable\(\s*["'`]watches["'`]\s*\)/g)) {
    const rest = text.slice(m.index);
    const end = rest.search(/\.(execute|executeTakeFirst|executeTakeFirstOrThrow|compile)\(/);
    const chain = end < 0 ? rest : rest.slice(0, end);
    const at = chain.indexOf(".set(");
    const arg = at < 0 ? "" : group(chain, at + 4).trim();
    const literal = arg.startsWith("{") && !/\.\.\.\s*[A-Za-z_$][\w$]*\s*[,}]/.test(arg);
    if (!literal) found.push(`updateTable("watches").set(<not an object literal: ${arg.slice(0, 40)}>) @ ${lineOf(text, m.index)}`);
    else if (touchesCredit(arg)) found.push(`updateTable("watches").set(<credit column>) @ ${lineOf(text, m.index)}`);
  }
  // Raw SQL.
  for (const m of text.matchAll(new RegExp(`\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(${money})\\b`, "gi")))
    found.push(`SQL ${m[1]!.toUpperCase().replace(/\s+/, " ")} ${m[2]} @ ${lineOf(text, m.index)}`);
  for (const m of text.matchAll(/\b(INSERT\s+INTO|DELETE\s+FROM|MERGE\s+INTO)\s+watches\b/gi)) found.push(`SQL ${m[1]!.toUpperCase().replace(/\s+/, " ")} watches @ ${lineOf(text, m.index)}`);
  for (const m of text.matchAll(/\bUPDATE\s+watches\b([\s\S]*?)(?=\bWHERE\b|\bFROM\b|\bRETURNING\b|`|$)/gi)) {
    if (touchesCredit(m[1]!)) found.push(`SQL UPDATE watches SET <credit column> @ ${lineOf(text, m.index)}`);
  }
  return found;
}

describe("one writer of the watch account", () => {
  it("the credit columns are the meter's columns and the expiry computed from them", () => {
    const meter = Object.keys(meterColumns(openMeter(1n, 0).state));
    expect([...CREDIT_COLUMNS].sort()).toEqual([...meter, "expires_at"].sort());
    expect([...ACCOUNT_TABLES].sort()).toEqual(["watch_ledger", "watches", "webhook_outbox"]);
  });

  it("the scan finds every shape of write (it is not vacuous)", () => {
    const writes = [
      `trx.insertInto("watch_ledger").values(rows)`,
      `db.insertInto('webhook_outbox').values(x)`,
      `db.updateTable("webhook_outbox").set({ lease_until: t })`,
      `trx.deleteFrom("webhook_outbox").where("id", "=", id)`,
      `trx.insertInto("watches").values({ id })`,
      `trx.deleteFrom("watches").where("id", "=", id).execute()`,
      `trx.updateTable("watches").set({ credit_atomic: "0" }).where("id", "=", id).execute()`,
      `trx.updateTable("watches").set({ status: "x", ...meterColumns(m) }).execute()`,
      `trx.updateTable("watches").set(update).where("id", "=", id).execute()`,
      `trx.updateTable("watches").set({ ...cols, status: "x" }).execute()`,
      "sql`INSERT INTO watch_ledger (watch_id) VALUES (1)`",
      "sql`UPDATE webhook_outbox SET status = 'delivered'`",
      "sql`DELETE FROM webhook_outbox WHERE id = 1`",
      "sql`WITH d AS (DELETE FROM watches WHERE true) SELECT 1`",
      "sql`UPDATE watches AS w SET credit_atomic = v.credit FROM (VALUES (1)) v`",
      "sql`update watches set expires_at = now() where id = 1`",
    ];
    for (const w of writes) expect(accountWrites(w), w).toHaveLength(1);
    const fine = [
      `db.selectFrom("watch_ledger").selectAll()`,
      `db.selectFrom("webhook_outbox").where("status", "=", "pending")`,
      `db.updateTable("watches").set({ lease_owner: null, lease_until: null }).where("credit_atomic", ">", 0).execute()`,
      "sql`UPDATE watches SET lease_owner = ${o} WHERE id IN (SELECT id FROM watches WHERE credit_atomic > 0)`",
      "sql`SELECT l.kind FROM watch_ledger l JOIN watches w ON w.id = l.watch_id`",
    ];
    for (const f of fine) expect(accountWrites(f), f).toEqual([]);
    // And on the real owner: it does write all three tables.
    const own = accountWrites(fs.readFileSync(path.join(ROOT, OWNER), "utf8")).join("\n");
    for (const t of ACCOUNT_TABLES) expect(own).toContain(t);
  });

  it("no file under src/ but src/watch/account.ts writes the watch account", () => {
    const offenders = sourceFiles(SRC)
      .map((file) => path.relative(ROOT, file))
      .filter((rel) => rel !== OWNER)
      .flatMap((rel) => accountWrites(fs.readFileSync(path.join(ROOT, rel), "utf8")).map((w) => `${rel}: ${w}`));
    expect(offenders, "call the functions of src/watch/account.ts instead (docs/architecture.md)").toEqual([]);
  });
});
