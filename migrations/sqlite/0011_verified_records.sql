-- `POST /swap/record` checks each record against its transaction on chain: 1 when the chain showed it
-- (landed, signed or sent by the recorded address, with at least the recorded amounts), 0 when it could not
-- be checked yet (a later record of the same hash checks it again).
ALTER TABLE swap_records ADD COLUMN verified BIGINT NOT NULL DEFAULT 0;
