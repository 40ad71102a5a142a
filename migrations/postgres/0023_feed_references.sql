-- Migration 0023 (issue 44, storage per trade): a trade's feed rows hold a reference to the trade, not a copy.
-- The `trade` and `curve` rows of a curve or AMM trade keep their envelope's `slot`, `signature` and `time`
-- and the trade's key (`ix_index`, `inner_index`: with `signature` and `slot`, the key of `market_trades` and
-- `trades`), and leave `event_key`, `mint`, `wallet` and `payload` NULL: the feed's read renders them from
-- the trade's one stored copy (crates/index/src/read/feed.rs). Such a row is written only with its market
-- trade's first insert, in the same transaction, so a replayed trade (whose insert adds nothing) adds no feed
-- row and the row needs no `event_key`. Rows written before this migration keep their payload until the
-- feed's retention drops them. A trade is never dropped while a feed row refers to it: trade retention stops
-- below the lowest slot a reference holds (`feed_events_trade_slot`).
ALTER TABLE feed_events ADD COLUMN ix_index INTEGER;
ALTER TABLE feed_events ADD COLUMN inner_index INTEGER;
ALTER TABLE feed_events ALTER COLUMN event_key DROP NOT NULL;
ALTER TABLE feed_events ALTER COLUMN mint DROP NOT NULL;
ALTER TABLE feed_events ALTER COLUMN payload DROP NOT NULL;
DROP INDEX feed_events_event_key;
CREATE INDEX feed_events_event_key ON feed_events (event_key) WHERE event_key IS NOT NULL;
CREATE INDEX feed_events_trade_slot ON feed_events (slot) WHERE payload IS NULL;
