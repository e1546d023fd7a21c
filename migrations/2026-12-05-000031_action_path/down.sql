ALTER TABLE matches DROP COLUMN planning;
ALTER TABLE matches DROP COLUMN roster;
