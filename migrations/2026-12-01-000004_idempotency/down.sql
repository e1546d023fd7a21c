DROP INDEX idempotent_answers_created;
ALTER TABLE idempotent_answers DROP COLUMN fingerprint;
