-- Issue #69 item 6: a finished match's share link, for friends who did
-- not play: unlisted (a 128-bit token), one a match, turned off (deleted)
-- by either player; the player who made it is named, so the link goes
-- with their account (`sharing::PERSONAL`).
CREATE TABLE match_shares (
    token text PRIMARY KEY,
    match_id uuid NOT NULL UNIQUE REFERENCES matches(id) ON DELETE CASCADE,
    created_by uuid NOT NULL REFERENCES users(id),
    created_at timestamptz NOT NULL
);
CREATE INDEX match_shares_by ON match_shares (created_by);
