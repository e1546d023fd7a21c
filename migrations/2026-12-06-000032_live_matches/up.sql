-- Issue #49, item 8: live match pages (src/live.rs). The database says
-- when a match changed, on the commit of whichever writer changed it (an
-- action, the sweep, a takeback, a rematch); a rollback says nothing.
-- The payload is "<match id> <seq>": no game content ever travels here,
-- a page re-reads its match through the API, which shows each viewer only
-- what they may see (docs/rules §H1).
CREATE FUNCTION match_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'matches' THEN
        PERFORM pg_notify('match_changed', NEW.id::text || ' ' || NEW.seq);
    ELSE
        -- A rematch asked for: the match's seq stays; -1 says "look again".
        PERFORM pg_notify('match_changed', NEW.match_id::text || ' -1');
    END IF;
    RETURN NULL;
END
$$;

-- What a match page shows moves with these columns: a move or any other
-- event (seq), the end (status), the rematch made (rematch_id). The sweep's
-- other bookkeeping (notice_at, awaiting) notifies no one.
CREATE TRIGGER match_changed AFTER UPDATE ON matches FOR EACH ROW
    WHEN (OLD.seq IS DISTINCT FROM NEW.seq OR OLD.status IS DISTINCT FROM NEW.status
          OR OLD.rematch_id IS DISTINCT FROM NEW.rematch_id)
    EXECUTE FUNCTION match_changed();

CREATE TRIGGER match_changed AFTER INSERT ON rematch_offers FOR EACH ROW
    EXECUTE FUNCTION match_changed();
