/**
 * Plain SQL migrations (src/db/migrations/NNNN_name.sql), the same SQL on
 * PostgreSQL and PGlite, applied in name order by Kysely's migrator, which
 * holds an advisory lock so several processes starting at once are safe.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from "kysely";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

class SqlFileProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const file of fs.readdirSync(migrationsDir).filter((f) => f.endsWith(".sql")).sort()) {
      const text = fs.readFileSync(path.join(migrationsDir, file), "utf8");
      out[file.replace(/\.sql$/, "")] = {
        up: async (db) => {
          await sql.raw(text).execute(db);
        },
      };
    }
    return out;
  }
}

async function migratorFor(db: Kysely<any>): Promise<Migrator> {
  // Kysely looks for its bookkeeping tables by name across all schemas unless told which one:
  // name the schema in use, so deployments (or test runs) in other schemas of the database never mislead it.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return new Migrator({ db, provider: new SqlFileProvider(), migrationTableSchema: rows[0]?.schema ?? "public" });
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = await migratorFor(db);
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error");
    throw new Error(`migration ${failed?.migrationName ?? "?"} failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** Which migrations of this version the database has and which it lacks, read only (`vigil doctor`). */
export async function migrationStatus(db: Kysely<any>): Promise<{ applied: string[]; pending: string[] }> {
  const all = await (await migratorFor(db)).getMigrations();
  return {
    applied: all.filter((m) => m.executedAt !== undefined).map((m) => m.name),
    pending: all.filter((m) => m.executedAt === undefined).map((m) => m.name),
  };
}
