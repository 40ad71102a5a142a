-- Images' bytes live in the image store (`--image-store`: a directory, or an S3-compatible bucket), not in the
-- database (issue 40). A row of `images` stays as the image's record: its content type, and the time it was last
-- stored (the prepared-launch sweeper deletes an image no launch uses once that is past the TTL). `data` is
-- NULL once the bytes are in the store: `api serve` copies the rows still holding bytes there at start, then
-- clears them (api/src/routes/launch/images.rs, `move_to_store`). SQLite cannot drop a NOT NULL: the table is
-- rebuilt.
CREATE TABLE images_moved (
    hash TEXT PRIMARY KEY,
    content_type TEXT NOT NULL,
    data BLOB,
    created_at INTEGER NOT NULL
);
INSERT INTO images_moved (hash, content_type, data, created_at) SELECT hash, content_type, data, created_at FROM images;
DROP TABLE images;
ALTER TABLE images_moved RENAME TO images;
CREATE INDEX images_in_database ON images (hash) WHERE data IS NOT NULL;

-- Pending prepares are limited per creator and per client address (`--max-pending-prepares-per-creator`,
-- `--max-pending-prepares-per-address`): the address a prepare came from (under the trusted-proxy rules, an
-- IPv6 client by its /64), NULL for rows prepared before this migration.
ALTER TABLE launch_metadata ADD COLUMN client_addr TEXT;
CREATE INDEX launch_metadata_pending_creator ON launch_metadata (creator, prepared_at) WHERE deploy_signature IS NULL;
CREATE INDEX launch_metadata_pending_addr ON launch_metadata (client_addr, prepared_at) WHERE deploy_signature IS NULL;
