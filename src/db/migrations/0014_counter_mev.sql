-- Counter-MEV ingestion (docs/feeds.md, Counter-MEV): ERC-20 Approval events, reverted
-- transactions with their gas burn, spender account kinds and live allowances, and how far
-- the scan got per chain. Amounts are numeric(78,0): exact, any uint256. Rows older than the
-- scan's retention (COUNTER_MEV_RETENTION_BLOCKS) are pruned by the scan job.
CREATE TABLE cmev_approvals (
  chain_id bigint NOT NULL,
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  tx_hash text NOT NULL,
  token text NOT NULL,
  owner text NOT NULL,
  spender text NOT NULL,
  value numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain_id, block_number, log_index)
);
CREATE INDEX cmev_approvals_pair ON cmev_approvals (chain_id, token, owner, spender, block_number DESC);
CREATE INDEX cmev_approvals_spender ON cmev_approvals (chain_id, spender);

CREATE TABLE cmev_failed_txs (
  chain_id bigint NOT NULL,
  tx_hash text NOT NULL,
  block_number bigint NOT NULL,
  from_address text NOT NULL,
  to_address text,
  gas_used numeric(78, 0) NOT NULL,
  burn_wei numeric(78, 0) NOT NULL,
  reason text NOT NULL,
  PRIMARY KEY (chain_id, tx_hash)
);
CREATE INDEX cmev_failed_txs_block ON cmev_failed_txs (chain_id, block_number);

-- eth_getCode of every spender seen: eoa, contract or delegated (EIP-7702).
CREATE TABLE cmev_accounts (
  chain_id bigint NOT NULL,
  address text NOT NULL,
  kind text NOT NULL,
  checked_block bigint NOT NULL,
  PRIMARY KEY (chain_id, address)
);

-- allowance(owner, spender) read on chain for the approvals the feed scores as dangling candidates.
CREATE TABLE cmev_allowances (
  chain_id bigint NOT NULL,
  token text NOT NULL,
  owner text NOT NULL,
  spender text NOT NULL,
  allowance numeric(78, 0),
  checked_block bigint NOT NULL,
  PRIMARY KEY (chain_id, token, owner, spender)
);

CREATE TABLE cmev_scan_state (
  chain_id bigint PRIMARY KEY,
  first_block bigint NOT NULL,
  scanned_to bigint NOT NULL,
  scanned_to_time_s bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
