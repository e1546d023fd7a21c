-- Issue #20: a player may let friends' challenges start at once (off by default).
ALTER TABLE users ADD COLUMN auto_accept_friends boolean NOT NULL DEFAULT false;
