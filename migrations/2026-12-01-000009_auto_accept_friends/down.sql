ALTER TABLE users DROP COLUMN auto_accept_friends;
