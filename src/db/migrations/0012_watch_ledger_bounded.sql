-- Bounded ledger: the idle drain is taken from the credit at every tick but
-- booked as a ledger row once per UTC day, before any other ledger row of the
-- watch, and when the credit reaches zero. Until then it is carried here, so
-- sum(ledger) = credit_atomic + drain_unbooked_atomic at all times.
ALTER TABLE watches
  ADD COLUMN drain_unbooked_atomic bigint NOT NULL DEFAULT 0,
  ADD COLUMN drain_unbooked_from_ms bigint NOT NULL DEFAULT 0;
