-- Vacation (issue #34). The allowance is kept in hours: `vacation_hours`
-- as of `vacation_hours_at` (it accrues from there, docs/decisions/
-- matches-and-deadlines.md); a vacation runs from `vacation_since`,
-- until `vacation_until` if one was given, and spends its allowance from
-- `vacation_paying_since` (its first paused duty) to its end.
ALTER TABLE users
    ADD COLUMN vacation_hours integer NOT NULL DEFAULT 720 CHECK (vacation_hours >= 0),
    ADD COLUMN vacation_hours_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN vacation_since timestamptz,
    ADD COLUMN vacation_until timestamptz,
    ADD COLUMN vacation_paying_since timestamptz,
    ADD COLUMN auto_vacation boolean NOT NULL DEFAULT false;
-- The sweep's look for vacations to end.
CREATE INDEX users_on_vacation ON users (vacation_since) WHERE vacation_since IS NOT NULL;
