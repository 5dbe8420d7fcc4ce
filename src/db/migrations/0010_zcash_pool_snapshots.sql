-- Zcash value-pool snapshots (src/feeds/zcash-pools.ts): one row per snapshot interval.
-- bucket_ms = t_ms rounded down to the interval; the primary key on it makes the snapshot
-- idempotent across worker processes (INSERT ... ON CONFLICT DO NOTHING). Zatoshi are numeric(20,0).
CREATE TABLE zcash_pool_snapshots (
  bucket_ms bigint PRIMARY KEY,
  t_ms bigint NOT NULL,
  height bigint NOT NULL,
  transparent_zat numeric(20, 0) NOT NULL,
  sprout_zat numeric(20, 0) NOT NULL,
  sapling_zat numeric(20, 0) NOT NULL,
  orchard_zat numeric(20, 0) NOT NULL,
  ironwood_zat numeric(20, 0) NOT NULL,
  lockbox_zat numeric(20, 0) NOT NULL
);
CREATE INDEX zcash_pool_snapshots_t ON zcash_pool_snapshots (t_ms);
