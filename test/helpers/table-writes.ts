/**
 * The writes of named tables in a source text, for the one-writer tests
 * (DESIGN.md "Ownership"): Kysely writes (insertInto / updateTable /
 * deleteFrom / mergeInto / replaceInto of the table) and raw SQL (INSERT
 * INTO / UPDATE / DELETE FROM / MERGE INTO the table). Each as "why @ line".
 */
import fs from "node:fs";
import path from "node:path";

const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;

export function tableWrites(text: string, tables: readonly string[]): string[] {
  const names = tables.join("|");
  const found: string[] = [];
  for (const m of text.matchAll(new RegExp(`\\b(insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\\(\\s*["'\`](${names})["'\`]`, "g")))
    found.push(`${m[1]}("${m[2]}") @ ${lineOf(text, m.index)}`);
  for (const m of text.matchAll(new RegExp(`\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|MERGE\\s+INTO)\\s+(${names})\\b`, "gi")))
    found.push(`SQL ${m[1]!.toUpperCase().replace(/\s+/, " ")} ${m[2]} @ ${lineOf(text, m.index)}`);
  return found;
}

/** Every .ts file under `dir`. */
export function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}
