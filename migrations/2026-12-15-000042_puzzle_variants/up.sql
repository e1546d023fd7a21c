-- The daily puzzle per game and variant (docs/puzzles.md, "Serving"): a
-- puzzle's variant, read from the configuration it was mined in ('' for a
-- game without variants), and the day's puzzle keyed by game, variant and
-- day. Only expands: a release before this one still writes a day's
-- puzzle under ''.
ALTER TABLE puzzles ADD COLUMN variant text NOT NULL DEFAULT '';
UPDATE puzzles SET variant = config->>'variant' WHERE config ? 'variant';
CREATE INDEX puzzles_game_variant ON puzzles (game, variant);
ALTER TABLE puzzle_days ADD COLUMN variant text NOT NULL DEFAULT '';
UPDATE puzzle_days d SET variant = p.variant FROM puzzles p WHERE p.id = d.puzzle_id;
ALTER TABLE puzzle_days DROP CONSTRAINT puzzle_days_pkey, ADD PRIMARY KEY (game, variant, day);
