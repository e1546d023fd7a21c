-- Issue #47, items 5, 6 and 8.

-- Item 8: my sessions. The device a session signed in from, read from its
-- User-Agent (a short label such as "Chrome · Android", never the address),
-- kept on each refresh token of the family.
ALTER TABLE refresh_tokens ADD COLUMN device text NOT NULL DEFAULT '';

-- Item 5: an account's identities at Google or Apple (OpenID Connect). The
-- provider's subject is the identity; the address is what the provider
-- said when it was linked, shown in settings and the export.
CREATE TABLE identities (
    provider   text NOT NULL,
    subject    text NOT NULL,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      text,
    linked_at  timestamptz NOT NULL,
    PRIMARY KEY (provider, subject),
    UNIQUE (user_id, provider)
);

-- Item 6: a deleted account keeps its row (finished matches and opponents'
-- rating changes point at it) with every personal field erased; its old
-- username's look-alike skeletons stay until `name_held_until`, so nobody
-- else can take the name (docs/decisions/accounts-and-sessions.md).
ALTER TABLE users ADD COLUMN deleted_at timestamptz;
ALTER TABLE users ADD COLUMN name_held_until timestamptz;
-- The daily sweep frees the names whose hold is over.
CREATE INDEX users_name_held ON users (name_held_until) WHERE name_held_until IS NOT NULL;
