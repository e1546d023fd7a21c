-- Issue #20: a random opponent. A seek waits in its pool (the game with
-- its variant or mode, the players wanted, turn time and rated) until
-- compatible seeks fill a match; pairing locks the pool (an advisory
-- lock) and claims seeks FOR UPDATE SKIP LOCKED, so several instances
-- never use one seek twice.
CREATE TABLE seeks (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    pool         text NOT NULL,
    game         text NOT NULL,
    variant      text,
    mode         text,
    players      smallint NOT NULL CHECK (players BETWEEN 2 AND 4),
    turn_seconds integer NOT NULL,
    rated        boolean NOT NULL,
    rating       integer NOT NULL,
    min_rating   integer,
    max_rating   integer,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    -- Set once paired; a paired seek is never used again.
    match_id     uuid REFERENCES matches (id) ON DELETE SET NULL,
    paired_at    timestamptz
);
CREATE INDEX seeks_open ON seeks (pool, created_at) WHERE paired_at IS NULL;
CREATE INDEX seeks_user ON seeks (user_id);
