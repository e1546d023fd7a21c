-- Puzzles mined from play (issue #52, docs/puzzles.md). A puzzle is a
-- match of its own, set up in a custom position (`events`), with the
-- forced line the solver must find (`line`, never sent before the puzzle
-- is solved or given up). `source` says where it was mined: a finished
-- match (its id, never its players) or the engines' own match.
CREATE TABLE puzzles (
    id          uuid PRIMARY KEY,
    game        text NOT NULL,
    config      jsonb NOT NULL,
    events      jsonb NOT NULL,
    seats       int2 NOT NULL,
    solver      int2 NOT NULL,
    line        jsonb NOT NULL,
    goal        text NOT NULL CHECK (goal IN ('win', 'gain')),
    depth       int4 NOT NULL,
    margin      int4 NOT NULL,
    source      text NOT NULL UNIQUE,
    rating      float8 NOT NULL,
    deviation   float8 NOT NULL,
    volatility  float8 NOT NULL,
    plays       int4 NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL
);
CREATE INDEX puzzles_game_rating ON puzzles (game, rating);

-- The daily puzzle: one per game per calendar day, the same for everyone
-- whose day it is.
CREATE TABLE puzzle_days (
    game      text NOT NULL,
    day       date NOT NULL,
    puzzle_id uuid NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    PRIMARY KEY (game, day)
);

-- One attempt per player and puzzle: how far along the line, and how it
-- went. `rated` once it has counted (a first wrong move, a give-up, or a
-- clean solve); guests' attempts never count.
CREATE TABLE puzzle_attempts (
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    puzzle_id   uuid NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    step        int4 NOT NULL DEFAULT 0,
    state       text NOT NULL CHECK (state IN ('playing', 'solved', 'given_up')),
    missed      bool NOT NULL DEFAULT false,
    rated       bool NOT NULL DEFAULT false,
    daily       date,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz,
    PRIMARY KEY (user_id, puzzle_id)
);
CREATE INDEX puzzle_attempts_daily ON puzzle_attempts (user_id, daily) WHERE daily IS NOT NULL;

-- A player's puzzle rating per game (Glicko-2, as match ratings are).
CREATE TABLE puzzle_ratings (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game       text NOT NULL,
    rating     float8 NOT NULL,
    deviation  float8 NOT NULL,
    volatility float8 NOT NULL,
    attempts   int4 NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, game)
);

-- Finished matches already searched for a puzzle (a table of its own:
-- the match row stays the action path's).
CREATE TABLE mined_matches (
    match_id uuid PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    mined_at timestamptz NOT NULL
);
