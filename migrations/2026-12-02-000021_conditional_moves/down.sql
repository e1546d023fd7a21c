DROP TABLE conditional_lines;
