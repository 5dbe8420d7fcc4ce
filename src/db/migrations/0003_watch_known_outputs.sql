-- The outputs a watch's last scan reported (what the tick's findings diff compares the next scan
-- against, so subscribers hear of new, newly confirmed and reorged outputs). NULL: none yet.
ALTER TABLE watches ADD COLUMN known_outputs jsonb;
