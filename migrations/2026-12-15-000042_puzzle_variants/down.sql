DELETE FROM puzzle_days a USING puzzle_days b
 WHERE a.game = b.game AND a.day = b.day AND a.variant > b.variant;
ALTER TABLE puzzle_days DROP CONSTRAINT puzzle_days_pkey, ADD PRIMARY KEY (game, day);
ALTER TABLE puzzle_days DROP COLUMN variant;
DROP INDEX puzzles_game_variant;
ALTER TABLE puzzles DROP COLUMN variant;
