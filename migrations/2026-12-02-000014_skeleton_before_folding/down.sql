ALTER TABLE users DROP COLUMN skeleton_cased;
