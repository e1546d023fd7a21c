DROP TABLE looks_worn;
DROP TABLE purses;
DROP TABLE coins;
