/**
 * Per-key fixed-window limits. One process (PGlite, or a store of its own)
 * counts in memory, without a promise (memoryLimiter). Processes that share one
 * PostgreSQL database share each key's window through the `rate_limits`
 * table, claiming points in chunks: a process takes up to k of a window's
 * points in one statement and spends them in memory, so a request costs a
 * statement only when the process has none left for its key (one upsert per
 * request was most of a free GET's CPU on PostgreSQL: bench/README.md, http).
 *
 * Nothing is ever allowed past the limit: a point is spent only after the
 * database granted it. The price of chunks is the other way round: points a
 * process claimed and did not spend before the window ends are lost to the
 * key's other processes, so a caller spread over several processes may be
 * refused a little before its limit. Chunks start at one point and double
 * while a key keeps coming back, up to a thirty-second of the limit (limits
 * under 64 points are claimed one point at a time, exactly as before). Once
 * the database grants nothing, the process refuses that key until the window
 * ends without asking again. A claim that fails (the database is away) falls
 * back to a limiter in memory, as before, and for the next second every
 * request of that limiter counts there without trying the database.
 */
import type pg from "pg";

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window frees a point (when refused). */
  retryAfterSeconds: number;
  remaining: number;
  limit: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitResult>;
  /**
   * The answer without waiting, when this process can give it from what it
   * holds (the limiter in memory always can; the PostgreSQL one from a point
   * claimed earlier, a window the database said is spent, or its count in
   * memory while the database is away); undefined when only `consume` can
   * answer. A point it grants is spent.
   */
  trySpend(key: string): RateLimitResult | undefined;
}

export type RateLimitStore = { kind: "memory" } | { kind: "postgres"; pool: pg.Pool; schema?: string };

export function createRateLimiter(store: RateLimitStore, name: string, points: number, windowSeconds: number): RateLimiter {
  if (store.kind === "memory") return memoryLimiter(points, windowSeconds);
  return claimingLimiter(store.pool, name, points, windowSeconds, memoryLimiter(points, windowSeconds));
}

/**
 * A fixed window per key, counted in this process: a key's window starts with its first request and
 * lasts `windowSeconds`, and allows `points` requests. It answers without a promise, so the middleware
 * and the standing answers (src/http/standing-answers.ts) never wait for it. rate-limiter-flexible's
 * RateLimiterMemory, used until 2026-11-29, counted the same way but answered only through a promise,
 * which kept every free GET of the embedded store on the framework's path (bench/README.md, http).
 * Windows that ended are dropped once a minute, so one-off callers do not grow the map.
 */
function memoryLimiter(points: number, windowSeconds: number): RateLimiter {
  const windowMs = windowSeconds * 1000;
  const windows = new Map<string, { expire: number; used: number }>();
  let lastPrune = Date.now();
  const spend = (key: string): RateLimitResult => {
    const now = Date.now();
    if (now - lastPrune >= 60_000) {
      lastPrune = now;
      for (const [k, w] of windows) if (w.expire <= now) windows.delete(k);
    }
    let w = windows.get(key);
    if (!w || w.expire <= now) {
      w = { expire: now + windowMs, used: 0 };
      windows.set(key, w);
    }
    if (w.used >= points) return refused(points, w.expire - now);
    w.used++;
    return { allowed: true, retryAfterSeconds: 0, remaining: points - w.used, limit: points };
  };
  return { consume: async (key) => spend(key), trySpend: spend };
}

const refused = (limit: number, msLeft: number): RateLimitResult => ({ allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)), remaining: 0, limit });

/**
 * Takes up to $2 points of key $1's window (limit $3, window $5 ms from now $4): a new or ended window starts
 * with the grant; a running one grants what is left, up to $2. `granted` is computed from the row as it was.
 */
const CLAIM_SQL = `INSERT INTO rate_limits AS r (key, points, expire, granted)
VALUES ($1, LEAST($2::int, $3::int), $4::bigint + $5::bigint, LEAST($2::int, $3::int))
ON CONFLICT (key) DO UPDATE SET
  granted = CASE WHEN r.expire IS NULL OR r.expire <= $4::bigint THEN LEAST($2::int, $3::int) ELSE GREATEST(0, LEAST($3::int, r.points + $2::int) - r.points) END,
  points = CASE WHEN r.expire IS NULL OR r.expire <= $4::bigint THEN LEAST($2::int, $3::int) ELSE GREATEST(r.points, LEAST($3::int, r.points + $2::int)) END,
  expire = CASE WHEN r.expire IS NULL OR r.expire <= $4::bigint THEN $4::bigint + $5::bigint ELSE r.expire END
RETURNING granted, expire`;

/** A key's window as this process knows it. */
interface KeyWindow {
  /** When the window ends (ms since the epoch): a local guess until the first claim answers. */
  expire: number;
  /** Points claimed and not yet spent. */
  available: number;
  /** The database granted nothing: refuse until `expire`. */
  exhausted: boolean;
  /** The size of the next claim (doubles up to the cap). */
  nextClaim: number;
  /** Requests waiting for the claim in flight. */
  waiting: number;
  claiming?: Promise<void>;
}

/** Expired rows are deleted as rate-limiter-flexible did: an hour after their window, every five minutes. */
const SWEEP_MS = 5 * 60_000;
const sweeps = new WeakSet<pg.Pool>();

function sweepExpired(pool: pg.Pool): void {
  if (sweeps.has(pool)) return;
  sweeps.add(pool);
  const timer = setInterval(() => {
    if ((pool as { ending?: boolean }).ending) return clearInterval(timer);
    pool.query("DELETE FROM rate_limits WHERE expire < $1", [Date.now() - 3_600_000]).catch(() => {});
  }, SWEEP_MS);
  timer.unref();
}

function claimingLimiter(pool: pg.Pool, name: string, points: number, windowSeconds: number, insurance: RateLimiter): RateLimiter {
  const windowMs = windowSeconds * 1000;
  const cap = Math.max(1, Math.floor(points / 32));
  const windows = new Map<string, KeyWindow>();
  let lastPrune = Date.now();
  let awayUntil = 0;
  sweepExpired(pool);

  const claim = async (key: string, w: KeyWindow): Promise<void> => {
    const want = Math.min(cap, Math.max(w.nextClaim, w.waiting));
    w.nextClaim = Math.min(cap, want * 2);
    const res = await pool.query<{ granted: number; expire: string }>(CLAIM_SQL, [`${name}:${key}`, want, points, Date.now(), windowMs]);
    const row = res.rows[0]!;
    w.expire = Number(row.expire);
    if (row.granted > 0) w.available += row.granted;
    else w.exhausted = true;
  };

  // Windows that ended are dropped once a minute, so a stream of one-off callers does not grow the map.
  const prune = (now: number) => {
    if (now - lastPrune < 60_000) return;
    lastPrune = now;
    for (const [k, w] of windows) if (w.expire <= now && !w.claiming) windows.delete(k);
  };

  /** The key's window as this process holds it, and the answer when it can be given without the database. */
  const fromMemory = (key: string, now: number): { w: KeyWindow; answer?: RateLimitResult } => {
    prune(now);
    let w = windows.get(key);
    if (!w || (w.expire <= now && !w.claiming)) {
      w = { expire: now + windowMs, available: 0, exhausted: false, nextClaim: 1, waiting: 0 };
      windows.set(key, w);
    }
    if (w.available > 0) {
      w.available--;
      return { w, answer: { allowed: true, retryAfterSeconds: 0, remaining: w.available, limit: points } };
    }
    if (w.exhausted) return { w, answer: refused(points, w.expire - now) };
    return { w };
  };

  return {
    trySpend(key) {
      const now = Date.now();
      if (now < awayUntil) return insurance.trySpend(key);
      return fromMemory(key, now).answer;
    },

    async consume(key) {
      for (;;) {
        const now = Date.now();
        if (now < awayUntil) return insurance.consume(key);
        const { w, answer } = fromMemory(key, now);
        if (answer) return answer;
        const current = w;
        current.waiting++;
        try {
          await (current.claiming ??= claim(key, current).finally(() => (current.claiming = undefined)));
        } catch {
          // The database is away: this request is counted in memory (as rate-limiter-flexible's insurance did).
          awayUntil = Date.now() + 1000;
          return insurance.consume(key);
        } finally {
          current.waiting--;
        }
      }
    },
  };
}
