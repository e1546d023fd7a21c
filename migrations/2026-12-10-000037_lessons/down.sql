DROP TABLE lessons_done;
