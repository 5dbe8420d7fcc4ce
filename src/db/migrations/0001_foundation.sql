-- x402 payments: one row per authorisation ever presented past verification.
-- nonce_key is unique, so an authorisation is accepted once, ever, across processes.
CREATE TABLE payments (
  id uuid PRIMARY KEY,
  nonce_key text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('pending', 'settled', 'failed')),
  payer text NOT NULL,
  route text NOT NULL,
  amount_atomic bigint NOT NULL CHECK (amount_atomic > 0),
  network text NOT NULL,
  nonce text NOT NULL,
  tx_hash text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);
CREATE INDEX payments_payer_idx ON payments (payer, created_at);

-- Shared per-IP rate-limit counters (rate-limiter-flexible's PostgreSQL store layout).
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
