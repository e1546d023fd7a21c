-- Issue #20: friends (a request, then both are friends) and blocks.
-- One row per pair of people, whoever asked first.
CREATE TABLE friendships (
    requester uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    addressee uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    accepted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    accepted_at timestamptz,
    PRIMARY KEY (requester, addressee),
    CHECK (requester <> addressee)
);
CREATE UNIQUE INDEX friendships_pair
    ON friendships (LEAST(requester, addressee), GREATEST(requester, addressee));
CREATE INDEX friendships_addressee ON friendships (addressee);

CREATE TABLE blocks (
    blocker uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    blocked uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (blocker, blocked),
    CHECK (blocker <> blocked)
);
CREATE INDEX blocks_blocked ON blocks (blocked);
