-- MEV-Boost relay data (src/oracle/relay-poller.ts). Wei amounts are numeric(78,0).
-- Delivered payloads: one row per (slot, relay); the questions count a slot once.
CREATE TABLE relay_payloads (
  slot bigint NOT NULL,
  relay text NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  builder_pubkey text NOT NULL,
  proposer_fee_recipient text NOT NULL,
  value_wei numeric(78, 0) NOT NULL,
  gas_used numeric(78, 0) NOT NULL,
  num_tx integer NOT NULL,
  slot_time_s bigint NOT NULL,
  PRIMARY KEY (slot, relay)
);
CREATE INDEX relay_payloads_time ON relay_payloads (slot_time_s);

-- Received bids, reduced to each builder's highest bid per slot over every relay.
CREATE TABLE relay_bids (
  slot bigint NOT NULL,
  builder_pubkey text NOT NULL,
  value_wei numeric(78, 0) NOT NULL,
  slot_time_s bigint NOT NULL,
  PRIMARY KEY (slot, builder_pubkey)
);
CREATE INDEX relay_bids_time ON relay_bids (slot_time_s);

-- Poll state per relay id ("relay:<name>"): newest_slot is the slot down to which everything
-- (within the retention) is stored; a backlog walk in progress pages down from walk_cursor and
-- moves newest_slot up to walk_top once it meets newest_slot.
CREATE TABLE relay_sources (
  relay text PRIMARY KEY,
  last_ok_ms bigint,
  last_error text,
  last_error_ms bigint,
  newest_slot bigint,
  bids_through_slot bigint,
  walk_top bigint,
  walk_cursor bigint
);
