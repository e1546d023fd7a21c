-- Native apps' push tokens (issue #51): an iOS app's APNs device token or
-- an Android app's FCM registration token. A token belongs to the account
-- that registered it last (UNIQUE (platform, token)); a device registered
-- from a session goes when that session is ended (`session_id`).
CREATE TABLE app_devices (
    id            uuid PRIMARY KEY,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    session_id    uuid,
    platform      text NOT NULL CHECK (platform IN ('ios', 'android')),
    token         text NOT NULL,
    app_id        text,
    locale        text,
    created_at    timestamptz NOT NULL,
    registered_at timestamptz NOT NULL,
    UNIQUE (platform, token)
);
CREATE INDEX app_devices_user ON app_devices (user_id, registered_at);
CREATE INDEX app_devices_session ON app_devices (session_id) WHERE session_id IS NOT NULL;
