DROP TABLE notices;
