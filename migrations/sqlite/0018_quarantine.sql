-- Changes the database refused (issue 40): a write whose error is the data's (SQLSTATE class 22 or 23, or 54 a
-- program limit) is set aside here with its raw bytes and the error, and the stream goes on
-- (indexer/src/quarantine.rs). `indexer replay-quarantine` writes them again once the cause is fixed; a
-- replayed row keeps its record (`replayed_at`). `ident` names the change (an event by its key, an account
-- write by address and version), so a change refused twice (a restart replays the stream) is one row.
CREATE TABLE quarantine (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ident TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    slot BIGINT NOT NULL,
    raw BLOB NOT NULL,
    meta TEXT NOT NULL,
    sqlstate TEXT,
    error TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 1,
    quarantined_at BIGINT NOT NULL,
    replayed_at BIGINT
);

CREATE INDEX quarantine_pending ON quarantine (id) WHERE replayed_at IS NULL;
