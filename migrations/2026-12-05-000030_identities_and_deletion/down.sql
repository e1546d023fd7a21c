ALTER TABLE users DROP COLUMN name_held_until;
ALTER TABLE users DROP COLUMN deleted_at;
DROP TABLE identities;
ALTER TABLE refresh_tokens DROP COLUMN device;
