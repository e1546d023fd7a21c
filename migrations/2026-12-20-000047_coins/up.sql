-- Issue #70: coins (docs/rules/rewards.md). The ledger holds one entry a
-- cause, unique per player: a match's seat (`match:<id>:<seat>`), a daily
-- puzzle (`puzzle:<game>:<day>`), a streak's day, a tournament's place, a
-- look bought (`look:<item>`). The entry is written in the transaction
-- that earns or spends it, so a retry, a kill -9 or two instances can
-- never pay or charge twice: the second insert finds the first. A zero
-- entry records why a finished seat earned nothing (`why`).
CREATE TABLE coins (
    id bigserial PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users(id),
    cause text NOT NULL,
    amount integer NOT NULL,
    source text NOT NULL,
    why text NOT NULL,
    match_id uuid,
    -- A purchase's Idempotency-Key: a retry with it is answered alike.
    key text,
    at timestamptz NOT NULL,
    UNIQUE (user_id, cause)
);
CREATE UNIQUE INDEX coins_key ON coins (user_id, key) WHERE key IS NOT NULL;
CREATE INDEX coins_newest ON coins (user_id, id DESC);
CREATE INDEX coins_match ON coins (match_id) WHERE match_id IS NOT NULL;

-- The balance: the sum of the player's entries, kept beside them in the
-- same transactions and never below zero (a spend that would take it
-- there is refused while the row is locked; the check is the backstop).
CREATE TABLE purses (
    user_id uuid PRIMARY KEY REFERENCES users(id),
    balance integer NOT NULL CHECK (balance >= 0)
);

-- The looks a player wears: an emblem others see beside the name, and a
-- theme per game for one's own boards. What is owned is read from the
-- ledger (`look:<item>` entries).
CREATE TABLE looks_worn (
    user_id uuid PRIMARY KEY REFERENCES users(id),
    emblem text,
    themes jsonb NOT NULL DEFAULT '{}'
);
