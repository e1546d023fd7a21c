-- Takebacks by consent (issue #34): whether a player's opponents may ask
-- them to take a move back: never, in unrated matches only (the default),
-- or always.
ALTER TABLE users ADD COLUMN takebacks text NOT NULL DEFAULT 'unrated'
    CHECK (takebacks IN ('never', 'unrated', 'always'));
