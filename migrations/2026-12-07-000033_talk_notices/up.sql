-- Issue #50 item 4: hearing of a message. A seat that hears a message is
-- told once the gathering time has passed (`tell_at`), at most once per
-- match per 15 minutes (`told_at`: the last notice, or the turn notice
-- the unread count was folded into); `told` numbers the notices, their
-- dedupe key in the outbox.
ALTER TABLE talk_seats
    ADD COLUMN tell_at timestamptz,
    ADD COLUMN told_at timestamptz,
    ADD COLUMN told integer NOT NULL DEFAULT 0;
CREATE INDEX talk_seats_tell ON talk_seats (tell_at) WHERE tell_at IS NOT NULL;

-- Issue #50 item 2: a tournament's players talk in its own room. A
-- message belongs to a match or to a tournament, never both.
ALTER TABLE messages
    ALTER COLUMN match_id DROP NOT NULL,
    ADD COLUMN tournament_id uuid REFERENCES tournaments (id) ON DELETE CASCADE,
    ADD CONSTRAINT messages_room CHECK (num_nonnulls(match_id, tournament_id) = 1);
CREATE INDEX messages_tournament ON messages (tournament_id, serial DESC)
    WHERE tournament_id IS NOT NULL;
