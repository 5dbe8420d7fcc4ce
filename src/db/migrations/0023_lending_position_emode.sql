-- Aave V3 / SparkLend positions in an efficiency-mode (eMode) category (src/oracle/lending-venues.ts): when the
-- account is in a category (Pool.getUserEMode) and the collateral reserve its terms come from is collateral of that
-- category (V3.2+ getEModeCategoryCollateralBitmap; V3.0/3.1 the reserve's eModeCategory configuration bits), a
-- liquidation pays the category's liquidationBonus instead of the reserve's (LiquidationLogic). emode_category is
-- that category's id when reserve_bonus_bps is the category's bonus; null when it is the reserve's own, and for
-- Compound V3 and Morpho Blue positions.
ALTER TABLE lending_positions ADD COLUMN emode_category integer;
