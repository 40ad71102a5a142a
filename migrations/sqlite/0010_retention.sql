-- Retention deletes candles of one interval older than a cut-off, across every mint: this index finds them
-- without scanning the table.
CREATE INDEX candles_interval_start ON candles (interval_secs, start_time);
