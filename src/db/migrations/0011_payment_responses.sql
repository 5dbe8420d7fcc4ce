-- Paid work made idempotent (docs/idempotency.md).
-- request_hash: SHA-256 of the paid request (method, path, input); a retry must match it.
-- valid_before: the authorisation's validBefore (Unix s): past it an unused authorisation can never settle.
-- payment_identifier: the client's payment-identifier extension id, unique per payer.
-- response_*: the paid answer, sealed with the master key, kept until response_expires_at, then purged.
-- work_done: false while money may have moved without the work committing (pending, or an orphan found on chain).
ALTER TABLE payments ADD COLUMN request_hash text;
ALTER TABLE payments ADD COLUMN valid_before bigint;
ALTER TABLE payments ADD COLUMN payment_identifier text;
ALTER TABLE payments ADD COLUMN response_status integer;
ALTER TABLE payments ADD COLUMN response_sealed bytea;
ALTER TABLE payments ADD COLUMN response_expires_at timestamptz;
ALTER TABLE payments ADD COLUMN work_done boolean NOT NULL DEFAULT true;
ALTER TABLE payments ADD COLUMN checked_at timestamptz;
CREATE UNIQUE INDEX payments_identifier_idx ON payments (payer, payment_identifier) WHERE payment_identifier IS NOT NULL;
CREATE INDEX payments_open_idx ON payments (created_at) WHERE status = 'pending' OR work_done = false;
CREATE INDEX payments_response_expiry_idx ON payments (response_expires_at) WHERE response_sealed IS NOT NULL;
