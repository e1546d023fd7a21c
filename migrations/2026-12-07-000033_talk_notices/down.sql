DELETE FROM messages WHERE tournament_id IS NOT NULL;
ALTER TABLE messages DROP CONSTRAINT messages_room, DROP COLUMN tournament_id,
    ALTER COLUMN match_id SET NOT NULL;
ALTER TABLE talk_seats DROP COLUMN tell_at, DROP COLUMN told_at, DROP COLUMN told;
