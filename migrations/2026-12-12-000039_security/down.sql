ALTER TABLE puzzle_attempts DROP COLUMN day_began;
DROP TABLE spent_nonces;
DROP TABLE email_undos;
DROP INDEX engine_time_block;
ALTER TABLE engine_time DROP COLUMN block;
DROP FUNCTION address_block(text);
