-- Aave V3 / SparkLend positions carry the liquidation terms of their own collateral (src/oracle/lending-venues.ts):
-- among the reserves the account uses as collateral (Pool.getUserConfiguration, UserConfigurationMap bit 2i + 1)
-- that can be seized, the one with the highest liquidation bonus (tie: the lower protocol fee), read each run with
-- getReservesList and getConfiguration. collateral_reserve is that reserve's asset (lower-case), reserve_bonus_bps
-- its liquidationBonus − 100 % and reserve_protocol_fee_bps its liquidationProtocolFee. Null when the reads failed,
-- and for Compound V3 and Morpho Blue positions (the opportunities feed then uses the market's terms, migration 0020).
ALTER TABLE lending_positions ADD COLUMN collateral_reserve text;
ALTER TABLE lending_positions ADD COLUMN reserve_bonus_bps integer;
ALTER TABLE lending_positions ADD COLUMN reserve_protocol_fee_bps integer;
