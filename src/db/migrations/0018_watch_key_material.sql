-- Derived scanning material of a watch's view key (src/chains/zcash/key-material.ts: the
-- trial-decryption keys and nullifier keys of each pool and scope, the transparent gap window's
-- P2PKH hashes), sealed like the view key (AES-256-GCM under MASTER_KEY, associated data
-- "keymaterial:<watch id>"), so a restarted worker loads it instead of deriving it again.
-- A separate table: the idle tick leases watches with RETURNING * and never reads it.
-- A watch without a row (created before this migration) gets one the first time its keys are built.
CREATE TABLE watch_key_material (
  watch_id uuid PRIMARY KEY REFERENCES watches (id) ON DELETE CASCADE,
  material_enc bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
