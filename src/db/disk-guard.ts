/**
 * The embedded database's guard against a full disk.
 *
 * PGlite runs PostgreSQL inside this process, with no postmaster to recover
 * it. Measured on a full tmpfs: an INSERT that cannot extend a file fails
 * cleanly (SQLSTATE 53100) and the engine carries on once space is freed; but
 * a CHECKPOINT that cannot write its files leaves the embedded engine
 * answering a plain SELECT with no rows, and the next query never returns.
 * So the disk must not fill under it: while the file system holding the data
 * directory has less than `reserveBytes` free, every statement that writes is
 * refused before it reaches the engine, with the same SQLSTATE 53100 a real
 * full disk gives (the surfaces answer 503 `database_full`, the jobs back
 * off). Reads, and the transaction statements around them, still run. The
 * reserve leaves room for what the engine itself must write: WAL segments
 * are 16 MiB, a checkpoint a few small files.
 *
 * Free space is read with statfs at most once per `recheckMs`; between reads
 * a statement costs a look at its first keyword and a cached answer.
 */
import fs from "node:fs";

export interface DiskSpace {
  /** Bytes free to this process on the file system holding the data directory. */
  freeBytes: number;
  /** The free space below which writes are refused. */
  reserveBytes: number;
  /** False while free space is under the reserve. */
  writable: boolean;
}

export interface DiskGuard {
  /** Throws the 53100 error when `sqlText` writes and the disk is under its reserve. */
  check(sqlText: string): void;
  /** The space as last read (read now when older than `recheckMs`). */
  space(): DiskSpace;
}

export interface DiskGuardOptions {
  dir: string;
  reserveBytes: number;
  recheckMs?: number;
  now?: () => number;
  /** Told once each time the disk goes under the reserve, and once when it is back above. */
  onChange?: (space: DiskSpace) => void;
}

/** Statements that only read, or open, close and mark transactions. Anything else may write. */
const READ_ONLY_VERBS = new Set(["select", "show", "begin", "start", "commit", "end", "rollback", "abort", "savepoint", "release", "set", "reset", "values", "explain"]);
const WRITE_WORDS = /\b(insert|update|delete|merge|create|alter|drop|truncate|copy|vacuum|reindex|cluster|refresh|grant|revoke|comment|lock)\b/i;

/** Whether a statement may write: its first keyword (after comments and parentheses), and any writing word inside a WITH. */
export function statementWrites(sqlText: string): boolean {
  const text = sqlText.replace(/^(\s|\(|--[^\n]*\n|\/\*[\s\S]*?\*\/)+/, "");
  const verb = /^[a-z]+/i.exec(text)?.[0]?.toLowerCase() ?? "";
  if (verb === "with") return WRITE_WORDS.test(text);
  return !READ_ONLY_VERBS.has(verb);
}

/** The error a refused write throws: the SQLSTATE of a real full disk, so one classifier serves both. */
export function diskFullError(space: DiskSpace): Error & { code: string } {
  const mib = (n: number) => `${Math.floor(n / 1048576)} MiB`;
  return Object.assign(
    new Error(`database disk nearly full: ${mib(space.freeBytes)} free, below the reserve of ${mib(space.reserveBytes)} (PGLITE_MIN_FREE_MB); the write was refused`),
    { code: "53100" },
  );
}

export function createDiskGuard(opts: DiskGuardOptions): DiskGuard {
  const recheckMs = opts.recheckMs ?? 1_000;
  const now = opts.now ?? Date.now;
  let readAt = -Infinity;
  let last: DiskSpace = { freeBytes: Number.MAX_SAFE_INTEGER, reserveBytes: opts.reserveBytes, writable: true };

  const space = (): DiskSpace => {
    if (now() - readAt < recheckMs) return last;
    readAt = now();
    let freeBytes: number;
    try {
      const st = fs.statfsSync(opts.dir);
      freeBytes = st.bavail * st.bsize;
    } catch {
      // A file system that cannot be asked is not refused for it: the engine's own errors still apply.
      return last;
    }
    const next = { freeBytes, reserveBytes: opts.reserveBytes, writable: freeBytes >= opts.reserveBytes };
    if (next.writable !== last.writable) opts.onChange?.(next);
    last = next;
    return last;
  };

  return {
    space,
    check(sqlText: string) {
      if (opts.reserveBytes <= 0 || !statementWrites(sqlText)) return;
      const s = space();
      if (!s.writable) throw diskFullError(s);
    },
  };
}
