-- The daily puzzle's morning notice (issue #52): the local days on which
-- a player who asked for it was told, so each morning tells them once,
-- whatever the instance count.
CREATE TABLE puzzle_mornings (
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day     date NOT NULL,
    PRIMARY KEY (user_id, day)
);
