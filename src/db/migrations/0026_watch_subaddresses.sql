-- Monero subaddresses a watch scans (src/watch/subaddresses.ts, docs/monero.md).
-- A watch's own look-ahead: accounts 0..subaddress_accounts-1 × minors 0..subaddress_minors-1
-- (both NULL: the server's MONERO_SUBADDRESS_LOOKAHEAD). invoice_account: the account whose
-- minors 1, 2, … Checkout hands out, one per invoice.
ALTER TABLE watches ADD COLUMN subaddress_accounts integer CHECK (subaddress_accounts IS NULL OR subaddress_accounts BETWEEN 1 AND 50);
ALTER TABLE watches ADD COLUMN subaddress_minors integer CHECK (subaddress_minors IS NULL OR subaddress_minors >= 1);
ALTER TABLE watches ADD COLUMN invoice_account integer NOT NULL DEFAULT 0 CHECK (invoice_account BETWEEN 0 AND 49);

-- Subaddresses handed out past the look-ahead (invoice addresses): minors 0..minors-1 of
-- account `major` are scanned too. One row per account; the tick reads the rows of its batch.
CREATE TABLE watch_issued_subaddresses (
  watch_id uuid NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
  major integer NOT NULL CHECK (major >= 0),
  minors integer NOT NULL CHECK (minors >= 1),
  PRIMARY KEY (watch_id, major)
);
