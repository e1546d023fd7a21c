-- Tournaments (issue #35): a group's round robin or knockout. Only who
-- takes part and which match is which pairing are stored; the standings
-- and the bracket are derived from the matches' results
-- (src/tournaments/), never kept as counters.
CREATE TABLE tournaments (
    id           uuid PRIMARY KEY,
    name         text NOT NULL,
    format       text NOT NULL CHECK (format IN ('round_robin', 'double_round_robin', 'knockout')),
    game         text NOT NULL,
    variant      text,
    mode         text,
    options      jsonb NOT NULL,
    turn_seconds integer NOT NULL,
    rated        boolean NOT NULL,
    seeding      text NOT NULL CHECK (seeding IN ('rating', 'random')),
    status       text NOT NULL CHECK (status IN ('open', 'active', 'finished')),
    invite_code  text NOT NULL UNIQUE,
    created_by   uuid NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL,
    starts_at    timestamptz,
    started_at   timestamptz,
    finished_at  timestamptz
);

CREATE TABLE tournament_players (
    tournament_id uuid NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    state         text NOT NULL CHECK (state IN ('invited', 'joined', 'declined', 'withdrawn')),
    -- 1 is the top seed; set when the tournament starts.
    seed          integer,
    -- The rating in the tournament's game when it started (seeding).
    rating        integer,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
);
CREATE INDEX tournament_players_user ON tournament_players (user_id);

-- Which match is which pairing: a round robin's round and board, or a
-- knockout's round, bracket slot and game (a drawn game is replayed with
-- sides swapped, game 1 and 2). `first` plays the side that moves first.
CREATE TABLE tournament_matches (
    match_id      uuid PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    tournament_id uuid NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         integer NOT NULL,
    slot          integer NOT NULL,
    game_no       integer NOT NULL,
    first_player  uuid NOT NULL REFERENCES users (id),
    second_player uuid NOT NULL REFERENCES users (id),
    UNIQUE (tournament_id, round, slot, game_no)
);

-- A match knows its tournament (a link in its view, and the reaction that
-- advances a knockout, without a lookup on every append).
ALTER TABLE matches ADD COLUMN tournament_id uuid REFERENCES tournaments (id) ON DELETE SET NULL;
CREATE INDEX matches_tournament ON matches (tournament_id) WHERE tournament_id IS NOT NULL;
