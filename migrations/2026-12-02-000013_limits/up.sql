-- Issue #30: every abuse limit counts in one table, per key, in a sliding
-- window (`src/limits.rs`). A count and its insert run under a
-- transaction-scoped advisory lock on the key, so simultaneous requests
-- are counted one after another on any number of instances. It replaces
-- `login_failures`, whose count and insert raced (24 simultaneous wrong
-- passwords were all checked against a count of 0).
CREATE TABLE limit_hits (
    id  bigserial PRIMARY KEY,
    key text NOT NULL,
    at  timestamptz NOT NULL
);
CREATE INDEX limit_hits_key_at ON limit_hits (key, at);
CREATE INDEX limit_hits_at ON limit_hits (at);
DROP TABLE login_failures;
