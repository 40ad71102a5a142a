-- The keys API replicas seal the routes quotes hand out with (HMAC-SHA256, api/src/routes/swap/seal.rs), shared
-- so that a route quoted by one replica builds on any other (issue 40). The first replica to start on an empty
-- table makes key 1; `admin route-keys rotate` adds the next and keeps only the one before it. Every key here
-- verifies; the newest one older than the rotation grace signs (api/src/route_keys.rs). `--route-keys`
-- overrides the table. The secrets are never logged or served.
CREATE TABLE route_keys (
    id INTEGER PRIMARY KEY,
    secret TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
