ALTER TABLE jobs DROP COLUMN request_id;
ALTER TABLE notifications DROP COLUMN request_id;
ALTER TABLE notices DROP COLUMN request_id;
