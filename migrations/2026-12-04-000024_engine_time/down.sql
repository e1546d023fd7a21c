DROP TABLE engine_time;
ALTER TABLE users DROP COLUMN address;
DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs (run_at) WHERE done_at IS NULL AND failed_at IS NULL;
ALTER TABLE jobs DROP COLUMN owner;
ALTER TABLE jobs DROP COLUMN lane;
