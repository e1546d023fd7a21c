-- Issue #50: table talk. Messages between the players of a match (in
-- four-player teams, a team's own channel beside everyone's), each at the
-- match's seq when written; never a game event. A deleted account's
-- messages keep their place with their text erased (body NULL).
CREATE TABLE messages (
    id         uuid PRIMARY KEY,
    -- The order they were written in (the clock may say the same instant).
    serial     bigint GENERATED ALWAYS AS IDENTITY,
    match_id   uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    author_id  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- NULL: everyone at the table; else the team (rules' teams()) that
    -- alone reads it.
    team       smallint,
    body       text CHECK (body IS NULL OR char_length(body) BETWEEN 1 AND 500),
    at_seq     integer NOT NULL,
    created_at timestamptz NOT NULL
);
-- A match's last messages, newest first: an index range, however many
-- messages are stored.
CREATE INDEX messages_match ON messages (match_id, serial DESC);
CREATE INDEX messages_author ON messages (author_id);

-- Who may write to me (everyone in my matches, friends only, nobody).
ALTER TABLE users ADD COLUMN talk text NOT NULL DEFAULT 'everyone'
    CHECK (talk IN ('everyone', 'friends', 'nobody'));

-- Per player and match: the messages not read yet (counted when posted,
-- for those who hear the author), and whether muted (no notice, no count).
CREATE TABLE talk_seats (
    match_id  uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    unread    integer NOT NULL DEFAULT 0,
    muted     boolean NOT NULL DEFAULT false,
    PRIMARY KEY (user_id, match_id)
);

-- Private notes: one per player and match, its author's only.
CREATE TABLE notes (
    match_id   uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body       text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 2000),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, match_id)
);
