-- Issue #48, item 8: what an action needs to know, on the match row it
-- locks anyway, so that it costs no round trip of its own.

-- Moves when a seated player's name changes (a guest registers, an account
-- is deleted): a cached table's players hold while it stands still
-- (src/matches/snapshots.rs).
ALTER TABLE matches ADD COLUMN roster integer NOT NULL DEFAULT 0;

-- The players who may keep conditional moves here (issue #34), a superset
-- kept by src/matches/conditional.rs: a player not in it has no line to
-- read after the opponent's move.
ALTER TABLE matches ADD COLUMN planning uuid[] NOT NULL DEFAULT '{}';
UPDATE matches m SET planning = ARRAY(
    SELECT user_id FROM conditional_lines c WHERE c.match_id = m.id)
 WHERE EXISTS (SELECT 1 FROM conditional_lines c WHERE c.match_id = m.id);
