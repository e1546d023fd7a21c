-- Each user's notification preferences (absent: the defaults, all on).
CREATE TABLE notification_settings (
    user_id  uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    settings jsonb NOT NULL
);

-- The outbox: written in the same transaction as the events that cause
-- it, delivered by a worker on any instance. The unique key is the dedupe
-- key: nothing is sent twice, whatever the instance count.
CREATE TABLE notifications (
    id              bigserial PRIMARY KEY,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    match_id        uuid NOT NULL,
    seq             integer NOT NULL,
    kind            text NOT NULL,
    channel         text NOT NULL,
    payload         jsonb NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    last_error      text,
    created_at      timestamptz NOT NULL,
    sent_at         timestamptz,
    UNIQUE (user_id, match_id, seq, kind, channel)
);
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
