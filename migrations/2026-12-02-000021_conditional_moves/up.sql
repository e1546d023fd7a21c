-- Conditional moves (issue #34): a player's stored lines in a match, seen
-- by nobody else (src/matches/conditional.rs).
CREATE TABLE conditional_lines (
    match_id uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    lines jsonb NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (match_id, user_id)
);
