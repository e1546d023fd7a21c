DROP TABLE match_shares;
