-- Accounts and sessions.
CREATE TABLE users (
    id            uuid PRIMARY KEY,
    username      text NOT NULL,
    email         text,
    password_hash text,
    display_name  text NOT NULL,
    guest         boolean NOT NULL DEFAULT false,
    locale        text NOT NULL DEFAULT 'en',
    time_zone     text NOT NULL DEFAULT 'UTC',
    created_at    timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL;

-- Opaque refresh tokens, stored as SHA-256 hashes. A family is one login;
-- presenting a spent token revokes its whole family (token theft).
CREATE TABLE refresh_tokens (
    token_hash  bytea PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    family      uuid NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    spent_at    timestamptz,
    revoked_at  timestamptz
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family);

-- Failed logins, for rate limiting per account and per address across
-- every instance.
CREATE TABLE login_failures (
    key text NOT NULL,
    at  timestamptz NOT NULL
);
CREATE INDEX login_failures_key_at ON login_failures (key, at);

-- Matches: the row is a cache of what queries need; the truth is the log.
CREATE TABLE matches (
    id            uuid PRIMARY KEY,
    game          text NOT NULL,
    variant       text,
    mode          text,
    options       jsonb NOT NULL,
    status        text NOT NULL CHECK (status IN ('waiting', 'active', 'finished')),
    seq           integer NOT NULL,
    rated         boolean NOT NULL,
    turn_seconds  integer NOT NULL,
    created_by    uuid NOT NULL REFERENCES users (id),
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    -- [{seat, kind, since, notice_at, deadline_at, closes_at?}]
    to_act        jsonb NOT NULL DEFAULT '[]',
    -- users who owe an action now, for "awaiting me" lists
    awaiting      uuid[] NOT NULL DEFAULT '{}',
    notice_at     timestamptz,
    deadline_at   timestamptz,
    result        jsonb
);
CREATE INDEX matches_notice_due ON matches (notice_at) WHERE status = 'active';
CREATE INDEX matches_deadline_due ON matches (deadline_at) WHERE status = 'active';

CREATE TABLE match_seats (
    match_id uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat     smallint NOT NULL,
    user_id  uuid REFERENCES users (id),
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX match_seats_user ON match_seats (user_id, match_id);

-- The append-only event log. `rules` marks events the rules crate folds;
-- the others are the service's own facts (timeout notices, granted time).
CREATE TABLE match_events (
    match_id uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seq      integer NOT NULL,
    at       timestamptz NOT NULL,
    seat     smallint,
    rules    boolean NOT NULL,
    body     jsonb NOT NULL,
    PRIMARY KEY (match_id, seq)
);

CREATE TABLE invites (
    code        text PRIMARY KEY,
    match_id    uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat        smallint NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_by     uuid REFERENCES users (id),
    used_at     timestamptz
);
CREATE INDEX invites_match ON invites (match_id);

-- A retried POST with the same Idempotency-Key gets the first answer.
CREATE TABLE idempotent_answers (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key        text NOT NULL,
    match_id   uuid NOT NULL,
    answer     jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, key)
);
