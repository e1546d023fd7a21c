DROP TABLE rematch_offers;
ALTER TABLE matches DROP COLUMN rematch_id;
ALTER TABLE matches DROP COLUMN rematch_of;
