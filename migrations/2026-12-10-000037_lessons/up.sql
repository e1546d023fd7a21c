-- First steps (issue #52, docs/lessons.md): the steps of each game's
-- lessons an account has completed. Attempts are not stored: the rules
-- judge each one from the step and the actions sent.
CREATE TABLE lessons_done (
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game    text NOT NULL,
    step    text NOT NULL,
    done_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, game, step)
);
