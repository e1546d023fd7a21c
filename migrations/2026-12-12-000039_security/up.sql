-- The security review's findings (issue #65).

-- Item 9: engine time per IPv6 /48 beside per address. An address key is
-- an IPv4 address, an IPv6 /64 ("2001:db8:1:2::/64") or, from a trusted
-- proxy whose entry does not parse, "?" and that entry: only a /64 has a
-- /48, and a key that is none gives none rather than an error.
CREATE FUNCTION address_block(address text) RETURNS text
    IMMUTABLE PARALLEL SAFE LANGUAGE plpgsql AS $$
BEGIN
    IF address ~ '^[0-9a-f:]+/64$' THEN
        RETURN network(set_masklen(address::inet, 48))::text;
    END IF;
    RETURN NULL;
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;
ALTER TABLE engine_time ADD COLUMN block text GENERATED ALWAYS AS (address_block(address)) STORED;
CREATE INDEX engine_time_block ON engine_time (block, at) WHERE block IS NOT NULL;

-- Item 1: an address changed or removed can be put back from the old
-- address's mailbox for some days, ending every session; while such a
-- link is open no password reset is mailed.
CREATE TABLE email_undos (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    old_email  text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX email_undos_user ON email_undos (user_id, expires_at);

-- Item 10: a Google or Apple sign-in's nonce works once: kept (hashed)
-- until it would have expired anyway.
CREATE TABLE spent_nonces (
    nonce_hash text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX spent_nonces_expiry ON spent_nonces (expires_at);

-- Item 11: when the local day of a daily attempt began, so a streak
-- counts each real day once whatever the time zone changes between.
ALTER TABLE puzzle_attempts ADD COLUMN day_began timestamptz;
