DROP TABLE notes;
DROP TABLE talk_seats;
ALTER TABLE users DROP COLUMN talk;
DROP TABLE messages;
