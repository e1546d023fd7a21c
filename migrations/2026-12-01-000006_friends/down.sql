DROP TABLE blocks;
DROP TABLE friendships;
