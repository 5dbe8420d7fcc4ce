/**
 * The embedded database on a disk that fills up, under a real `vigil serve`.
 *
 * Measured before the guard existed (PGlite on a small tmpfs): an INSERT that
 * cannot extend its file fails cleanly with SQLSTATE 53100, but a CHECKPOINT
 * that cannot write leaves the engine answering a SELECT with no rows and then
 * hanging. So src/db/disk-guard.ts refuses writes while the disk holding
 * DATA_DIR/pglite has less than PGLITE_MIN_FREE_MB free. Here that directory is
 * a tmpfs of its own: filled to under the reserve, then to the last byte, the
 * service answers writes with 503 database_full (nothing stored), reads go on,
 * /v1/health says the database takes no writes, and the process stays up;
 * space freed, writes resume by themselves; restarted on the same data,
 * exactly the accepted notices are there.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAnswer } from "../helpers/http.js";
import { startCli, type ChildService } from "../helpers/process.js";

const TMPFS_MIB = 128;
const RESERVE_MIB = 32;

/** A tmpfs needs root and a kernel that allows the mount; under CI both are required, not skipped. */
const CAN_MOUNT = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stdio: "pipe" });
    execFileSync("umount", [probe], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
})();
if (!CAN_MOUNT) {
  if (process.env.CI) throw new Error("the full-disk test needs root and tmpfs mounts, and CI has them: this must not skip");
  process.stderr.write("\n!!! SKIPPED: the embedded database's full-disk test (needs root to mount a small tmpfs)\n\n");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!CAN_MOUNT)("the embedded database on a full disk", () => {
  let base: string;
  let dataDir: string;
  let pgDir: string;
  let svc: ChildService | undefined;
  const filler = () => path.join(pgDir, "filler");
  const env = () => ({
    DATA_DIR: dataDir,
    DEVNET: "off",
    PORT: "0",
    LOG_LEVEL: "info",
    FACILITATOR_MODE: "http",
    FACILITATOR_URL: "http://127.0.0.1:9",
    WATCH_POLL_SECONDS: "1",
    PGLITE_MIN_FREE_MB: String(RESERVE_MIB),
  });
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${svc!.url}${p}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return readAnswer(res);
  };
  const post = (title: string) => call("POST", "/v1/board/bounties", { title, body: `the notice "${title}"` });
  const titles = async () => ((await call("GET", "/v1/board/bounties")).json.notices as { title: string }[]).map((n) => n.title).sort();
  const freeBytes = () => {
    const st = fs.statfsSync(pgDir);
    return st.bavail * st.bsize;
  };
  /** Grows the filler file by `bytes` (or until the disk is full), one write at a time. */
  const fill = (bytes: number) => {
    const fd = fs.openSync(filler(), "a");
    const chunk = Buffer.alloc(1 << 20);
    try {
      for (let left = bytes; left > 0; left -= chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, left));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
    } finally {
      fs.closeSync(fd);
    }
  };

  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), "vigil-disk-full-"));
    dataDir = path.join(base, "data");
    pgDir = path.join(dataDir, "pglite");
    fs.mkdirSync(pgDir, { recursive: true });
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${TMPFS_MIB}m`, "tmpfs", pgDir], { stdio: "pipe" });
    svc = await startCli(["serve"], env());
  }, 120_000);

  afterAll(async () => {
    await svc?.stop();
    try {
      execFileSync("umount", [pgDir], { stdio: "pipe" });
    } catch {
      /* not mounted: beforeAll failed before the mount */
    }
    fs.rmSync(base, { recursive: true, force: true });
  });

  it("refuses writes with 503 database_full, keeps reading, stays up, resumes when space is freed, and loses nothing", async () => {
    expect((await post("before")).status).toBe(201);
    let health = await call("GET", "/v1/health");
    expect(health.json.database).toMatchObject({ kind: "pglite", available: true, writable: true, reserve_bytes: RESERVE_MIB * 1048576 });

    // Under the reserve, with room still left: the guard refuses before the engine is asked.
    fill(freeBytes() - (RESERVE_MIB - 8) * 1048576);
    expect(freeBytes()).toBeLessThan(RESERVE_MIB * 1048576);
    expect(freeBytes()).toBeGreaterThan(0);
    await sleep(1_200); // the guard reads free space at most once a second
    const refused = await post("refused while low");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.json).toEqual({ error: { code: "database_full", message: expect.stringContaining("nothing was written"), details: { retry_after_s: 60 } } });
    expect(JSON.stringify(refused.json)).not.toMatch(/\.js:\d+|53100|statfs/); // no stack, no engine internals
    expect(await titles()).toEqual(["before"]);
    health = await call("GET", "/v1/health");
    expect(health.json.status).toBe("degraded");
    expect(health.json.database).toMatchObject({ available: true, writable: false });

    // To the last byte: still the same clear refusal, still reads.
    fill(Number.MAX_SAFE_INTEGER);
    expect(freeBytes()).toBeLessThan(1 << 20);
    await sleep(1_200);
    const full = await post("refused while full");
    expect(full.status).toBe(503);
    expect(full.json.error.code).toBe("database_full");
    expect(await titles()).toEqual(["before"]);
    await sleep(2_500); // background jobs run (and back off) meanwhile
    expect(svc!.proc.exitCode).toBeNull();

    // Space freed: writes resume without a restart.
    fs.rmSync(filler());
    await sleep(1_200);
    const after = await post("after");
    expect(after.status, JSON.stringify(after.json)).toBe(201);
    health = await call("GET", "/v1/health");
    expect(health.json.database).toMatchObject({ available: true, writable: true });
    expect(await titles()).toEqual(["after", "before"]);

    const log = svc!.output();
    expect(log).toContain("database disk nearly full: writes are refused until space is freed");
    expect(log).toContain("database disk has room again; writes resume");
    expect(log).not.toMatch(/unhandled error/);

    // A clean stop, then the same data opened again: exactly the accepted notices, and it takes writes.
    await svc!.stop();
    expect(svc!.proc.exitCode).toBe(0);
    svc = await startCli(["serve"], env());
    expect(await titles()).toEqual(["after", "before"]);
    expect((await post("after restart")).status).toBe(201);
    expect(await titles()).toEqual(["after", "after restart", "before"]);
  }, 120_000);
});
