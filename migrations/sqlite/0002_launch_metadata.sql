-- Launches prepared through the API: the metadata their URI serves, and the recorded deploy. A launch is listed
-- by the API once its deploy transaction is recorded (confirmed on chain, matching mint and creator).
CREATE TABLE launch_metadata (
    mint TEXT PRIMARY KEY,
    creator TEXT NOT NULL,
    name TEXT NOT NULL,
    symbol TEXT NOT NULL,
    description TEXT NOT NULL,
    preset TEXT NOT NULL,
    quote TEXT NOT NULL,
    salt TEXT NOT NULL,
    uri TEXT NOT NULL,
    prepared_at INTEGER NOT NULL,
    deploy_signature TEXT,
    recorded_at INTEGER,
    client_id TEXT
);
CREATE INDEX launch_metadata_recorded ON launch_metadata (recorded_at);
