/** The embedded database's disk guard: which statements it stops, and when (src/db/disk-guard.ts). */
import os from "node:os";
import { describe, expect, it } from "vitest";
import { createDiskGuard, statementWrites } from "../../src/db/disk-guard.js";
import { databaseOutageAnswer, isDatabaseFull, isDatabaseOutage } from "../../src/db/unavailable.js";

describe("statementWrites", () => {
  it("lets reads and transaction control through, and stops everything that may write", () => {
    for (const q of ["select 1", "  SELECT * from notices for update", "/* c */ select 1", "-- c\nselect 1", "(select 1) union (select 2)", "begin", "commit", "rollback", "savepoint sp1", "release sp1", "set local statement_timeout = 1", "show server_version", "with t as (select 1) select * from t"])
      expect(statementWrites(q), q).toBe(false);
    for (const q of ["insert into t values (1)", "UPDATE t set a = 1", "delete from t", "create table x (a int)", "alter table t add b int", "drop table t", "truncate t", "vacuum", "with d as (delete from t returning *) select * from d", "lock table t", "do $$ begin end $$", ""])
      expect(statementWrites(q), q).toBe(true);
  });
});

describe("createDiskGuard", () => {
  it("refuses writes with SQLSTATE 53100 while free space is under the reserve, reads free space at most once per recheck, and reports each change once", () => {
    let t = 0;
    const changes: boolean[] = [];
    let reserveBytes = 1; // this machine's temp dir has more than a byte free
    const guard = createDiskGuard({ dir: os.tmpdir(), reserveBytes, recheckMs: 1000, now: () => t, onChange: (s) => changes.push(s.writable) });
    expect(() => guard.check("insert into t values (1)")).not.toThrow();
    expect(guard.space().writable).toBe(true);

    // A reserve larger than any disk: the next read (after the recheck interval) refuses writes.
    reserveBytes = Number.MAX_SAFE_INTEGER;
    const big = createDiskGuard({ dir: os.tmpdir(), reserveBytes, recheckMs: 1000, now: () => t, onChange: (s) => changes.push(s.writable) });
    let err: unknown;
    try {
      big.check("update t set a = 1");
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "53100", message: expect.stringContaining("PGLITE_MIN_FREE_MB") });
    expect(() => big.check("select 1")).not.toThrow();
    expect(() => big.check("insert into t values (2)")).toThrow();
    t += 5000;
    expect(() => big.check("insert into t values (3)")).toThrow();
    expect(changes).toEqual([false]);
    expect(isDatabaseFull(err)).toBe(true);
    expect(isDatabaseOutage(err)).toBe(true);
    expect(databaseOutageAnswer(err)).toMatchObject({ status: 503, code: "database_full" });
  });

  it("a reserve of 0 is no guard", () => {
    const guard = createDiskGuard({ dir: "/nonexistent", reserveBytes: 0 });
    expect(() => guard.check("insert into t values (1)")).not.toThrow();
  });
});

describe("isDatabaseFull", () => {
  it("knows a full disk from PostgreSQL, PGlite and the file system, and nothing else", () => {
    expect(isDatabaseFull({ code: "53100", message: 'could not extend file "base/5/16392": No space left on device' })).toBe(true);
    expect(isDatabaseFull(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }))).toBe(true);
    expect(isDatabaseFull({ code: "23505", message: "duplicate key" })).toBe(false);
    expect(isDatabaseFull(new Error("fetch failed"))).toBe(false);
    expect(databaseOutageAnswer(new Error("boom"))).toBeUndefined();
  });
});
