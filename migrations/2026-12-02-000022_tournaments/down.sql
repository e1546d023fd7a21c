ALTER TABLE matches DROP COLUMN tournament_id;
DROP TABLE tournament_matches;
DROP TABLE tournament_players;
DROP TABLE tournaments;
