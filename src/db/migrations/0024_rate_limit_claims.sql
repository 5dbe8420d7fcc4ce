-- Rate limits on PostgreSQL are claimed in chunks (src/core/rate-limit.ts): a process takes up to k points of a
-- key's window in one statement and spends them in memory, instead of one upsert per request. `points` keeps
-- its meaning (points taken in the window, by whichever process), so a process of the previous version that
-- still adds one point per request shares the same counts; `granted` is what the last statement gave its
-- caller (the update's SET clauses see the row as it was, so the grant is computed there).
ALTER TABLE rate_limits ADD COLUMN granted integer NOT NULL DEFAULT 0;
