-- Issue #13: a key remembers what it was used for (a SHA-256 of the
-- operation and its body), so the same key with another request is refused
-- instead of answered with the first answer. Keys expire (the sweep
-- forgets them).
ALTER TABLE idempotent_answers
    ADD COLUMN fingerprint bytea NOT NULL DEFAULT '\x'::bytea;
CREATE INDEX idempotent_answers_created ON idempotent_answers (created_at);
