-- Ethereum headers kept by the follower (what /v1/q/base-fee and data-freshness stand on), newest
-- ETH_RETENTION_BLOCKS per chain id. Wei amounts are numeric(78,0): exact, any uint256.
CREATE TABLE eth_headers (
  chain_id bigint NOT NULL,
  number bigint NOT NULL,
  hash text NOT NULL,
  parent_hash text NOT NULL,
  timestamp_s bigint NOT NULL,
  base_fee_wei numeric(78, 0) NOT NULL,
  gas_used numeric(78, 0) NOT NULL,
  gas_limit numeric(78, 0) NOT NULL,
  blob_gas_used numeric(78, 0),
  excess_blob_gas numeric(78, 0),
  miner text NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, number)
);
