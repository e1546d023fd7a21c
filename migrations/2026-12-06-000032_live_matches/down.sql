DROP TRIGGER match_changed ON rematch_offers;
DROP TRIGGER match_changed ON matches;
DROP FUNCTION match_changed();
