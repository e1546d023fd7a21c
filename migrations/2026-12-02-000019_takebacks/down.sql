ALTER TABLE users DROP COLUMN takebacks;
