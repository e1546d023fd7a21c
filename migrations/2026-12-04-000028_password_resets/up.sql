-- Issue #47, item 4: a forgotten password, reset by a link mailed to the
-- account's verified address. A row is one link: only the hash of its
-- token is kept (the token itself is derived from the row's id with a key
-- of the service, when the mail is written, so the database alone cannot
-- make a working link). The address the link went to is kept so that a
-- link stops working if the account's address changes meanwhile.
CREATE TABLE password_resets (
    id         uuid PRIMARY KEY,
    token_hash bytea NOT NULL UNIQUE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX password_resets_user ON password_resets (user_id);
