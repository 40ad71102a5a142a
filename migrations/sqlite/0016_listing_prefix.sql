-- The listing's `prefix` filter (`read/listing.rs` `starts_with`): a byte-order range on the mint (served by
-- the primary key) and on the symbol; SQLite's default collation (BINARY) is byte order.
CREATE INDEX launches_symbol ON launches (symbol);
