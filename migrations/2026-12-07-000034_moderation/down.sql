DROP TABLE moderation_log;
DROP TABLE reports;
ALTER TABLE messages DROP COLUMN hidden_at;
ALTER TABLE users DROP COLUMN moderator, DROP COLUMN talk_muted_until, DROP COLUMN suspended_at;
