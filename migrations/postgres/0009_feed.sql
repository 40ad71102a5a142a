-- The live feed (GET /launchpad/stream, /launchpad/ws): one row per event, written by the indexer in the
-- transaction that writes the event itself, so a feed row is visible exactly when REST shows its event.
-- `seq` is assigned by that transaction under an exclusive lock on this table (the indexer is the only
-- writer), so seq order is commit order and a reader of `seq > n` never skips a row committed later.
-- `event_key` names the source event (`trade:<signature>:<ix>:<inner>`, `launch:<mint>`, ...): a replayed
-- or recovered event inserts nothing. `payload` is the event object without `seq` (JSON text).
-- `written_at` (unix seconds, the indexer's clock) drives retention.
CREATE TABLE feed_events (
    seq BIGINT PRIMARY KEY,
    event_key TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    mint TEXT NOT NULL,
    wallet TEXT,
    slot BIGINT NOT NULL,
    signature TEXT NOT NULL,
    time BIGINT NOT NULL,
    payload TEXT NOT NULL,
    written_at BIGINT NOT NULL
);
CREATE INDEX feed_events_written_at ON feed_events (written_at);
