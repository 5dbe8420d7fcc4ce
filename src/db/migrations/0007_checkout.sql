-- Checkout: invoices paid to the merchant's own watched wallet, and the restricted keys that create them.

CREATE TABLE checkout_keys (
  id uuid PRIMARY KEY,
  watch_id uuid NOT NULL,
  key_hash bytea NOT NULL UNIQUE,
  label text,
  max_amount_usd_cents integer CHECK (max_amount_usd_cents IS NULL OR max_amount_usd_cents >= 1),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX checkout_keys_watch_idx ON checkout_keys (watch_id);

CREATE TABLE checkout_invoices (
  id uuid PRIMARY KEY,
  watch_id uuid NOT NULL,
  key_id uuid,
  chain text NOT NULL CHECK (chain IN ('monero', 'zcash')),
  pay_to text NOT NULL,
  amount_atomic bigint NOT NULL CHECK (amount_atomic > 0),
  tag bigint NOT NULL,
  -- True while the tag may still be matched by a payment (pending, confirming, or expired within the late-payment day).
  tag_open boolean NOT NULL DEFAULT true,
  usd_cents integer NOT NULL CHECK (usd_cents >= 25),
  rate_num text NOT NULL,
  rate_den text NOT NULL,
  order_id text,
  description text,
  success_url text,
  confirmations integer NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirming', 'paid', 'underpaid', 'expired', 'cancelled')),
  received_atomic bigint,
  seen_txid text,
  seen_index text,
  seen_at timestamptz,
  paid_at timestamptz,
  fee_atomic bigint,
  expires_at timestamptz NOT NULL,
  reserved_until timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- The tag (the amount's low digits) is what tells a payment's invoice: never two open on one wallet.
CREATE UNIQUE INDEX checkout_invoices_open_tag_idx ON checkout_invoices (pay_to, tag) WHERE tag_open;
CREATE INDEX checkout_invoices_watch_idx ON checkout_invoices (watch_id, created_at);
CREATE INDEX checkout_invoices_pending_idx ON checkout_invoices (expires_at) WHERE status = 'pending';
CREATE INDEX checkout_invoices_seen_idx ON checkout_invoices (seen_txid, seen_index) WHERE seen_txid IS NOT NULL;
