-- Issue #20: a named opponent is challenged, not seated. Their seat stays
-- empty, held by a challenge, until they accept; a decline or the expiry
-- cancels the match.
ALTER TABLE matches DROP CONSTRAINT matches_status_check;
ALTER TABLE matches ADD CONSTRAINT matches_status_check
    CHECK (status IN ('waiting', 'active', 'finished', 'cancelled'));

CREATE TABLE challenges (
    match_id   uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat       smallint NOT NULL,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX challenges_user ON challenges (user_id);
CREATE INDEX challenges_expiry ON challenges (expires_at);
