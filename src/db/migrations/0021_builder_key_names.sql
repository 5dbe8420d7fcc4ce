-- Builder names learned from the blocks the builders built (src/oracle/builder-names.ts): for a builder key that
-- no reviewed table names, the extra-data tag of its newest delivered block, read from the Ethereum node, and the
-- builder that tag names (null when it names none known; such a row is asked again after a day). The answers use
-- these names after the reviewed table's (builder-keys.ts, BUILDER_PUBKEYS).
CREATE TABLE builder_key_names (
  pubkey text PRIMARY KEY,
  name text,
  tag text NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  learned_ms bigint NOT NULL
);

-- The learner looks up each key's newest delivered block.
CREATE INDEX relay_payloads_builder ON relay_payloads (builder_pubkey, slot);
