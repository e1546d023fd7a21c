-- Issue #69: a finished match's analysis, one per match, kept. Asked for
-- by one of its players (the jobs that make it name them, `jobs.owner`,
-- and are charged to their engine time); the row names nobody. It is
-- judged a few plays a job (`computer::analysis::CHUNK`): `plies` holds
-- the plays judged so far, `judged_to` how many of the log's plays the
-- jobs have gone through (the fence of the next one).
CREATE TABLE analyses (
    match_id uuid PRIMARY KEY REFERENCES matches(id) ON DELETE CASCADE,
    requested_at timestamptz NOT NULL,
    judged_to integer NOT NULL DEFAULT 0,
    plies jsonb NOT NULL DEFAULT '[]',
    done_at timestamptz,
    -- The rules' `Analysis`, its plays' seqs those of `match_events`.
    result jsonb
);
