-- Liquidation terms per lending market, read from the chain by the lending indexer (src/oracle/lending-indexer.ts)
-- once per run and used by the opportunities feed (src/feeds/opportunities.ts). Aave V3 / SparkLend: the principal
-- collateral reserve's getConfiguration (source 'aave_reserve'); Compound V3: storeFrontPriceFactor and the assets'
-- liquidationFactor (source 'comet_storefront'). A failed read leaves the row as it was.
CREATE TABLE lending_market_terms (
  market text PRIMARY KEY,
  bonus_bps integer NOT NULL,
  protocol_fee_bps integer NOT NULL,
  source text NOT NULL,
  detail text NOT NULL,
  read_block bigint NOT NULL,
  read_ms bigint NOT NULL
);
