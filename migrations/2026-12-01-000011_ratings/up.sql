-- Issue #19: ratings per perf (a game with its variant or mode), each
-- finished rated match's changes, and the count of board players per
-- whole rating, from which a rank is read without counting the players.
CREATE TABLE ratings (
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    perf          text NOT NULL,
    rating        double precision NOT NULL,
    deviation     double precision NOT NULL,
    volatility    double precision NOT NULL,
    games         integer NOT NULL DEFAULT 0,
    wins          integer NOT NULL DEFAULT 0,
    draws         integer NOT NULL DEFAULT 0,
    losses        integer NOT NULL DEFAULT 0,
    last_rated_at timestamptz,
    -- The whole rating this player is counted at in rating_counts: set
    -- while established and active (on the board), else NULL.
    board_rating  integer,
    PRIMARY KEY (user_id, perf)
);
CREATE INDEX ratings_board ON ratings (perf, board_rating DESC, user_id)
    WHERE board_rating IS NOT NULL;
CREATE INDEX ratings_active ON ratings (last_rated_at) WHERE board_rating IS NOT NULL;

CREATE TABLE rating_counts (
    perf    text NOT NULL,
    rating  integer NOT NULL,
    players integer NOT NULL,
    PRIMARY KEY (perf, rating)
);

CREATE TABLE rating_changes (
    match_id  uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    perf      text NOT NULL,
    before    double precision NOT NULL,
    after     double precision NOT NULL,
    PRIMARY KEY (match_id, user_id)
);
