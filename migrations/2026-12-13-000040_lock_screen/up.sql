-- Issue #66 item 3: silence while at the table.

-- Who is watching which match, a row per live stream (src/notify/at_table.rs
-- owns it): written when a match page's stream opens, deleted when it
-- closes; `until` is the stream's own end, so a row left by an instance
-- that died lapses by itself.
CREATE TABLE watchers (
    stream   uuid PRIMARY KEY,
    user_id  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    match_id uuid NOT NULL,
    until    timestamptz NOT NULL
);
CREATE INDEX watchers_user_match ON watchers (user_id, match_id, until);

-- When a notice was first held because its reader was at the table; a
-- notice is held for at most ten minutes from then.
ALTER TABLE notifications ADD COLUMN held_at timestamptz;

-- A notice dropped unsent: its reader acted at the table, a newer notice
-- replaced it, or a more urgent one went with it (items 3 and 4).
ALTER TABLE notifications DROP CONSTRAINT notifications_status_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_status_check
    CHECK (status IN ('pending', 'sent', 'failed', 'dropped'));
