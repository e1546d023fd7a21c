-- Issue #21: an action writes one plain row per notice, with no joins; the
-- outbox worker fans each out to the user's channels and devices
-- (`notifications`, whose unique key keeps a retry from reaching a device
-- twice) in batches, off the action's path. No foreign key: the fan-out's
-- join with `users` drops the notices of a deleted account.
CREATE TABLE notices (
    id         bigserial PRIMARY KEY,
    user_id    uuid NOT NULL,
    match_id   uuid NOT NULL,
    seq        integer NOT NULL,
    kind       text NOT NULL,
    payload    jsonb NOT NULL,
    created_at timestamptz NOT NULL
);
