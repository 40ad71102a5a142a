-- Every launch the index sees on chain is listed, whoever built it (issue 42 item 5): a launch this service did
-- not prepare has its off-chain metadata (description, image, links) read from the URI it carries on chain, by
-- the API's metadata worker (api/src/chain/offchain.rs), off the ingest path. The indexer queues a row here when
-- it writes a launch (idempotently); the worker fetches it, retrying with backoff, and gives up after its last
-- attempt: the launch stays listed with its on-chain name, symbol and URI.
--   state: `pending` (to fetch at next_attempt_at), `fetched`, `failed` (gave up: error says why), or
--          `prepared` (this service prepared it: its metadata is launch_metadata's, nothing to fetch).
-- The image is the content hash of `images` (the bytes in the image store), as a prepared launch's.
CREATE TABLE launch_offchain (
    mint TEXT PRIMARY KEY,
    uri TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    fetched_at BIGINT,
    error TEXT,
    description TEXT,
    image_hash TEXT,
    website TEXT,
    twitter TEXT,
    telegram TEXT
);
CREATE INDEX launch_offchain_due ON launch_offchain (next_attempt_at) WHERE state = 'pending';
CREATE INDEX launch_offchain_image ON launch_offchain (image_hash) WHERE image_hash IS NOT NULL;
-- The launches indexed before this migration, queued.
INSERT INTO launch_offchain (mint, uri, state, attempts, next_attempt_at)
SELECT mint, uri, 'pending', 0, 0 FROM launches;
