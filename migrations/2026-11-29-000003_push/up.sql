-- Web Push subscriptions (RFC 8030); a 404 or 410 from the push service
-- deletes one.
CREATE TABLE push_subscriptions (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    endpoint   text NOT NULL,
    p256dh     text NOT NULL,
    auth       text NOT NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (user_id, endpoint)
);
