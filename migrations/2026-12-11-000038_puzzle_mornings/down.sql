DROP TABLE puzzle_mornings;
