DROP TABLE rating_changes;
DROP TABLE rating_counts;
DROP TABLE ratings;
