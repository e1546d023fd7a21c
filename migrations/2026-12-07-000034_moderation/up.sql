-- Issue #50 item 6: reports and moderators. A moderator is granted by the
-- binary's command (`posthorn moderator grant <username>`), never by the
-- API. A moderator may hide a message, mute a player's talk for a time,
-- suspend an account (no sign-in; its matches in play resigned); every
-- such act, and every grant, is kept in the audit log with who and why.
ALTER TABLE users
    ADD COLUMN moderator boolean NOT NULL DEFAULT false,
    ADD COLUMN talk_muted_until timestamptz,
    ADD COLUMN suspended_at timestamptz;

ALTER TABLE messages ADD COLUMN hidden_at timestamptz;

CREATE TABLE reports (
    id          uuid PRIMARY KEY,
    message_id  uuid NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    reporter_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reason      text NOT NULL CHECK (reason IN ('abuse', 'spam', 'other')),
    detail      text CHECK (detail IS NULL OR char_length(detail) BETWEEN 1 AND 500),
    created_at  timestamptz NOT NULL,
    -- Closed by a moderator's act on it (dismissed, or its message hidden).
    closed_at   timestamptz,
    -- One report per reporter and message.
    UNIQUE (message_id, reporter_id)
);
CREATE INDEX reports_open ON reports (created_at) WHERE closed_at IS NULL;

CREATE TABLE moderation_log (
    serial         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- NULL: the command line (a grant or revoke).
    moderator_id   uuid REFERENCES users (id),
    action         text NOT NULL,
    target_user    uuid REFERENCES users (id),
    target_message uuid REFERENCES messages (id) ON DELETE SET NULL,
    target_report  uuid REFERENCES reports (id) ON DELETE SET NULL,
    why            text NOT NULL CHECK (char_length(why) BETWEEN 1 AND 500),
    until          timestamptz,
    at             timestamptz NOT NULL
);
