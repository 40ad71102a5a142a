-- The latest state of each oracle price account the indexer streams (Pyth's SOL/USD, for the API's USD
-- values), kept with its publish time so that readers can say when a price is stale. One row per account,
-- moved only forward in (slot, write_version) like the program accounts.
CREATE TABLE oracle_prices (
    address TEXT PRIMARY KEY,
    -- `price * 10^exponent` dollars; the confidence likewise (u64 as text).
    price BIGINT NOT NULL,
    conf TEXT NOT NULL,
    exponent BIGINT NOT NULL,
    -- Unix seconds, the publishers' clock.
    publish_time BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    write_version BIGINT NOT NULL
);
