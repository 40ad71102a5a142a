-- Prepared launches never deployed expire (the API's sweep after --prepared-ttl-secs): found by this index.
CREATE INDEX launch_metadata_unrecorded ON launch_metadata (prepared_at) WHERE deploy_signature IS NULL;
