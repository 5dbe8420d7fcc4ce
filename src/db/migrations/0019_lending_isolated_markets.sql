-- Compound V3 and Morpho Blue in the lending indexer (src/oracle/lending-indexer.ts).
-- A Morpho Blue borrower has one position per isolated market inside the singleton: positions and
-- liquidations carry that market's id (bytes32 hex) as sub_market; '' for pooled markets (Aave, Spark, Comet).
ALTER TABLE lending_positions ADD COLUMN sub_market text NOT NULL DEFAULT '';
ALTER TABLE lending_positions DROP CONSTRAINT lending_positions_pkey;
ALTER TABLE lending_positions ADD PRIMARY KEY (market, borrower, sub_market);
ALTER TABLE lending_liquidations ADD COLUMN sub_market text NOT NULL DEFAULT '';
