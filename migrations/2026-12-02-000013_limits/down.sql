DROP TABLE limit_hits;
CREATE TABLE login_failures (
    key text NOT NULL,
    at  timestamptz NOT NULL
);
CREATE INDEX login_failures_key_at ON login_failures (key, at);
