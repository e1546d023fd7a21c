-- Issue #46: engine time shared fairly. Each one-off job runs in a lane
-- (0 quick: lobby, tournaments and computers that only resign; 1 light:
-- easy and normal searches; 2 heavy: hard searches), so that a lobby job
-- never waits behind a search and an easy reply never waits behind a hard
-- one; `owner` is the person a computer move is played for.
ALTER TABLE jobs ADD COLUMN lane smallint NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN owner uuid;
-- The due jobs of a lane, read on every claim.
DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs (lane, run_at) WHERE done_at IS NULL AND failed_at IS NULL;

-- The address a player last made a computer match from: their engine
-- time counts against that address too.
ALTER TABLE users ADD COLUMN address text;

-- Engine time spent for each person (and their address): the budget and
-- the order in which computer moves are claimed. Kept a day.
CREATE TABLE engine_time (
    id      bigserial PRIMARY KEY,
    owner   uuid NOT NULL,
    address text,
    at      timestamptz NOT NULL,
    millis  integer NOT NULL
);
CREATE INDEX engine_time_owner ON engine_time (owner, at);
CREATE INDEX engine_time_address ON engine_time (address, at) WHERE address IS NOT NULL;
CREATE INDEX engine_time_at ON engine_time (at);
