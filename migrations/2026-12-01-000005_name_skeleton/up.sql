-- Issue #13: the UTS #39 skeleton of each username (lower-cased), so a
-- guest nickname that only looks like a registered name can be refused.
-- Filled by the service (start-up fills rows written before this column).
ALTER TABLE users ADD COLUMN skeleton text;
CREATE INDEX users_skeleton ON users (skeleton) WHERE NOT guest;
