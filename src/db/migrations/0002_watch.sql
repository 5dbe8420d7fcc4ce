-- Private Watch. The watch row is also its own schedule and lease.
CREATE TABLE watches (
  id uuid PRIMARY KEY,
  chain text NOT NULL CHECK (chain IN ('monero', 'zcash')),
  network text NOT NULL,
  address text NOT NULL,
  view_key_enc bytea NOT NULL,
  webhook_secret_enc bytea NOT NULL,
  token_hash bytea NOT NULL,
  webhook_url text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'cancelled', 'dead')),
  funding text NOT NULL DEFAULT 'usdc',
  credit_atomic bigint NOT NULL CHECK (credit_atomic >= 0),
  drained_through_ms bigint NOT NULL,
  drain_remainder bigint NOT NULL DEFAULT 0,
  low_credit_armed boolean NOT NULL DEFAULT true,
  start_height integer NOT NULL,
  scan_state jsonb,
  snapshot jsonb,
  initial_scan_done boolean NOT NULL DEFAULT false,
  next_poll_at timestamptz NOT NULL,
  lease_owner text,
  lease_until timestamptz,
  consecutive_failures integer NOT NULL DEFAULT 0,
  delivery_count integer NOT NULL DEFAULT 0,
  last_event_type text,
  last_polled_at timestamptz,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX watches_due_idx ON watches (next_poll_at) WHERE status = 'active' AND credit_atomic > 0;
CREATE INDEX watches_expiry_idx ON watches (expires_at);

-- Append-only credit ledger; kept after a watch is deleted.
CREATE TABLE watch_ledger (
  id bigserial PRIMARY KEY,
  watch_id uuid NOT NULL,
  kind text NOT NULL,
  amount_atomic bigint NOT NULL,
  balance_after bigint NOT NULL,
  reason text NOT NULL,
  ref text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX watch_ledger_watch_idx ON watch_ledger (watch_id, id);

-- Durable outbox: written in the same transaction as the change that caused the event.
-- The body is stored byte for byte, so a retry re-sends the same body, nonce and signature.
CREATE TABLE webhook_outbox (
  id uuid PRIMARY KEY,
  watch_id uuid NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
  seq bigserial NOT NULL,
  event text NOT NULL,
  nonce text NOT NULL UNIQUE,
  body text NOT NULL,
  billable boolean NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'abandoned')),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  last_status integer,
  lease_owner text,
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX webhook_outbox_pending_idx ON webhook_outbox (watch_id, seq) WHERE status = 'pending';
