UPDATE notifications SET status = 'failed' WHERE status = 'dropped';
ALTER TABLE notifications DROP CONSTRAINT notifications_status_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_status_check
    CHECK (status IN ('pending', 'sent', 'failed'));
ALTER TABLE notifications DROP COLUMN held_at;
DROP TABLE watchers;
