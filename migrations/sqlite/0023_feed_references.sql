-- Migration 0023 (issue 44, storage per trade): a trade's feed rows hold a reference to the trade, not a copy.
-- The `trade` and `curve` rows of a curve or AMM trade keep their envelope's `slot`, `signature` and `time`
-- and the trade's key (`ix_index`, `inner_index`: with `signature` and `slot`, the key of `market_trades` and
-- `trades`), and leave `event_key`, `mint`, `wallet` and `payload` NULL: the feed's read renders them from
-- the trade's one stored copy (crates/index/src/read/feed.rs). Such a row is written only with its market
-- trade's first insert, in the same transaction, so a replayed trade (whose insert adds nothing) adds no feed
-- row and the row needs no `event_key`. Rows written before this migration keep their payload until the
-- feed's retention deletes them. A trade is never deleted while a feed row refers to it: trade retention stops
-- below the lowest slot a reference holds (`feed_events_trade_slot`). SQLite cannot drop NOT NULL in place:
-- the table is made again with the same rows.
CREATE TABLE feed_events_next (
    seq INTEGER NOT NULL,
    event_key TEXT,
    kind TEXT NOT NULL,
    mint TEXT,
    wallet TEXT,
    slot INTEGER NOT NULL,
    signature TEXT NOT NULL,
    time INTEGER NOT NULL,
    payload TEXT,
    written_at INTEGER NOT NULL,
    ix_index INTEGER,
    inner_index INTEGER,
    PRIMARY KEY (seq, written_at)
);
INSERT INTO feed_events_next (seq, event_key, kind, mint, wallet, slot, signature, time, payload, written_at)
SELECT seq, event_key, kind, mint, wallet, slot, signature, time, payload, written_at FROM feed_events;
DROP TABLE feed_events;
ALTER TABLE feed_events_next RENAME TO feed_events;
CREATE INDEX feed_events_event_key ON feed_events (event_key) WHERE event_key IS NOT NULL;
CREATE INDEX feed_events_written_at ON feed_events (written_at);
CREATE INDEX feed_events_trade_slot ON feed_events (slot) WHERE payload IS NULL;
