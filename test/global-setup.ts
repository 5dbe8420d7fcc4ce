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
    /** A PGlite data directory the service's own initdb made (copied into a DATA_DIR by test/helpers/app.ts seedStore). */
    pgliteTemplate: string;
  }
}

/**
 * The PGlite data directory a new DATA_DIR starts with, made by the service's
 * own initdb (src/db/connection.ts) once per PGlite version and settings and
 * kept under the OS's temp directory between runs: initdb costs about 8 s of
 * CPU, and the tests that start `vigil` on a DATA_DIR of their own would pay
 * it two dozen times a run.
 */
async function pgliteTemplate(): Promise<string> {
  const { createRequire } = await import("node:module");
  const { createHash } = await import("node:crypto");
  const { initPgliteDataDir, PGLITE_CONF } = await import("../src/db/connection.js");
  // The package exports no package.json: found above its entry point.
  let pkg = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!fs.existsSync(path.join(pkg, "package.json"))) pkg = path.dirname(pkg);
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string };
  const key = createHash("sha256").update(JSON.stringify([version, PGLITE_CONF])).digest("hex").slice(0, 16);
  const dir = path.join(os.tmpdir(), `vigil-pglite-template-${key}`);
  if (fs.existsSync(path.join(dir, "PG_VERSION"))) return dir;
  // Made beside its final place and renamed into it: a run that stops half-way leaves no half-made template.
  const making = fs.mkdtempSync(path.join(os.tmpdir(), `vigil-pglite-template-${key}-making-`));
  await initPgliteDataDir(making);
  try {
    fs.renameSync(making, dir);
  } catch {
    // Another run made it first.
    fs.rmSync(making, { recursive: true, force: true });
  }
  return dir;
}

export default async function setup(project: TestProject): Promise<() => void> {
  // Tests run the CLI compiled, as `npx vigil` does: build dist/ once now if the sources are newer.
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, "..", "bin", "build.mjs")], { stdio: "inherit" });
  project.provide("pgliteTemplate", await pgliteTemplate());
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
