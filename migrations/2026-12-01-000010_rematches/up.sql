-- Issue #20: a rematch offers the same game, settings and players again;
-- it starts when every player has asked for it, and the two matches are
-- linked both ways.
ALTER TABLE matches ADD COLUMN rematch_of uuid REFERENCES matches (id) ON DELETE SET NULL;
ALTER TABLE matches ADD COLUMN rematch_id uuid REFERENCES matches (id) ON DELETE SET NULL;

CREATE TABLE rematch_offers (
    match_id   uuid NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (match_id, user_id)
);
