/**
 * The embedded database's start: a new data directory is initialised by a
 * child process (initdb's WebAssembly memory is then not held by the
 * service), and every start writes PGLITE_CONF (shared_buffers) to its
 * postgresql.conf. bench:startup prints what it saves in RSS.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openDatabase, PGLITE_CONF } from "../../src/db/connection.js";
import { tempDir } from "../helpers/app.js";

describe("opening PGlite under DATA_DIR", () => {
  it("initialises a new data directory, runs with PGLITE_CONF, and keeps its data across a reopen", async () => {
    const dataDir = tempDir();
    try {
      expect(fs.existsSync(path.join(dataDir, "pglite", "PG_VERSION"))).toBe(false);
      const first = await openDatabase({ dataDir });
      expect(fs.existsSync(path.join(dataDir, "pglite", "PG_VERSION"))).toBe(true);
      const shown = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(first.db);
      expect(`shared_buffers = ${shown.rows[0]!.shared_buffers}`).toBe(PGLITE_CONF[0]);
      await sql`create table kept (v text)`.execute(first.db);
      await sql`insert into kept values ('still here')`.execute(first.db);
      await first.close();

      const again = await openDatabase({ dataDir });
      const rows = await sql<{ v: string }>`select v from kept`.execute(again.db);
      expect(rows.rows).toEqual([{ v: "still here" }]);
      expect((await sql<{ shared_buffers: string }>`show shared_buffers`.execute(again.db)).rows[0]!.shared_buffers).toBe("16MB");
      await again.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
