-- Zcash coin payments (src/checkout/pay-id.ts): a quote or invoice on Zcash carries a memo token
-- that the payment's encrypted memo names. Tokens are unique (80 random bits; the index makes a
-- collision an insert failure rather than an ambiguous match).
ALTER TABLE checkout_invoices ADD COLUMN memo text;
CREATE UNIQUE INDEX checkout_invoices_memo_idx ON checkout_invoices (memo) WHERE memo IS NOT NULL;
CREATE UNIQUE INDEX coin_quotes_memo_idx ON coin_quotes (memo) WHERE memo IS NOT NULL;
