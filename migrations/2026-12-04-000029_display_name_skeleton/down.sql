ALTER TABLE users DROP COLUMN display_skeleton_cased;
ALTER TABLE users DROP COLUMN display_skeleton;
