DROP TABLE mined_matches;
DROP TABLE puzzle_ratings;
DROP TABLE puzzle_attempts;
DROP TABLE puzzle_days;
DROP TABLE puzzles;
