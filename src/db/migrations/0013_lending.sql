-- Lending positions and liquidations (src/oracle/lending-indexer.ts). USD amounts are the
-- Aave oracle's base units (8 decimals) as numeric(78,0); health factors scaled 1e18.
-- Borrowers with debt: one row per (market, borrower), refreshed with getUserAccountData.
CREATE TABLE lending_positions (
  market text NOT NULL,
  borrower text NOT NULL,
  collateral_base numeric(78, 0) NOT NULL,
  debt_base numeric(78, 0) NOT NULL,
  liquidation_threshold_bps integer NOT NULL,
  health_factor_wad numeric(78, 0) NOT NULL,
  first_seen_block bigint NOT NULL,
  refreshed_block bigint NOT NULL,
  refreshed_ms bigint NOT NULL,
  PRIMARY KEY (market, borrower)
);
CREATE INDEX lending_positions_hf ON lending_positions (health_factor_wad);
CREATE INDEX lending_positions_borrower ON lending_positions (borrower);

-- LiquidationCall events; debt_base is debt_to_cover at the oracle price when indexed (null: no price).
CREATE TABLE lending_liquidations (
  market text NOT NULL,
  block_number bigint NOT NULL,
  log_index integer NOT NULL,
  block_hash text NOT NULL,
  tx_hash text NOT NULL,
  block_time_s bigint NOT NULL,
  borrower text NOT NULL,
  liquidator text NOT NULL,
  collateral_asset text NOT NULL,
  debt_asset text NOT NULL,
  debt_to_cover numeric(78, 0) NOT NULL,
  collateral_amount numeric(78, 0) NOT NULL,
  debt_base numeric(78, 0),
  PRIMARY KEY (market, block_number, log_index)
);
CREATE INDEX lending_liquidations_time ON lending_liquidations (block_time_s);
CREATE INDEX lending_liquidations_borrower ON lending_liquidations (borrower);

-- The indexer's state per market (last_block null until its first range is read): events read through last_block (its timestamp kept for
-- freshness), the last full health-factor refresh and the last failure.
CREATE TABLE lending_cursors (
  market text PRIMARY KEY,
  chain_id bigint NOT NULL,
  last_block bigint,
  last_block_time_s bigint,
  last_refresh_ms bigint,
  last_ok_ms bigint,
  last_error text,
  last_error_ms bigint,
  eth_price_base numeric(78, 0)
);
