DROP INDEX users_skeleton; ALTER TABLE users DROP COLUMN skeleton;
