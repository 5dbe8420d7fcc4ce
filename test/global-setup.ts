/**
 * Builds one migrated PGlite database and dumps it, so each test file starts
 * from that snapshot instead of running initdb and the migrations again.
 * (With DATABASE_URL set, each file gets its own PostgreSQL schema instead.)
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { migrateToLatest } from "../src/db/migrate.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteSnapshot: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  // Tests run the CLI compiled, as `npx vigil` does: build dist/ once now if the sources are newer.
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, "..", "bin", "build.mjs")], { stdio: "inherit" });
  if (process.env.DATABASE_URL) {
    project.provide("pgliteSnapshot", "");
    return () => {};
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const pglite = await PGlite.create("memory://");
  const { createPgConfig } = await import("@electric-sql/pglite/node-postgres");
  const pg = (await import("pg")).default;
  const { Kysely, PostgresDialect } = await import("kysely");
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool(createPgConfig(pglite) as never) }) });
  await migrateToLatest(db);
  await db.destroy();
  const dump = await pglite.dumpDataDir("none");
  await pglite.close();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vigil-pglite-")), "migrated.tar");
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteSnapshot", file);
  return () => fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
